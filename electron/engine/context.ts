/**
 * What every part of the engine shares: the database, the clock, the live settings, the event
 * stream and the write-transaction helper. Extensions (issue 4) receive this too.
 */
import type Database from 'better-sqlite3';
import type { EngineClock } from './clock';
import type { EngineEvent, EngineEventListener, EventHub } from './events';
import type { Seed } from './seed';
import type { StatusHook } from './transitions';

export interface EngineSettings {
  settleMs: number;
  expirySeconds: number;
  maintenance: boolean;
  bodyLimitBytes: number;
  /** 0 turns the rate limit off. */
  rateLimitPerKeyPerMinute: number;
}

export interface EngineContext {
  db: Database.Database;
  clock: EngineClock;
  settings: EngineSettings;
  seed: Seed;
  /** Runs `work` in one SQLite transaction; events it queued are emitted after commit, dropped on rollback. */
  write<T>(work: () => T): T;
  /** Queues an event for after the current write commits (emits at once outside a write). */
  queueEvent(event: EngineEvent): void;
  onEvent(listener: EngineEventListener): () => void;
  /** Synchronous hooks run inside the status change's own transaction (see transitions.ts). */
  registerStatusHook(hook: StatusHook): () => void;
  statusHooks(): readonly StatusHook[];
  /** Tells the scheduler new due work may exist. */
  kickScheduler(): void;
  /** Called on `stop()`, in reverse order of registration. */
  onStop(cleanup: () => void | Promise<void>): void;
}

export function createContext(parts: {
  db: Database.Database;
  clock: EngineClock;
  settings: EngineSettings;
  seed: Seed;
  hub: EventHub;
  kickScheduler: () => void;
  onStop: (cleanup: () => void | Promise<void>) => void;
}): EngineContext {
  const { db, hub } = parts;
  const hooks: StatusHook[] = [];
  let pending: EngineEvent[] = [];
  let depth = 0;
  return {
    db,
    clock: parts.clock,
    settings: parts.settings,
    seed: parts.seed,
    write<T>(work: () => T): T {
      if (depth > 0) return work();
      depth += 1;
      let result: T;
      try {
        result = db.transaction(work)();
      } catch (error) {
        pending = [];
        throw error;
      } finally {
        depth -= 1;
      }
      const committed = pending;
      pending = [];
      for (const event of committed) hub.emit(event);
      return result;
    },
    queueEvent(event) {
      if (depth > 0) pending.push(event);
      else hub.emit(event);
    },
    onEvent: (listener) => hub.on(listener),
    registerStatusHook(hook) {
      hooks.push(hook);
      return () => {
        const index = hooks.indexOf(hook);
        if (index !== -1) hooks.splice(index, 1);
      };
    },
    statusHooks: () => hooks,
    kickScheduler: parts.kickScheduler,
    onStop: parts.onStop,
  };
}
