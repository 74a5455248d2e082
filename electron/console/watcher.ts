/**
 * Watching a transaction after initiate: retrieve with backoff until its status is final or the
 * time limit passes, pushing each attempt (`watch:progress`) and each change (`transaction:changed`).
 *
 * `refresh` is the same read for a status change the console is told about (the local sandbox's
 * status push): the transaction is read again and stored whole (failed code, timestamps, fee), so
 * the journal never holds a status without the rest of the object.
 */
import pLimit from 'p-limit';
import { isFinalStatus, TRANSACTION_STATUSES, type ServiceStatus, type TransactionStatus } from '../../shared/contract';
import type { JournalTransaction } from '../../shared/api';
import type { Context } from './handlers/context';
import { LOCAL_SANDBOX_ID, type StoredProfile } from './settings';
import { transactionOf } from './handlers/outcomes';

type WatchProfile = StoredProfile & { builtIn: boolean };

export interface Watcher {
  watch(entry: JournalTransaction, profile: WatchProfile): void;
  /**
   * A status change was pushed (`pushedStatus`): read the transaction again and store all of it.
   * If the read fails, the pushed status alone is recorded. `profile` is resolved only for a read
   * over HTTP (resolving the local sandbox's profile reads the engine's keys: once per row of a
   * batch otherwise, and the local sandbox's transaction is read in-process).
   */
  refresh(journalId: string, profile: () => WatchProfile, pushedStatus: string, message: string): Promise<void>;
  /** Resolves when every running watch and refresh has ended (tests, shutdown). */
  idle(): Promise<void>;
}

function isStatus(value: string): value is TransactionStatus {
  return (TRANSACTION_STATUSES as readonly string[]).includes(value);
}

export function createWatcher(context: Context): Watcher {
  const { deps, watch: options } = context;
  const journal = deps.storage.journal;
  const running = new Map<string, Promise<void>>();
  const refreshing = new Set<Promise<void>>();
  /** Refreshes of one entry run one after another, so a late read never overwrites a newer one. */
  const queues = new Map<string, Promise<void>>();
  /** Watches share one pool: a burst of single sends never puts more than a few reads in flight. */
  const reads = pLimit(4);

  async function retrieve(entry: JournalTransaction, profile: WatchProfile) {
    const client = context.clientFor(profile);
    const result = entry.kind === 'payment' ? await client.retrievePayment(entry.transactionId!) : await client.retrievePayout(entry.transactionId!);
    return { result, tx: result.kind === 'success' ? transactionOf(result.data, { transactionId: entry.transactionId }) : null };
  }

  async function follow(journalId: string, profile: WatchProfile): Promise<void> {
    const started = deps.clock.now();
    let delay = options.initialDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await deps.clock.sleep(delay, deps.signal);
      } catch {
        return; // the console is closing
      }
      const entry = await journal.getEntry(journalId);
      if (!entry || entry.transactionId === null) return;
      // A status push (local sandbox) or a Verify may have brought it to a final status meanwhile.
      if (entry.status !== null && isFinalStatus(entry.status)) {
        deps.emit('watch:progress', { journalId, attempt, status: entry.status, done: true });
        return;
      }
      let status: ServiceStatus | null = entry.status;
      const { result, tx } = await reads(() => retrieve(entry, profile));
      if (deps.signal?.aborted) return;
      if (tx && result.kind === 'success') {
        const observed = await journal.recordObserved(journalId, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'status seen while watching' }, deps.clock.now());
        status = observed.entry.status;
        if (observed.changed) deps.emit('transaction:changed', { journalId, status, state: observed.entry.state });
      }
      // Failures of a retrieve are not final: the next attempt may answer.
      const final = status !== null && isFinalStatus(status);
      const timedOut = deps.clock.now() - started >= options.limitMs;
      deps.emit('watch:progress', { journalId, attempt, status, done: final || timedOut });
      if (final || timedOut) return;
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
  }

  async function readAgain(journalId: string, profileOf: () => WatchProfile, pushedStatus: string, message: string): Promise<void> {
    const entry = await journal.getEntry(journalId);
    if (!entry || entry.transactionId === null || deps.signal?.aborted) return;
    if (context.verifying.has(journalId)) return; // the Verify in flight records the whole object
    // The local sandbox's push comes from the engine in this process: read it there, not over HTTP.
    const local = entry.profileId === LOCAL_SANDBOX_ID ? (deps.engine?.transaction(entry.transactionId) ?? null) : null;
    if (local) {
      // A sandbox status: the SQLite store groups it with the other writes of this turn (a batch's rows settle in bursts).
      const observed = await journal.recordObserved(journalId, local, { type: 'sandbox_status', httpStatus: null, message, quietUnlessChanged: true }, deps.clock.now());
      deps.emit('transaction:changed', { journalId, status: observed.entry.status, state: observed.entry.state });
      return;
    }
    const { result, tx } = await retrieve(entry, profileOf());
    if (deps.signal?.aborted) return;
    if (tx && result.kind === 'success') {
      // A push the journal already knows of (a Verify or the watcher got there first, or the read
      // overtook an earlier push: processing, then failed) adds no event of its own.
      const observed = await journal.recordObserved(journalId, tx, { type: 'sandbox_status', httpStatus: result.httpStatus, message, quietUnlessChanged: true }, deps.clock.now());
      deps.emit('transaction:changed', { journalId, status: observed.entry.status, state: observed.entry.state });
      return;
    }
    deps.logger?.warn('could not read a transaction after a status push', { journalId, result: result.kind });
    if (!isStatus(pushedStatus)) return;
    const recorded = await journal.recordStatusEvent(journalId, pushedStatus, `${message}; its details could not be read: press Verify`, deps.clock.now());
    deps.emit('transaction:changed', { journalId, status: recorded.entry.status, state: recorded.entry.state });
  }

  return {
    watch(entry, profile) {
      // The team sender watches what it sent for a profile whose keys it holds (docs/team-sender.md).
      if (running.has(entry.id) || context.teamProfiles.senderHolds(entry.profileId)) return;
      const run = follow(entry.id, profile)
        .catch((error: unknown) => deps.logger?.warn('watch stopped', { journalId: entry.id, error: error instanceof Error ? error.message : 'unknown' }))
        .finally(() => running.delete(entry.id));
      running.set(entry.id, run);
    },
    refresh(journalId, profile, pushedStatus, message) {
      const previous = queues.get(journalId) ?? Promise.resolve();
      const run: Promise<void> = previous
        .then(() => readAgain(journalId, profile, pushedStatus, message))
        .catch((error: unknown) => deps.logger?.warn('status refresh failed', { journalId, error: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          refreshing.delete(run);
          if (queues.get(journalId) === run) queues.delete(journalId);
        });
      queues.set(journalId, run);
      refreshing.add(run);
      return run;
    },
    async idle() {
      while (running.size > 0 || refreshing.size > 0) await Promise.all([...running.values(), ...refreshing]);
    },
  };
}
