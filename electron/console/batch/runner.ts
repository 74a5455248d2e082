/**
 * Sending a batch, step by step, each step a function that takes only what it touches:
 * - prepare (`usableProfile`): the batch's profile may still send (edited, key removed?);
 * - follow up (./look-up.ts): each row whose outcome is unknown looked up by its external id first;
 * - send a row (./send-row.ts): its journal entry committed `pending` BEFORE its POST, the answer
 *   recorded; several rows' entries and answers share one SQLite transaction (../journal/group-commit.ts);
 * - wait for the rate limit (./run.ts): the service's 429/503 Retry-After honoured by every worker;
 * - finish (`endOf`, `finish`): the state the run ends in, written through BATCH_STATE_TABLE.
 * `concurrency` workers take the rows not sent in row order. A row is never sent while its outcome
 * is unknown.
 *
 * Pause and Cancel are written by the handlers before they answer (batch/store setState, checked
 * against BATCH_STATE_TABLE); the runner only notices them, stops taking rows and cuts its waits
 * short. A batch is `done` only when no row is left not sent, in flight or unknown.
 */
import type { BatchProgress, BatchRow, BatchState, ServiceWait } from '../../../shared/api';
import type { Context, HandlerDeps } from '../handlers/context';
import type { JournalDb } from '../journal/entries';
import { journalWrites, type GroupCommit } from '../journal/group-commit';
import { lookUpUnknown } from './look-up';
import { progressEmitter, serviceWait } from './progress';
import { newRun, stopped, type Run } from './run';
import { sendRow, type RowSending } from './send-row';
import { countRows, getSummary, rowsInState, setState } from './store';

/** Rounds of look-up-then-send per run, for rows whose outcome stays unknown after a 5xx. */
const MAX_ROUNDS = 3;

type Profile = ReturnType<Context['resolveProfile']>;
type StateExtra = Parameters<typeof setState>[4];
type End = { state: BatchState; extra: StateExtra } | null;

export interface BatchRunner {
  /** Starts sending (or resuming) a batch in the background; no-op when it already runs. */
  run(batchId: string): void;
  /**
   * Tells a running batch that a Pause or Cancel was written: it stops taking rows and ends once
   * the rows in flight are answered. False when it is not running.
   */
  stop(batchId: string, why: 'pause' | 'cancel'): boolean;
  isRunning(batchId: string): boolean;
  /** Resolves when the batch's run has ended (tests, shutdown). */
  settled(batchId: string): Promise<void>;
  idle(): Promise<void>;
  emitProgress(batchId: string, mode: BatchProgress['mode'], extra?: Partial<BatchProgress>): void;
  /** The service's wait a running batch sits out now (a reopened batch shows it without waiting for a push). */
  currentWait(batchId: string): ServiceWait | null;
}

export interface RunnerHooks {
  /** A run ended: its accepted rows are followed up until final (the sweeper). */
  afterRun(batchId: string): void;
}

/** What the runner uses of the handlers' context. */
export type RunnerContext = Pick<Context, 'resolveProfile' | 'requireAllowed' | 'requireSecret' | 'clientFor'> & {
  deps: Pick<HandlerDeps, 'journal' | 'clock' | 'emit' | 'logger' | 'signal'>;
};

/** Prepare: whether the batch's profile may still send (it may have been edited or its key removed). */
export function usableProfile(
  context: Pick<Context, 'resolveProfile' | 'requireAllowed' | 'requireSecret'>,
  profileId: string,
  environment: string,
): { profile: Profile } | { reason: string } {
  try {
    const profile = context.resolveProfile(profileId);
    if (profile.environment !== environment) {
      throw new Error(`the profile "${profile.name}" now points at ${profile.environment}, but this batch was confirmed for ${environment}`);
    }
    context.requireAllowed(profile);
    context.requireSecret(profile, 'payout');
    return { profile };
  } catch (error) {
    return { reason: `Cannot send: ${error instanceof Error ? error.message : 'the profile is not usable'}.` };
  }
}

/**
 * Sends the rows not sent with `concurrency` workers in row order; returns once every answer is
 * committed. Throws the first journal write that failed.
 */
export async function sendRows(run: Run, rows: readonly BatchRow[], concurrency: number, sending: RowSending): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < rows.length && !stopped(run)) await sendRow(run, rows[next++]!, sending);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), rows.length) }, worker));
  await sending.writes.drain();
  if (run.writeError !== undefined) throw run.writeError;
}

