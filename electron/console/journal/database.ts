/**
 * The journal's SQLite connection: WAL, the pragmas, the search's folding function, the migrations,
 * and the statement cache every query of the journal relies on.
 */
import Database from 'better-sqlite3';
import { migrate } from './migrations';
import { fold } from './text-search';

export type JournalDb = Database.Database;

export function openJournal(file: string, options: { nativeBinding?: string } = {}): JournalDb {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 16 MiB of page cache keeps the search indexes' upper levels in memory at a million rows.
  db.pragma('cache_size = -16000');
  // History's search checks candidate rows with the index's own case and accent folding.
  db.function('paydesk_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : text));
  migrate(db);
  cacheStatements(db);
  return db;
}

/**
 * Every query here prepares its statement where it runs; compiling the same SQL again for each
 * row of a bulk batch cost about a quarter of the journal's time per row. Statements are
 * remembered by their text (bounded; none is used re-entrantly: iterations finish synchronously).
 */
function cacheStatements(db: JournalDb): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= 500) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as typeof db.prepare;
}
