/**
 * Sending a batch: each row written to the journal as `pending` (linked to its batch) before its
 * POST, a bounded worker pool (p-limit), the service's 429/503 Retry-After honoured by every
 * worker, and on every run, first, each row whose outcome is unknown looked up by its external id
 * (found: recorded; not found: `not_found`, and sent again with the same external id).
 * A row is never sent while its outcome is unknown.
 *
 * Pause and Cancel are written by the handlers before they answer (batch/store setState, checked
 * against BATCH_STATE_TABLE); the runner only notices them, stops taking rows and cuts its waits
 * short. A batch is `done` only when no row is left not sent, in flight or unknown.
 */
import pLimit from 'p-limit';
import { BATCH_DELTA_MAX, batchFigures, type BatchProgress, type BatchRow, type BatchState } from '../../../shared/api';
import { backoffDelayMs, DEFAULT_RETRY } from '../../client/retry';
import { recordInitiateOutcome, recordNotFound, recordObserved, recordRequest, recordResend } from '../journal/entries';
import type { Context } from '../handlers/context';
import { DEFAULT_CURRENCY } from '../handlers/context';
import { isNotFound, transactionOf } from '../handlers/outcomes';
import { classifyInitiate } from '../outcome';
import { countRows, getSummary, linkRow, rowsByNumber, rowsInState, setState } from './store';

type Stop = 'pause' | 'cancel' | 'interrupt';
type Client = ReturnType<Context['clientFor']>;
type Profile = ReturnType<Context['resolveProfile']>;

interface Run {
  batchId: string;
  stop: Stop | null;
  reason: string | null;
  /** No POST before this time (a 429 or 503 asked to wait). */
  notBefore: number;
  startedAt: number;
  answered: number;
  /** Cut short by a stop: waits end at once, POSTs in flight finish. */
  abort: AbortController;
  signal: AbortSignal;
  done: Promise<void>;
}

/** Each progress event counts the rows in SQLite: four a second keep a bar moving at a few % of the CPU. */
const PROGRESS_INTERVAL_MS = 250;
/** Rounds of look-up-then-send per run, for rows whose outcome stays unknown after a 5xx. */
const MAX_ROUNDS = 3;

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
}

export interface RunnerHooks {
  /** A run ended: its accepted rows are followed up until final (the sweeper). */
  afterRun(batchId: string): void;
}

