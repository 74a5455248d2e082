/**
 * One run of a batch: what every step shares (why it stops, the service's wait) and the waits
 * themselves. No journal access here: the steps that write take the journal themselves.
 */
import type { Clock } from '../deps';

export type Stop = 'pause' | 'cancel' | 'interrupt';

export interface Run {
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
  /** A journal write of an answer failed (group commit): the run ends on it. */
  writeError: unknown;
  done: Promise<void>;
}

export function newRun(batchId: string, startedAt: number, closing: AbortSignal | undefined): Run {
  const abort = new AbortController();
  const signal = closing ? AbortSignal.any([closing, abort.signal]) : abort.signal;
  return { batchId, stop: null, reason: null, notBefore: 0, startedAt, answered: 0, abort, signal, writeError: undefined, done: Promise.resolve() };
}

export const stopped = (run: Run): boolean => run.stop !== null || run.signal.aborted;

/** The service asked to wait `ms` (Retry-After or backoff): no POST of this run before then. */
export function waitAtLeast(run: Run, clock: Pick<Clock, 'now'>, ms: number): void {
  run.notBefore = Math.max(run.notBefore, clock.now() + ms);
}

/**
 * Waits until the service's Retry-After has passed; false when the run stopped meanwhile.
 * `announce` shows the wait (a progress event) before sleeping.
 */
export async function waitTurn(run: Run, clock: Clock, announce: () => void): Promise<boolean> {
  for (;;) {
    if (stopped(run)) return false;
    const wait = run.notBefore - clock.now();
    if (wait <= 0) return true;
    announce();
    try {
      await clock.sleep(wait, run.signal);
    } catch {
      return false; // a stop, or the console is closing
    }
  }
}

/** The network is failing: stop taking rows; Resume looks the unknown ones up first. */
export function interrupt(run: Run, message: string): void {
  if (run.stop !== null && run.stop !== 'interrupt') return;
  run.stop = 'interrupt';
  run.reason = `The connection to the service failed (${message}). Resume looks up the rows whose outcome is unknown, then sends the rest.`;
}
