/**
 * What every part of the engine shares: the database, the clock, the live settings, the event
 * stream and the write-transaction helper. Extensions (issue 4) receive this too.
 */
import type Database from 'better-sqlite3';
import type { EngineClock } from './lifecycle/clock';
import type { EngineEvent, EngineEventListener, EventHub } from './events';
import type { Seed } from './storage/seed';
import type { StatusHook } from './lifecycle/status-change';
import type { ServiceVariantState } from './variants/state';

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
  /** The service variants in force (variants/catalogue.ts): which of the spec's silences answer the other way. */
  variants: ServiceVariantState;
  seed: Seed;
  /**
   * Runs `work` atomically: its own SQLite transaction, or a savepoint inside the open commit
   * group (see `writeGrouped`). Events it queued are emitted after commit, dropped on rollback.
   */
  write<T>(work: () => T): T;
  /**
   * Group commit for API writes: runs `work` at once (serially, in a savepoint, so every check
   * sees every earlier write), and resolves after the one COMMIT shared by all writes of the group
   * (those of the next few event-loop turns while more keep coming). Answer the client only after it
   * resolves. Throws as `write` does.
   */
  writeGrouped<T>(work: () => T): Promise<T>;
  /**
   * `writeGrouped` for a write that checks everything before it writes anything (a create): no
   * savepoint of its own. `check` reads and may refuse (its error goes to this caller alone, as
   * nothing was written); `apply` writes and is not expected to fail. If `apply` throws all the
   * same (a bug, a full disk), the whole open group is rolled back and every writer in it gets the
   * error: none of them had been answered, and none of their rows is kept.
   */
  writeGroupedChecked<C, T>(check: () => C, apply: (checked: C) => T): Promise<T>;
  /** Commits the open group now (engine stop). */
  flushWrites(): void;
  /** Queues an event for after the current write commits (emits at once outside a write). */
  queueEvent(event: EngineEvent): void;
  onEvent(listener: EngineEventListener): () => void;
  /** Synchronous hooks run inside the status change's own transaction (see transitions.ts). */
  registerStatusHook(hook: StatusHook): () => void;
  statusHooks(): readonly StatusHook[];
  /**
   * Tells the scheduler new due work may exist; `dueAt` (engine µs), when known, lets it skip
   * looking up the earliest due time if its timer already fires by then.
   */
  kickScheduler(dueAt?: number): void;
  /** The scheduler's subscription to `kickScheduler`; returns an unsubscribe. */
  onSchedulerKick(listener: (dueAt?: number) => void): () => void;
  /** Called on `stop()`, in reverse order of registration. */
  onStop(cleanup: () => void | Promise<void>): void;
}

/** The most event-loop turns a commit group stays open for (see `writeGrouped`). */
const GROUP_MAX_TURNS = 4;

export function createContext(parts: {
  db: Database.Database;
  clock: EngineClock;
  settings: EngineSettings;
  variants: ServiceVariantState;
  seed: Seed;
  hub: EventHub;
  onStop: (cleanup: () => void | Promise<void>) => void;
}): EngineContext {
  const { db, hub } = parts;
  const hooks: StatusHook[] = [];
  const kickListeners = new Set<(dueAt?: number) => void>();
  let pending: EngineEvent[] = [];
  let depth = 0;
  interface Group {
    done: Promise<void>;
    resolve: () => void;
    reject: (error: unknown) => void;
    writes: number;
  }
  let group: Group | null = null;
  // One wrapper for every write: `db.transaction(fn)` builds new wrapper functions on each call.
  const inTransaction = db.transaction((work: () => unknown) => work());

  function emitPending(): void {
    const committed = pending;
    pending = [];
    for (const event of committed) hub.emit(event);
  }

  function write<T>(work: () => T): T {
    if (depth > 0) return work();
    depth += 1;
    const mark = pending.length;
    let result: T;
    try {
      // Inside an open group, better-sqlite3 makes this a savepoint: a failure undoes only this write.
      result = inTransaction(work) as T;
    } catch (error) {
      pending.length = mark;
      throw error;
    } finally {
      depth -= 1;
    }
    if (!group) emitPending();
    return result;
  }

  function commitGroup(): void {
    const closing = group;
    if (!closing) return;
    group = null;
    try {
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      pending = [];
      closing.reject(error);
      return;
    }
    emitPending();
    closing.resolve();
  }

  /** Rolls the open group back: nothing of it is kept, and each of its writers gets `error`. */
  function abortGroup(error: unknown): void {
    const aborted = group;
    group = null;
    if (db.inTransaction) db.exec('ROLLBACK');
    pending = [];
    aborted?.reject(error);
  }

  /** Opens a commit group unless one is open, or returns null when another transaction is open (a nested call). */
  function currentGroup(): Group | null {
    if (!group && !db.inTransaction) {
      db.exec('BEGIN IMMEDIATE');
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const done = new Promise<void>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      // A failed commit is reported to every writer of the group; nobody else awaits `done`.
      done.catch(() => undefined);
      const opened: Group = { done, resolve, reject, writes: 0 };
      group = opened;
      // The group stays open while each event-loop turn brings more writes (requests whose bytes
      // arrived meanwhile), for at most GROUP_MAX_TURNS turns, then commits: on a busy server the
      // COMMIT is shared by more requests (bench:engine: about 15 % less CPU per create); an idle
      // one commits on the second turn.
      let seen = -1;
      let turns = 0;
      const settle = () => {
        if (group !== opened) return;
        turns += 1;
        if (opened.writes === seen || turns >= GROUP_MAX_TURNS) commitGroup();
        else {
          seen = opened.writes;
          setImmediate(settle);
        }
      };
      setImmediate(settle);
    }
    return group;
  }

  parts.onStop(commitGroup);

  return {
    db,
    clock: parts.clock,
    settings: parts.settings,
    variants: parts.variants,
    seed: parts.seed,
    write,
    writeGrouped<T>(work: () => T): Promise<T> {
      const open = currentGroup();
      if (open) open.writes += 1;
      const result = write(work);
      return open ? open.done.then(() => result) : Promise.resolve(result);
    },
    writeGroupedChecked<C, T>(check: () => C, apply: (checked: C) => T): Promise<T> {
      const open = currentGroup();
      // Inside another transaction (a nested call): that transaction's own rules apply.
      if (!open || depth > 0) return Promise.resolve(write(() => apply(check())));
      open.writes += 1;
      depth += 1;
      let result: T;
      try {
        const checked = check();
        try {
          result = apply(checked);
        } catch (error) {
          // Written in part, and no savepoint to undo just this part: nothing of the group is kept.
          abortGroup(error);
          throw error;
        }
      } finally {
        depth -= 1;
      }
      return open.done.then(() => result);
    },
    flushWrites: commitGroup,
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
    kickScheduler(dueAt) {
      for (const listener of kickListeners) listener(dueAt);
    },
    onSchedulerKick(listener) {
      kickListeners.add(listener);
      return () => kickListeners.delete(listener);
    },
    onStop: parts.onStop,
  };
}
