/**
 * Opening the engine's SQLite database: WAL, foreign keys, migrations.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { installConfigCache } from './config-cache';
import { installRetrieveCache } from './retrieve-cache';
import { applyMigrations, type Migration } from './migrations';

/**
 * `nativeBinding`: the better-sqlite3 binary to load instead of node_modules' own — in Electron
 * development the Node-ABI build there cannot load (see scripts/ensure-electron.mjs).
 */
export function openEngineDb(file: string, extraMigrations: readonly Migration[] = [], nativeBinding?: string): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  try {
    db.pragma('journal_mode = WAL');
    // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
    db.pragma('synchronous = NORMAL');
    // Checkpoints (which fsync) every ~16 MB of WAL rather than every 4 MB: a create writes about
    // a dozen pages, and the default made checkpoints a third of its commit cost (bench:engine).
    db.pragma('wal_autocheckpoint = 4000');
    // Transaction ids are random, so lookups and index inserts touch pages all over the file: a
    // 64 MiB page cache and memory-mapped reads keep them off read() syscalls (bench:engine).
    db.pragma('cache_size = -65536');
    db.pragma('mmap_size = 268435456');
    // Each grouped write runs in a savepoint, which saves the original of every page it touches to a
    // sub-journal; in memory that is a copy, on disk (the default past 64 KiB) a file write per page.
    db.pragma('temp_store = MEMORY');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    applyMigrations(db, extraMigrations);
    installConfigCache(db);
    installRetrieveCache(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The per-user data folder for the default database file. */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  switch (platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'Paydesk');
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Paydesk');
    default:
      return join(env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share'), 'paydesk');
  }
}

export function defaultDbFile(): string {
  return join(defaultDataDir(), 'sandbox.db');
}
