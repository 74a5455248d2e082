/**
 * For this repository's tests only (not exported by the package's entry, and lint keeps the
 * console out of packages/): the database and context behind a running engine's ports, for
 * tests that check what was stored or drive an engine part directly.
 */
import type Database from 'better-sqlite3';
import type { EngineContext } from './context';
import type { EngineHandle } from './ports';

export interface EngineInternals {
  db: Database.Database;
  ctx: EngineContext;
}

const internalsOf = new WeakMap<EngineHandle, EngineInternals>();

/** Called once by `startEngine` for the handle it returns. */
export function recordInternals(handle: EngineHandle, internals: EngineInternals): void {
  internalsOf.set(handle, internals);
}

export function engineInternals(handle: EngineHandle): EngineInternals {
  const internals = internalsOf.get(handle);
  if (!internals) throw new Error('not a handle startEngine returned');
  return internals;
}