export function createBatchRunner(context: Context, hooks: RunnerHooks): BatchRunner {
  const { deps } = context;
  const db = deps.journal;
  const now = () => deps.clock.now();
  const runs = new Map<string, Run>();
  const lastEmit = new Map<string, number>();
  const trailing = new Map<string, ReturnType<typeof setTimeout>>();
  /** Rows whose state changed since the batch's previous push: the next push carries them (a delta). */
  const changed = new Map<string, Set<number>>();
  const touched = (batchId: string, rowNumber: number) => {
    const rows = changed.get(batchId) ?? new Set<number>();
    changed.set(batchId, rows);
    rows.add(rowNumber);
  };
  function changedRows(batchId: string): Pick<BatchProgress, 'changedRows'> {
    const rows = changed.get(batchId);
    if (!rows) return {};
    changed.delete(batchId);
    return { changedRows: rows.size > BATCH_DELTA_MAX ? null : rowsByNumber(db, batchId, [...rows]) };
  }

  function progressOf(batchId: string, mode: BatchProgress['mode']): BatchProgress | null {
    const summary = getSummary(db, batchId);
    if (!summary) return null;
    const { counts } = summary;
    const run = runs.get(batchId);
    const at = now();
    const elapsed = run ? (at - run.startedAt) / 1000 : 0;
    const rate = run && elapsed > 0 ? run.answered / elapsed : 0;
    const figures = batchFigures(counts);
    const { remaining } = figures;
    const waitMs = run ? Math.max(0, run.notBefore - at) : 0;
    return {
      batchId,
      mode,
      state: summary.state,
      sent: figures.sent,
      accepted: figures.accepted,
      failed: figures.failed,
      unknown: figures.unknown,
      remaining,
      ratePerSecond: Math.round(rate * 10) / 10,
      // Honest while waiting: the wait itself, then the rows at the rate seen so far.
      etaSeconds: remaining === 0 ? 0 : rate > 0 ? Math.ceil(remaining / rate + waitMs / 1000) : null,
      final: figures.final,
      processing: figures.processing,
      settled: figures.settled,
      inFlight: figures.inFlight,
      waitingUntil: run && waitMs > 0 && run.stop === null ? new Date(run.notBefore).toISOString() : null,
      // A Pause or Cancel is written at once; until the run has ended, it is still settling.
      stopping: run ? (summary.state === 'paused' ? 'pause' : summary.state === 'cancelled' ? 'cancel' : null) : null,
    };
  }

  /** At most one event per interval per batch, plus a trailing one so the last count is shown. */
  function emitProgress(batchId: string, mode: BatchProgress['mode'], extra: Partial<BatchProgress> = {}, force = false): void {
    const at = Date.now();
    const last = lastEmit.get(batchId) ?? 0;
    if (!force && at - last < PROGRESS_INTERVAL_MS) {
      if (!trailing.has(batchId)) {
        trailing.set(
          batchId,
          setTimeout(() => {
            trailing.delete(batchId);
            emitProgress(batchId, mode, extra, true);
          }, PROGRESS_INTERVAL_MS - (at - last)),
        );
      }
      return;
    }
    lastEmit.set(batchId, at);
    const progress = progressOf(batchId, mode);
    if (progress) deps.emit('batch:progress', { ...progress, ...changedRows(batchId), ...extra });
  }

  function changeState(batchId: string, state: BatchState, extra: Parameters<typeof setState>[4] = {}): void {
    setState(db, batchId, state, now(), extra);
    emitProgress(batchId, 'send', {}, true);
  }

  const stopped = (run: Run) => run.stop !== null || run.signal.aborted;

  /** Waits until the service's Retry-After has passed; false when the run stopped meanwhile. */
  async function waitTurn(run: Run): Promise<boolean> {
    for (;;) {
      if (stopped(run)) return false;
      const wait = run.notBefore - now();
      if (wait <= 0) return true;
      emitProgress(run.batchId, 'send', {}, true);
      try {
        await deps.clock.sleep(wait, run.signal);
      } catch {
        return false; // a stop, or the console is closing
      }
    }
  }

  function waitAtLeast(run: Run, ms: number): void {
    run.notBefore = Math.max(run.notBefore, now() + ms);
  }

  /** Step 1 of a round: each row whose outcome is unknown, looked up by its external id. */
  async function lookUpUnknown(run: Run, client: Client): Promise<void> {
    for (const row of rowsInState(db, run.batchId, ['unknown'])) {
      if (stopped(run)) return;
      if (!(await waitTurn(run))) return;
      const journalId = row.journalId!;
      const result = await client.retrievePayout(row.externalId, { by: 'external_id' });
      if (isNotFound(result)) {
        recordNotFound(db, journalId, now(), `batch: no payout with external id ${row.externalId}: not sent, so it may be sent again with the same one`);
        touched(run.batchId, row.rowNumber);
        emitProgress(run.batchId, 'send');
        continue;
      }
      const tx = result.kind === 'success' ? transactionOf(result.data) : null;
      if (tx && result.kind === 'success') {
        recordObserved(db, journalId, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'batch: found by its external id' }, now());
        touched(run.batchId, row.rowNumber);
        run.answered += 1;
        emitProgress(run.batchId, 'send');
        continue;
      }
      if (result.kind === 'api-error' && result.httpStatus === 429) {
        waitAtLeast(run, (result.retryAfterSeconds ?? 1) * 1000);
        continue; // looked up again in the next round
      }
      if (result.kind === 'transport') {
        run.stop ??= 'interrupt';
        run.reason = `The service could not be reached to look rows up (${result.message}). Resume tries again.`;
      }
    }
  }

  /** The row's entry, written `pending` before its POST (a new entry, or the same one sent again). */
  function startRow(run: Run, row: BatchRow, journalId: string | null, profile: Profile): string {
    if (journalId) return recordResend(db, journalId, now()).id;
    return db.transaction(() => {
      const entry = recordRequest(db, {
        profile: { id: profile.id, name: profile.name, environment: profile.environment },
        kind: 'payout',
        request: row.request!,
        currency: DEFAULT_CURRENCY,
        at: now(),
      });
      linkRow(db, run.batchId, row.rowNumber, entry.id);
      return entry.id;
    })();
  }

  /** Step 2 of a round: one row sent, until it has an answer (or the run stops). */
  async function sendRow(run: Run, row: BatchRow, client: Client, profile: Profile): Promise<void> {
    let journalId = row.journalId;
    for (let refusals = 1; ; refusals += 1) {
      if (!(await waitTurn(run))) return;
      journalId = startRow(run, row, journalId, profile);
      touched(run.batchId, row.rowNumber); // shown as in flight if no answer comes before the next push
      const outcome = classifyInitiate(await client.initiatePayout(row.request!));
      recordInitiateOutcome(db, journalId, outcome, now());
      touched(run.batchId, row.rowNumber);
      switch (outcome.kind) {
        case 'retry-later':
          // Refused before anything was created (the row is `not_sent`): wait as asked, send again.
          waitAtLeast(run, outcome.retryAfterSeconds !== null ? outcome.retryAfterSeconds * 1000 : backoffDelayMs(refusals, DEFAULT_RETRY, Math.random));
          deps.logger?.info('batch: service asked to wait', { batchId: run.batchId, httpStatus: outcome.error.httpStatus, waitMs: run.notBefore - now() });
          continue;
        case 'may-exist':
          if (outcome.retryAfterSeconds !== null) waitAtLeast(run, outcome.retryAfterSeconds * 1000);
          if (outcome.cause === 'no-answer') interrupt(run, outcome.message);
          break;
        case 'not-sent':
          interrupt(run, outcome.message);
          break;
        case 'accepted':
        case 'refused':
          break;
        default: {
          const never: never = outcome;
          throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
        }
      }
      run.answered += 1;
      emitProgress(run.batchId, 'send');
      return;
    }
  }

  /** The network is failing: stop taking rows; Resume looks the unknown ones up first. */
  function interrupt(run: Run, message: string): void {
    if (run.stop !== null && run.stop !== 'interrupt') return;
    run.stop = 'interrupt';
    run.reason = `The connection to the service failed (${message}). Resume looks up the rows whose outcome is unknown, then sends the rest.`;
  }

  /** Whether the batch's profile may still send (it may have been edited or its key removed). */
  function usableProfile(profileId: string, environment: string): { profile: Profile } | { reason: string } {
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

  type End = { state: BatchState; extra: Parameters<typeof setState>[4] } | null;

  /** The state a run ends in; a Pause or Cancel the user wrote stands. */
  function endOf(run: Run): End {
    if (deps.signal?.aborted) return null; // the console is closing: the next start marks it interrupted
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

  /** Sends what is left of a batch; returns the state it ends in (set once the run is gone). */
  async function runBatch(run: Run): Promise<End> {
    const summary = getSummary(db, run.batchId);
    if (!summary) return null;
    const usable = usableProfile(summary.profileId, summary.environment);
    if ('reason' in usable) return { state: 'interrupted', extra: { reason: usable.reason } };
    const { profile } = usable;
    changeState(run.batchId, 'sending', { started: true });
    const client = context.clientFor(profile);
    const limit = pLimit(Math.max(1, summary.concurrency));
    for (let round = 0; round < MAX_ROUNDS && !stopped(run); round += 1) {
      await lookUpUnknown(run, client);
      const queue = rowsInState(db, run.batchId, ['not_sent']);
      await Promise.all(queue.map((row) => limit(() => (stopped(run) ? undefined : sendRow(run, row, client, profile)))));
      if (countRows(db, run.batchId).counts.unknown === 0) break;
    }
    return endOf(run);
  }

  function finish(run: Run, end: End): void {
    // Gone from `runs` before the state is announced: a Resume right after must be accepted.
    runs.delete(run.batchId);
    if (end) changeState(run.batchId, end.state, end.extra);
    hooks.afterRun(run.batchId);
  }

  return {
    run(batchId) {
      if (runs.has(batchId)) return;
      const abort = new AbortController();
      const signal = deps.signal ? AbortSignal.any([deps.signal, abort.signal]) : abort.signal;
      const run: Run = { batchId, stop: null, reason: null, notBefore: 0, startedAt: now(), answered: 0, abort, signal, done: Promise.resolve() };
      // In the map before the run announces itself: a Pause in answer to its first event must find it.
      runs.set(batchId, run);
      run.done = runBatch(run).then(
        (end) => finish(run, end),
        (error: unknown) => {
          runs.delete(batchId);
          deps.logger?.error('batch run failed', { batchId, error: error instanceof Error ? error.name : 'unknown' });
          try {
            const state = getSummary(db, batchId)?.state;
            if (state === 'sending') changeState(batchId, 'interrupted', { reason: 'The batch stopped on an unexpected error (see the log). Resume looks up the rows whose outcome is unknown first.' });
          } catch {
            // the journal is closed: the next start marks the batch interrupted
          }
        },
      );
    },
    stop(batchId, why) {
      const run = runs.get(batchId);
      if (!run) return false;
      if (run.stop !== 'cancel') run.stop = why;
      run.abort.abort();
      emitProgress(batchId, 'send', {}, true);
      return true;
    },
    isRunning: (batchId) => runs.has(batchId),
    async settled(batchId) {
      await runs.get(batchId)?.done;
    },
    async idle() {
      while (runs.size > 0) await Promise.all([...runs.values()].map((run) => run.done));
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
    },
    emitProgress: (batchId, mode, extra) => emitProgress(batchId, mode, extra, true),
  };
}
