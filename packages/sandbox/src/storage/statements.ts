/**
 * Prepared statements, prepared once per database (the engine may run several databases in one
 * process, as tests do).
 */
import type Database from 'better-sqlite3';

export function statementsFor<T>(prepare: (db: Database.Database) => T): (db: Database.Database) => T {
  const cache = new WeakMap<Database.Database, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (prepared === undefined) {
      prepared = prepare(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
