/**
 * A batch's progress push (`batch:progress`): counted by the store (the journal is the truth), at
 * most one event per interval per batch plus a trailing one so the last count is shown. The
 * interval grows with what a count costs (at 10,000 rows a count is tens of ms, and four a second
 * were a third of the batch's CPU), so counting stays under about a twentieth of the time (a
 * tenth was still the largest cost that grows with the batch: 11.7 % of a 10,000-row run's CPU,
 * 2026-11-26 profile; each event still carries every row changed since the one before).
 */
import { BATCH_DELTA_MAX, batchFigures, type BatchProgress, type ServiceWait } from '../../../shared/api';
import type { HandlerDeps } from '../handlers/context';
import type { BatchPort } from '../storage/port';
import { answeredInWindow, RATE_WINDOW_MS, type Run } from './run';

/** Each progress event counts the rows in SQLite: four a second keep a bar moving at a few % of the CPU. */
export const PROGRESS_INTERVAL_MS = 250;
/** The interval is at least this many times the last count's duration... */
const COUNT_COST_FACTOR = 20;
/** ...but never longer than this (one count slowed down by a loaded machine must not silence the bar). */
const MAX_INTERVAL_MS = 2000;

export interface ProgressEmitter {
  /**
   * Throttled unless `force`: at most one event per PROGRESS_INTERVAL_MS, the last one never lost.
   * Resolves once this event has gone out (at once when it was left to a later one).
   */
  emit(batchId: string, mode: BatchProgress['mode'], extra?: Partial<BatchProgress>, force?: boolean): Promise<void>;
  /** Drops the trailing events still waiting (shutdown, tests). */
  cancelTrailing(): void;
  /** Resolves once every event begun so far has been counted and sent (or has failed). */
  settled(): Promise<void>;
}

/** The service's wait a run is sitting out at `at`, with what the service said; null when none (or the run is stopping). */
export function serviceWait(run: Run | undefined, at: number): ServiceWait | null {
  if (!run || run.notBefore <= at || run.stop !== null) return null;
  const cause = run.waitCause ?? { httpStatus: null, code: 'RETRY_LATER', message: '' };
  return { until: new Date(run.notBefore).toISOString(), ...cause };
}

export async function progressOf(batches: BatchPort, batchId: string, mode: BatchProgress['mode'], run: Run | undefined, at: number): Promise<BatchProgress | null> {
  const summary = await batches.progressCounts(batchId);
  if (!summary) return null;
  // The rate over the last minute (since the start for a younger run): the first answers arrive
  // in a burst, and a rate over their few milliseconds said "11,556 / min".
  const windowMs = run ? Math.min(RATE_WINDOW_MS, Math.max(0, at - run.startedAt)) : 0;
  const inWindow = run ? answeredInWindow(run, at) : 0;
  const rate = windowMs >= 1000 ? inWindow / (windowMs / 1000) : 0;
  const figures = batchFigures(summary.counts);
  const { remaining } = figures;
  const waitMs = run ? Math.max(0, run.notBefore - at) : 0;
  const wait = serviceWait(run, at);
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
    answeredInWindow: inWindow,
    rateWindowSeconds: Math.round(windowMs / 1000),
    final: figures.final,
    completed: figures.completed,
    processing: figures.processing,
    settled: figures.settled,
    inFlight: figures.inFlight,
    elsewhere: figures.elsewhere,
    moved: figures.moved,
    waitingUntil: wait?.until ?? null,
    waitingFor: wait,
    // A Pause or Cancel is written at once; until the run has ended, it is still settling.
    stopping: run ? (summary.state === 'paused' ? 'pause' : summary.state === 'cancelled' ? 'cancel' : null) : null,
  };
}

export function progressEmitter(deps: Pick<HandlerDeps, 'storage' | 'clock' | 'emit' | 'logger'>, runOf: (batchId: string) => Run | undefined): ProgressEmitter {
  const lastEmit = new Map<string, number>();
  /** Per batch: the wait between two events, from the last count's cost. */
  const interval = new Map<string, number>();
  const trailing = new Map<string, ReturnType<typeof setTimeout>>();
  /** Per batch: the run whose written rows the next push carries. */
  const lastRun = new Map<string, Run>();
  /**
   * Per batch: the events being counted, one after the other, so they leave in the order they
   * were asked for (a workspace's reads can end out of order; the last event must show the end).
   */
  const sending = new Map<string, Promise<void>>();

  function emit(batchId: string, mode: BatchProgress['mode'], extra: Partial<BatchProgress> = {}, force = false): Promise<void> {
    const at = Date.now();
    const last = lastEmit.get(batchId) ?? 0;
    const wait = interval.get(batchId) ?? PROGRESS_INTERVAL_MS;
    if (!force && at - last < wait) {
      if (!trailing.has(batchId)) {
        trailing.set(
          batchId,
          setTimeout(() => {
            trailing.delete(batchId);
            void emit(batchId, mode, extra, true);
          }, wait - (at - last)),
        );
      }
      return Promise.resolve();
    }
    lastEmit.set(batchId, at);
    const run = runOf(batchId);
    // The run is gone from the runner before its last push (its end state): that push still carries its rows.
    if (run) lastRun.set(batchId, run);
    const written = lastRun.get(batchId);
    if (!run) lastRun.delete(batchId);
    // Taken now: the rows written after this moment go with the next event.
    const changed = takeChanged(written);
    const now = deps.clock.now();
    const next = (sending.get(batchId) ?? Promise.resolve()).then(async () => {
      const started = Date.now();
      try {
        const progress = await progressOf(deps.storage.batches, batchId, mode, run, now);
        const rows = await changedRows(batchId, changed);
        interval.set(batchId, Math.min(MAX_INTERVAL_MS, Math.max(PROGRESS_INTERVAL_MS, COUNT_COST_FACTOR * (Date.now() - started))));
        if (progress) deps.emit('batch:progress', { ...progress, ...rows, ...extra });
      } catch (error) {
        // A progress event is a view: the store away (closed, a workspace unreachable) loses this event, not the batch.
        deps.logger?.warn('batch progress not counted', { batchId, error: error instanceof Error ? error.message : String(error) });
      }
    });
    sending.set(batchId, next);
    void next.then(() => {
      if (sending.get(batchId) === next) sending.delete(batchId);
    });
    return next;
  }

  /** The row numbers the run wrote since its previous push; null when none. */
  function takeChanged(run: Run | undefined): number[] | null {
    if (!run || run.changed.size === 0) return null;
    const rowNumbers = [...run.changed];
    run.changed.clear();
    return rowNumbers;
  }

  /** Those rows, whole (a delta); over BATCH_DELTA_MAX, null: fetch what is shown. */
  async function changedRows(batchId: string, rowNumbers: number[] | null): Promise<Pick<BatchProgress, 'changedRows'>> {
    if (rowNumbers === null) return {};
    return { changedRows: rowNumbers.length > BATCH_DELTA_MAX ? null : await deps.storage.batches.rowsByNumber(batchId, rowNumbers) };
  }

  return {
    emit,
    cancelTrailing() {
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
    },
    async settled() {
      while (sending.size > 0) await Promise.all([...sending.values()]);
    },
  };
}
