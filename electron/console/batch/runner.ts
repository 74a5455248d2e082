/**
 * Sending a batch: bounded concurrency, each row written to the journal as `pending` (linked to
 * its batch) before its POST, 429/503 `Retry-After` honoured by every worker, Pause/Cancel taking
 * effect between rows, and on every run, first, each row whose outcome is unknown looked up by its
 * external id: found, it is recorded; not found, it is sent again with the same external id.
 * A row is never sent while its outcome is unknown.
 */
import type { BatchProgress, BatchRow, BatchState } from '../../../shared/api';
import { isFinalStatus } from '../../../shared/contract';
import {
  recordApiError,
  recordCreated,
  recordObserved,
  recordRequest,
  recordResend,
  recordTransportFailure,
  setResolution,
} from '../journal/entries';
import type { Context } from '../handlers/context';
import { DEFAULT_CURRENCY } from '../handlers/context';
import { isNotFound, transactionOf } from '../handlers/outcomes';
import { countRows, getSummary, linkRow, rowsInState, setState } from './store';

type Stop = 'pause' | 'cancel' | 'interrupt';

interface Run {
  stop: Stop | null;
  reason: string | null;
  /** No POST before this time (a 429 or 503 asked to wait). */
  notBefore: number;
  startedAt: number;
  answered: number;
  done: Promise<void>;
}

/** Server answers after which the payout may or may not exist (as for a single payout). */
function mayHaveBeenCreated(httpStatus: number | null): boolean {
  return httpStatus === null || (httpStatus >= 500 && httpStatus !== 503);
}

/** Each progress event counts the rows in SQLite: four a second keep a bar moving at a few % of the CPU. */
const PROGRESS_INTERVAL_MS = 250;
/** Rounds of look-up-then-send per run, for rows whose outcome stays unknown after a 5xx. */
const MAX_ROUNDS = 3;

export interface BatchRunner {
  /** Starts sending (or resuming) a batch in the background; no-op when it already runs. */
  run(batchId: string): void;
  /** Asks a running batch to stop after the rows in flight; false when it is not running. */
  stop(batchId: string, why: 'pause' | 'cancel'): boolean;
  isRunning(batchId: string): boolean;
  /** Resolves when the batch's run has ended (tests, shutdown). */
  settled(batchId: string): Promise<void>;
  idle(): Promise<void>;
  emitProgress(batchId: string, mode: BatchProgress['mode'], extra?: Partial<BatchProgress>): void;
}

