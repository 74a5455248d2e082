/**
 * A per-database cache for the rarely written configuration rows every request reads (API keys,
 * applications, methods, fees), so the hot paths skip their SELECTs and JSON parsing.
 *
 * Invalidation does not rely on callers: temporary triggers on every INSERT, UPDATE and DELETE of
 * those tables clear the cache, whoever writes (control API, seeding, reset, extensions). While a
 * transaction that wrote to them is still open, the cache is bypassed (its rows may yet roll
 * back), and it is cleared again once that transaction has ended. A commit by another connection
 * to the same file (another engine on the same database) clears it too: `PRAGMA data_version` is
 * checked once per event-loop turn, so requests handled in one turn (concurrent anyway) share it.
 */
import type Database from 'better-sqlite3';

/** The sandbox scenarios too: every create asks whether one matches, and there rarely are any. */
const CONFIG_TABLES = ['api_keys', 'applications', 'methods', 'app_methods', 'fee_schedule', 'sandbox_scenarios'] as const;
const CHANGED_FUNCTION = 'paydesk_config_changed';

interface CacheState {
  entries: Map<string, unknown>;
  /** A config table was written in a transaction that may not have ended yet. */
  dirty: boolean;
  dataVersion: Database.Statement;
  seenDataVersion: unknown;
  /** `data_version` was read in this event-loop turn. */
  checkedThisTurn: boolean;
}

const states = new WeakMap<Database.Database, CacheState>();

/** Installs the triggers (after migrations: the tables must exist). Idempotent per connection. */
export function installConfigCache(db: Database.Database): void {
  if (states.has(db)) return;
  const state: CacheState = {
    entries: new Map(),
    dirty: false,
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    seenDataVersion: undefined,
    checkedThisTurn: false,
  };
  db.function(CHANGED_FUNCTION, { deterministic: false }, () => {
    state.entries.clear();
    state.dirty = true;
    return null;
  });
  // A database opened without an extension's migrations lacks its table: nothing to watch there.
  const present = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  for (const table of CONFIG_TABLES) {
    if (!present.has(table)) continue;
    for (const operation of ['INSERT', 'UPDATE', 'DELETE'] as const) {
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS paydesk_config_${table}_${operation.toLowerCase()} AFTER ${operation} ON main.${table} ` +
          `BEGIN SELECT ${CHANGED_FUNCTION}(); END`,
      );
    }
  }
  state.seenDataVersion = state.dataVersion.get();
  states.set(db, state);
}

/**
 * The cache to read and fill, or null when it must be bypassed (read the database instead).
 * Keys are namespaced by their users (`key:`, `method:`...).
 */
export function configCache(db: Database.Database): Map<string, unknown> | null {
  const state = states.get(db);
  if (state === undefined) return null;
  if (state.dirty) {
    if (db.inTransaction) return null;
    state.dirty = false;
    state.entries.clear();
  }
  if (!state.checkedThisTurn) {
    const dataVersion = state.dataVersion.get();
    if (dataVersion !== state.seenDataVersion) {
      state.seenDataVersion = dataVersion;
      state.entries.clear();
    }
    state.checkedThisTurn = true;
    setImmediate(() => {
      state.checkedThisTurn = false;
    });
  }
  return state.entries;
}

/**
 * The cache's entries as they are, without the checks of `configCache` (which may run a statement):
 * for SQL functions called from triggers, which may only drop entries.
 */
export function configCacheEntriesForTrigger(db: Database.Database): Map<string, unknown> | null {
  return states.get(db)?.entries ?? null;
}

/** `load()` through the cache: a cached value, or a fresh one (cached unless undefined or bypassed). */
export function cachedConfig<T>(db: Database.Database, key: string, load: () => T | undefined): T | undefined {
  const cache = configCache(db);
  if (cache === null) return load();
  // One lookup: nothing undefined is ever stored, so a miss is `undefined`.
  const kept = cache.get(key) as T | undefined;
  if (kept !== undefined) return kept;
  const value = load();
  if (value !== undefined) cache.set(key, value);
  return value;
}
