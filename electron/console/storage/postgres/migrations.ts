/**
 * The team workspace's schema as numbered migrations: the SQL files of ./migrations, one a version
 * (./migrations/README.md says how to add one). docs/workspace-schema.sql is what they build, in
 * one file a database reviewer reads (`npm run schema:snapshot`).
 *
 * The same meaning as the journal's own (../../journal/migrations.ts) version for version: 1
 * entries and timeline, 2 batches, 3 reconciliations, 4 Overview indexes, 5 substring search, 6
 * sandbox status events. Migration 7 is the workspace's own (roles, who did what, claims, change
 * events); the journal's later migrations follow it (SQLITE_TO_PG). Columns keep the SQLite names
 * and meanings (times in ms, money in the smallest unit, JSON as text), so rows map to the domain
 * with the same functions (../../journal/rows.ts).
 */
import { readMigrationFiles, type MigrationFile } from './migration-files';
import type { PgMigration } from './pg-migration';

export type { PgMigration };

/**
 * SQLite journal version → the workspace version with the same meaning (test/storage/migrations.test.ts
 * checks the names match): SQLite 1–6 → 1–6 · 7 is the workspace's own · SQLite 7 → 8 · 8 → 9 · 9 → 10 · 10 → 38.
 */
export const SQLITE_TO_PG: Readonly<Record<number, number>> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 8: 9, 9: 10, 10: 38 };

/** `0021-approval-requests-and-the-sending-gate.sql`: four digits, the version; then words. */
const FILE_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.sql$/;
/** The file's first line names the migration as paydesk_schema_migrations records it. */
const FIRST_LINE = /^-- Migration (\d+): (\S.*?)\r?$/;

/**
 * One migration of its file: the version from the file's name and first line (they must agree),
 * the name from the first line, and as SQL what follows the file's opening comment lines, as written.
 */
export function migrationOf(file: MigrationFile): PgMigration {
  const named = FILE_NAME.exec(file.fileName);
  if (!named) throw new Error(`Workspace migration ${file.fileName}: the file's name must be four digits, a hyphen and lower-case words joined by hyphens, ending in .sql (0043-what-it-does.sql).`);
  const version = Number(named[1]);
  const lines = file.text.split('\n');
  const first = FIRST_LINE.exec(lines[0] ?? '');
  if (!first) throw new Error(`Workspace migration ${file.fileName}: its first line must be "-- Migration ${version}: <what it does>".`);
  if (Number(first[1]) !== version) throw new Error(`Workspace migration ${file.fileName}: its first line says migration ${first[1]}, its file name ${version}.`);
  let header = 0;
  for (const line of lines) {
    if (!line.startsWith('--')) break;
    header += line.length + 1;
  }
  const sql = file.text.slice(header);
  if (sql.trim() === '') throw new Error(`Workspace migration ${file.fileName} holds no SQL after its opening comment.`);
  return { version, name: first[2]!, sql };
}

/** The migrations of a folder's files, by version; two files of one version are refused. */
export function migrationsOf(files: readonly MigrationFile[]): PgMigration[] {
  const migrations = files.map(migrationOf).sort((a, b) => a.version - b.version);
  migrations.forEach((migration, i) => {
    if (i > 0 && migrations[i - 1]!.version === migration.version) {
      throw new Error(`Two workspace migrations are numbered ${migration.version}: ${files.filter((f) => migrationOf(f).version === migration.version).map((f) => f.fileName).join(', ')}.`);
    }
  });
  return migrations;
}

export const PG_MIGRATIONS: readonly PgMigration[] = migrationsOf(readMigrationFiles());