export function createBatchRunner(context: Context): BatchRunner {
  const { deps } = context;
  const db = deps.journal;
  const now = () => deps.clock.now();
  const runs = new Map<string, Run>();
  const follows = new Map<string, Promise<void>>();
  const lastEmit = new Map<string, number>();
  const trailing = new Map<string, ReturnType<typeof setTimeout>>();

  function progressOf(batchId: string, mode: BatchProgress['mode']): BatchProgress | null {
    const summary = getSummary(db, batchId);
    if (!summary) return null;
    const { counts } = summary;
    const run = runs.get(batchId);
    const elapsed = run ? (now() - run.startedAt) / 1000 : 0;
    const rate = run && elapsed > 0 ? run.answered / elapsed : 0;
    const remaining = counts.notSent;
    return {
      batchId,
      mode,
      state: summary.state,
      sent: counts.valid - counts.notSent,
      accepted: counts.accepted,
      failed: counts.rejected + counts.failed + counts.cancelled,
      unknown: counts.unknown,
      remaining,
      ratePerSecond: Math.round(rate * 10) / 10,
      etaSeconds: rate > 0 ? Math.ceil(remaining / rate) : remaining === 0 ? 0 : null,
      final: counts.completed + counts.failed + counts.cancelled,
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
    if (progress) deps.emit('batch:progress', { ...progress, ...extra });
  }

  function changeState(batchId: string, state: BatchState, extra: Parameters<typeof setState>[4] = {}): void {
    setState(db, batchId, state, now(), extra);
    emitProgress(batchId, 'send', {}, true);
  }

  /** Looks up each row whose outcome is unknown; returns the rows found not to exist (to send again). */
  async function resolveUnknown(batchId: string, run: Run, client: ReturnType<Context['clientFor']>): Promise<BatchRow[]> {
    const resend: BatchRow[] = [];
    for (const row of rowsInState(db, batchId, ['unknown'])) {
      if (run.stop || deps.signal?.aborted) break;
      const journalId = row.journalId!;
      const result = await client.retrievePayout(row.externalId, { by: 'external_id' });
      if (isNotFound(result)) {
        setResolution(db, journalId, 'not_found', now(), `batch: no payout with external id ${row.externalId}, so it is sent again with the same one`);
        resend.push(row);
        continue;
      }
      const tx = result.kind === 'success' ? transactionOf(result.data) : null;
      if (tx && result.kind === 'success') {
        recordObserved(db, journalId, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'batch: found by its external id' }, now());
        run.answered += 1;
        emitProgress(batchId, 'send');
        continue;
      }
      if (result.kind === 'transport') {
        run.stop = 'interrupt';
        run.reason = `The service could not be reached to look rows up (${result.message}). Resume tries again.`;
      }
    }
    return resend;
  }

  /** Sends one row; returns when it has an answer (or the run stops). */
  async function sendRow(batchId: string, row: BatchRow, run: Run, client: ReturnType<Context['clientFor']>, profile: ReturnType<Context['resolveProfile']>): Promise<void> {
    const request = row.request!;
    let journalId = row.journalId;
    for (;;) {
      if (run.stop || deps.signal?.aborted) return;
      const wait = run.notBefore - now();
      if (wait > 0) {
        try {
          await deps.clock.sleep(wait, deps.signal);
        } catch {
          return; // the console is closing
        }
        continue; // another worker may have pushed notBefore further, or a stop came
      }
      if (journalId) {
        recordResend(db, journalId, now());
      } else {
        const created = db.transaction(() => {
          const entry = recordRequest(db, {
            profile: { id: profile.id, name: profile.name, environment: profile.environment },
            kind: 'payout',
            request,
            currency: DEFAULT_CURRENCY,
            at: now(),
          });
          linkRow(db, batchId, row.rowNumber, entry.id);
          return entry;
        })();
        journalId = created.id;
      }
      const result = await client.initiatePayout(request);
      switch (result.kind) {
        case 'success': {
          const tx = transactionOf(result.data);
          if (!tx) {
            recordTransportFailure(db, journalId, { outcome: 'unknown', message: 'the service answered success without a valid transaction' }, { initiate: true, at: now() });
            break;
          }
          recordCreated(db, journalId, tx, { httpStatus: result.httpStatus, message: result.message ?? 'payout created' }, now());
          break;
        }
        case 'api-error': {
          const error = { code: result.code, message: result.message, httpStatus: result.httpStatus };
          if (result.httpStatus === 429 || result.httpStatus === 503) {
            // Refused before anything was created: wait as asked, then send the same request again.
            recordApiError(db, journalId, error, { rejects: false, at: now() });
            const waitMs = (result.retryAfterSeconds ?? 1) * 1000;
            run.notBefore = Math.max(run.notBefore, now() + waitMs);
            deps.logger?.info('batch: service asked to wait', { batchId, httpStatus: result.httpStatus, waitMs });
            continue;
          }
          if (mayHaveBeenCreated(result.httpStatus)) {
            recordApiError(db, journalId, error, { rejects: false, at: now() });
            recordTransportFailure(db, journalId, { outcome: 'unknown', message: `server error ${result.httpStatus}: it may have been created` }, { initiate: true, at: now() });
            break;
          }
          recordApiError(db, journalId, error, { rejects: true, at: now() });
          break;
        }
        case 'bad-response':
          recordTransportFailure(db, journalId, { outcome: 'unknown', message: `unreadable answer: ${result.message}` }, { initiate: true, at: now() });
          break;
        case 'transport':
          recordTransportFailure(db, journalId, { outcome: result.outcome, message: result.message }, { initiate: true, at: now() });
          // The network is failing: stop taking rows; Resume looks the unknown ones up first.
          if (!run.stop || run.stop === 'interrupt') {
            run.stop = 'interrupt';
            run.reason = `The connection to the service failed (${result.message}). Resume looks up the rows whose outcome is unknown, then sends the rest.`;
          }
          break;
        default: {
          const never: never = result;
          throw new Error(`unhandled client result ${JSON.stringify(never)}`);
        }
      }
      run.answered += 1;
      emitProgress(batchId, 'send');
      return;
    }
  }

  /**
   * After a run: one loop per batch (not a watch per row) retrieves the accepted rows whose status
   * is not final yet, with the watcher's backoff and time limit, until they all are. The local
   * sandbox's status events usually get there first; this catches the rest and other services.
   */
  function follow(batchId: string, profile: ReturnType<Context['resolveProfile']>): void {
    if (follows.has(batchId)) return;
    const options = context.watch;
    const loop = (async () => {
      const started = now();
      let delay = options.initialDelayMs;
      for (;;) {
        try {
          await deps.clock.sleep(delay, deps.signal);
        } catch {
          return; // the console is closing
        }
        if (runs.has(batchId)) return; // sending again: that run follows when it ends
        const open = rowsInState(db, batchId, ['accepted']).filter((row) => row.transactionId !== null && (row.status === null || !isFinalStatus(row.status)));
        if (open.length === 0) return emitProgress(batchId, 'send', {}, true);
        const client = context.clientFor(profile);
        for (const row of open) {
          if (deps.signal?.aborted) return;
          const result = await client.retrievePayout(row.transactionId!);
          const tx = result.kind === 'success' ? transactionOf(result.data) : null;
          if (!tx || result.kind !== 'success') continue; // not final: the next round asks again
          const observed = recordObserved(db, row.journalId!, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'status seen while following the batch' }, now());
          if (observed.changed) deps.emit('transaction:changed', { journalId: observed.entry.id, status: observed.entry.status, state: observed.entry.state });
        }
        emitProgress(batchId, 'send');
        if (now() - started >= options.limitMs) return;
        delay = Math.min(delay * 2, options.maxDelayMs);
      }
    })()
      .catch((error: unknown) => deps.logger?.warn('batch follow stopped', { batchId, error: error instanceof Error ? error.name : 'unknown' }))
      .finally(() => follows.delete(batchId));
    follows.set(batchId, loop);
  }

  type End = { state: BatchState; extra: Parameters<typeof setState>[4] } | null;

  /** Sends what is left of a batch; returns the state it ends in (set once the run is gone). */
  async function runBatch(batchId: string, run: Run): Promise<End> {
    const summary = getSummary(db, batchId);
    if (!summary) return null;
    let profile: ReturnType<Context['resolveProfile']>;
    try {
      profile = context.resolveProfile(summary.profileId);
      if (profile.environment !== summary.environment) {
        throw new Error(`the profile "${profile.name}" now points at ${profile.environment}, but this batch was confirmed for ${summary.environment}`);
      }
      context.requireAllowed(profile);
      context.requireSecret(profile, 'payout');
    } catch (error) {
      return { state: 'interrupted', extra: { reason: `Cannot send: ${error instanceof Error ? error.message : 'the profile is not usable'}.` } };
    }
    changeState(batchId, 'sending', { started: true });
    const client = context.clientFor(profile);
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const resend = await resolveUnknown(batchId, run, client);
      const queue = [...resend, ...rowsInState(db, batchId, ['not_sent'])].sort((a, b) => a.rowNumber - b.rowNumber);
      let next = 0;
      const worker = async () => {
        while (!run.stop && !deps.signal?.aborted && next < queue.length) {
          const row = queue[next]!;
          next += 1;
          await sendRow(batchId, row, run, client, profile);
        }
      };
      const concurrency = Math.max(1, getSummary(db, batchId)?.concurrency ?? 1);
      await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(queue.length, 1)) }, worker));
      if (run.stop || deps.signal?.aborted) break;
      if (countRows(db, batchId).counts.unknown === 0) break;
    }
    if (deps.signal?.aborted) return null; // the console is closing: the next start marks it interrupted
    follow(batchId, profile);
    const { counts } = countRows(db, batchId);
    switch (run.stop) {
      case 'pause':
        return { state: 'paused', extra: { reason: null } };
      case 'cancel':
        return { state: 'cancelled', extra: { reason: `Cancelled: ${counts.notSent} row(s) were not sent.`, finished: true } };
      case 'interrupt':
        return { state: 'interrupted', extra: { reason: run.reason } };
      case null:
        if (counts.unknown > 0) {
          return { state: 'interrupted', extra: { reason: `${counts.unknown} row(s) have an unknown outcome after ${MAX_ROUNDS} look-ups: Resume looks them up again.` } };
        }
        return { state: 'done', extra: { reason: null, finished: true } };
      default: {
        const never: never = run.stop;
        throw new Error(`unknown stop ${String(never)}`);
      }
    }
  }

  return {
    run(batchId) {
      if (runs.has(batchId)) return;
      const run: Run = { stop: null, reason: null, notBefore: 0, startedAt: now(), answered: 0, done: Promise.resolve() };
      run.done = runBatch(batchId, run).then(
        (end) => {
          // Gone from `runs` before the state is announced: a Resume right after must be accepted.
          runs.delete(batchId);
          if (end) changeState(batchId, end.state, end.extra);
        },
        (error: unknown) => {
          runs.delete(batchId);
          deps.logger?.error('batch run failed', { batchId, error: error instanceof Error ? error.name : 'unknown' });
          try {
            changeState(batchId, 'interrupted', { reason: 'The batch stopped on an unexpected error (see the log). Resume looks up the rows whose outcome is unknown first.' });
          } catch {
            // the journal is closed: the next start marks the batch interrupted
          }
        },
      );
      runs.set(batchId, run);
    },
    stop(batchId, why) {
      const run = runs.get(batchId);
      if (!run) return false;
      if (run.stop === null || why === 'cancel') run.stop = why;
      return true;
    },
    isRunning: (batchId) => runs.has(batchId),
    async settled(batchId) {
      await runs.get(batchId)?.done;
    },
    async idle() {
      while (runs.size > 0 || follows.size > 0) await Promise.all([...[...runs.values()].map((run) => run.done), ...follows.values()]);
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
    },
    emitProgress: (batchId, mode, extra) => emitProgress(batchId, mode, extra, true),
  };
}
