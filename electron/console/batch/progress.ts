/**
 * A batch's progress push (`batch:progress`): counted in SQLite (the journal is the truth), at
 * most one event per interval per batch plus a trailing one so the last count is shown. The
 * interval grows with what a count costs (at 10,000 rows a count is tens of ms, and four a second
 * were a third of the batch's CPU), so counting stays under about a tenth of the time.
 */
import { batchFigures, type BatchProgress } from '../../../shared/api';
import type { HandlerDeps } from '../handlers/context';
import type { JournalDb } from '../journal/entries';
import type { Run } from './run';
import { progressCounts } from './store';

/** Each progress event counts the rows in SQLite: four a second keep a bar moving at a few % of the CPU. */
export const PROGRESS_INTERVAL_MS = 250;
/** The interval is at least this many times the last count's duration... */
const COUNT_COST_FACTOR = 10;
/** ...but never longer than this (one count slowed down by a loaded machine must not silence the bar). */
const MAX_INTERVAL_MS = 2000;

export interface ProgressEmitter {
  /** Throttled unless `force`: at most one event per PROGRESS_INTERVAL_MS, the last one never lost. */
  emit(batchId: string, mode: BatchProgress['mode'], extra?: Partial<BatchProgress>, force?: boolean): void;
  /** Drops the trailing events still waiting (shutdown, tests). */
  cancelTrailing(): void;
}

export function progressOf(db: JournalDb, batchId: string, mode: BatchProgress['mode'], run: Run | undefined, at: number): BatchProgress | null {
  const summary = progressCounts(db, batchId);
  if (!summary) return null;
  const elapsed = run ? (at - run.startedAt) / 1000 : 0;
  const rate = run && elapsed > 0 ? run.answered / elapsed : 0;
  const figures = batchFigures(summary.counts);
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

export function progressEmitter(deps: Pick<HandlerDeps, 'journal' | 'clock' | 'emit'>, runOf: (batchId: string) => Run | undefined): ProgressEmitter {
  const lastEmit = new Map<string, number>();
  /** Per batch: the wait between two events, from the last count's cost. */
  const interval = new Map<string, number>();
  const trailing = new Map<string, ReturnType<typeof setTimeout>>();

  function emit(batchId: string, mode: BatchProgress['mode'], extra: Partial<BatchProgress> = {}, force = false): void {
    const at = Date.now();
    const last = lastEmit.get(batchId) ?? 0;
    const wait = interval.get(batchId) ?? PROGRESS_INTERVAL_MS;
    if (!force && at - last < wait) {
      if (!trailing.has(batchId)) {
        trailing.set(
          batchId,
          setTimeout(() => {
            trailing.delete(batchId);
            emit(batchId, mode, extra, true);
          }, wait - (at - last)),
        );
      }
      return;
    }
    lastEmit.set(batchId, at);
    const progress = progressOf(deps.journal, batchId, mode, runOf(batchId), deps.clock.now());
    interval.set(batchId, Math.min(MAX_INTERVAL_MS, Math.max(PROGRESS_INTERVAL_MS, COUNT_COST_FACTOR * (Date.now() - at))));
    if (progress) deps.emit('batch:progress', { ...progress, ...extra });
  }

  return {
    emit,
    cancelTrailing() {
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
    },
  };
}