/** Finish: the state a run ends in; a Pause or Cancel the user wrote stands. */
export function endOf(db: JournalDb, run: Run, closing: AbortSignal | undefined): End {
  if (closing?.aborted) return null; // the console is closing: the next start marks it interrupted
  const summary = getSummary(db, run.batchId);
  if (!summary) return null;
  const { counts } = summary;
  if (summary.state === 'cancelled') {
    return { state: 'cancelled', extra: { reason: `Cancelled: ${counts.notSent} row(s) were not sent${counts.unknown > 0 ? `; ${counts.unknown} with an unknown outcome are being looked up` : ''}.`, finished: true } };
  }
  if (summary.state === 'paused') return { state: 'paused', extra: { reason: run.stop === 'interrupt' ? run.reason : null } };
  if (run.stop === 'interrupt') return { state: 'interrupted', extra: { reason: run.reason } };
  if (counts.unknown > 0) {
    return { state: 'interrupted', extra: { reason: `${counts.unknown} row(s) have an unknown outcome after ${MAX_ROUNDS} look-ups: Resume looks them up again.` } };
  }
  if (counts.notSent + counts.pending > 0) {
    return { state: 'interrupted', extra: { reason: `${counts.notSent + counts.pending} row(s) were not sent: Resume sends them.` } };
  }
  return { state: 'done', extra: { reason: null, finished: true } };
}

export function createBatchRunner(context: RunnerContext, hooks: RunnerHooks): BatchRunner {
  const { deps } = context;
  const db = deps.journal;
  const runs = new Map<string, Run>();
  const progress = progressEmitter(deps, (batchId) => runs.get(batchId));
  /** The journal's one group commit: rows of two batches and status pushes share transactions. */
  const writes: GroupCommit = journalWrites(db);

  function changeState(batchId: string, state: BatchState, extra: StateExtra = {}): void {
    setState(db, batchId, state, deps.clock.now(), extra);
    progress.emit(batchId, 'send', {}, true);
  }

  /** Sends what is left of a batch; returns the state it ends in (set once the run is gone). */
  async function runBatch(run: Run): Promise<End> {
    const summary = getSummary(db, run.batchId);
    if (!summary) return null;
    const usable = usableProfile(context, summary.profileId, summary.environment);
    if ('reason' in usable) return { state: 'interrupted', extra: { reason: usable.reason } };
    const { profile } = usable;
    changeState(run.batchId, 'sending', { started: true });
    const client = context.clientFor(profile);
    const emit = (force: boolean) => progress.emit(run.batchId, 'send', {}, force);
    const sending: RowSending = {
      db,
      writes,
      clock: deps.clock,
      ...(deps.logger ? { logger: deps.logger } : {}),
      client,
      profile: { id: profile.id, name: profile.name, environment: profile.environment },
      progress: emit,
    };
    for (let round = 0; round < MAX_ROUNDS && !stopped(run); round += 1) {
      await lookUpUnknown(run, { db, clock: deps.clock, client, progress: emit });
      await sendRows(run, rowsInState(db, run.batchId, ['not_sent']), summary.concurrency, sending);
      if (countRows(db, run.batchId).counts.unknown === 0) break;
    }
    // Rows the service refused as already existing (or left unknown in the last round) are looked
    // up once more before the run ends: an existing transaction is adopted, not left unknown.
    if (!stopped(run) && countRows(db, run.batchId, false).counts.unknown > 0) await lookUpUnknown(run, { db, clock: deps.clock, client, progress: emit });
    return endOf(db, run, deps.signal);
  }

  function finish(run: Run, end: End): void {
    // Gone from `runs` before the state is announced: a Resume right after must be accepted.
    runs.delete(run.batchId);
    if (end) changeState(run.batchId, end.state, end.extra);
    hooks.afterRun(run.batchId);
  }

  function failed(batchId: string, error: unknown): void {
    runs.delete(batchId);
    deps.logger?.error('batch run failed', { batchId, error: error instanceof Error ? error.name : 'unknown' });
    try {
      const state = getSummary(db, batchId)?.state;
      if (state === 'sending') changeState(batchId, 'interrupted', { reason: 'The batch stopped on an unexpected error (see the log). Resume looks up the rows whose outcome is unknown first.' });
    } catch {
      // the journal is closed: the next start marks the batch interrupted
    }
  }

  return {
    run(batchId) {
      if (runs.has(batchId)) return;
      const run = newRun(batchId, deps.clock.now(), deps.signal);
      // In the map before the run announces itself: a Pause in answer to its first event must find it.
      runs.set(batchId, run);
      run.done = runBatch(run).then(
        (end) => finish(run, end),
        (error: unknown) => failed(batchId, error),
      );
    },
    stop(batchId, why) {
      const run = runs.get(batchId);
      if (!run) return false;
      if (run.stop !== 'cancel') run.stop = why;
      run.abort.abort();
      progress.emit(batchId, 'send', {}, true);
      return true;
    },
    isRunning: (batchId) => runs.has(batchId),
    async settled(batchId) {
      await runs.get(batchId)?.done;
    },
    async idle() {
      while (runs.size > 0) await Promise.all([...runs.values()].map((run) => run.done));
      progress.cancelTrailing();
    },
    emitProgress: (batchId, mode, extra) => progress.emit(batchId, mode, extra, true),
    currentWait: (batchId) => serviceWait(runs.get(batchId), deps.clock.now()),
  };
}
