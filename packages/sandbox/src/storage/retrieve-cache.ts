/**
 * Retrieve's answers by transaction id, kept as the JSON text sent, so a transaction read again
 * and again (a console or an app polling a pending payment) is not read from SQLite, reshaped and
 * serialised on every request while it has not changed (bench:engine: about a fifth of a retrieve's CPU).
 *
 * Never stale, whoever writes:
 * - a temporary trigger on every UPDATE and DELETE of `transactions` drops that transaction's text
 *   inside the write itself (a change rolled back only costs a miss);
 * - the texts live in the config cache (config-cache.ts), so they go whenever it is cleared: a
 *   write to applications or methods (their names are in the answer), or a commit by another
 *   connection to the same file;
 * - a text is only stored from a read made outside any transaction, so it is always committed data
 *   (a group commit that fails could otherwise leave the uncommitted state cached).
 * Only answers found are kept (a 404 may be created the next moment), at most MAX_ENTRIES of them,
 * the oldest stored dropped first.
 */
import type Database from 'better-sqlite3';
import type { Environment } from '../../../../shared/contract';
import type { TransactionKind } from '../events';
import { configCache, configCacheEntriesForTrigger } from './config-cache';

const MAX_ENTRIES = 5000;
const CACHE_KEY = 'retrieve-texts';
const CHANGED_FUNCTION = 'paydesk_transaction_changed';

interface Entry {
  appId: string;
  environment: Environment;
  kind: TransactionKind;
  text: string;
}

const installed = new WeakSet<Database.Database>();

/** The texts of this database as the config cache holds them now (null: bypassed, as it is in a config write). */
function entriesOf(db: Database.Database): Map<string, Entry> | null {
  const cache = configCache(db);
  if (cache === null) return null;
  let entries = cache.get(CACHE_KEY) as Map<string, Entry> | undefined;
  if (entries === undefined) {
    entries = new Map();
    cache.set(CACHE_KEY, entries);
  }
  return entries;
}

/** Installs the triggers (after migrations and the config cache). Idempotent per connection. */
export function installRetrieveCache(db: Database.Database): void {
  if (installed.has(db)) return;
  db.function(CHANGED_FUNCTION, { deterministic: false }, (id: unknown) => {
    // Inside the UPDATE or DELETE: no statement may run here, so the map is reached without `configCache`'s checks.
    if (typeof id === 'string') (configCacheEntriesForTrigger(db)?.get(CACHE_KEY) as Map<string, Entry> | undefined)?.delete(id);
    return null;
  });
  for (const operation of ['UPDATE', 'DELETE'] as const) {
    db.exec(
      `CREATE TEMP TRIGGER IF NOT EXISTS paydesk_retrieve_${operation.toLowerCase()} AFTER ${operation} ON main.transactions ` +
        `BEGIN SELECT ${CHANGED_FUNCTION}(OLD.id); END`,
    );
  }
  installed.add(db);
}

/**
 * The answer text for `id` in this scope: the kept one, or `build()`'s (kept when it is not
 * undefined and no transaction is open). A transaction of another scope is not found, as in the table.
 */
export function retrieveText(
  db: Database.Database,
  scope: { appId: string; environment: Environment; kind: TransactionKind },
  id: string,
  build: () => string | undefined,
): string | undefined {
  const entries = entriesOf(db);
  const kept = entries?.get(id);
  if (kept !== undefined && kept.appId === scope.appId && kept.environment === scope.environment && kept.kind === scope.kind) return kept.text;
  const text = build();
  if (text === undefined || entries === null || db.inTransaction || !installed.has(db)) return text;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(id, { appId: scope.appId, environment: scope.environment, kind: scope.kind, text });
  return text;
}
