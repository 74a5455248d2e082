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
  /** What the service said when it asked for the wait that ends at `notBefore` (shown as said: maintenance, rate limit). */
  waitCause: WaitCause | null;
  startedAt: number;
  answered: number;
  /** When each of the last RATE_WINDOW_MS's answers came (the rate shown is over that window, not the first burst). */
  answeredAt: number[];
  /** Cut short by a stop: waits end at once, POSTs in flight finish. */
  abort: AbortController;
  signal: AbortSignal;
  /** A journal write of an answer failed (group commit): the run ends on it. */
  writeError: unknown;
  /** Rows written since the batch's previous progress push: the next push carries them (`changedRows`, a delta). */
  changed: Set<number>;
  done: Promise<void>;
}

/** The service's answer that asked to wait. */
export interface WaitCause {
  httpStatus: number | null;
  code: string;
  message: string;
}

/** The rate is measured over the last minute (or since the start for a younger run). */
export const RATE_WINDOW_MS = 60_000;

export function newRun(batchId: string, startedAt: number, closing: AbortSignal | undefined): Run {
  const abort = new AbortController();
  const signal = closing ? AbortSignal.any([closing, abort.signal]) : abort.signal;
  return { batchId, stop: null, reason: null, notBefore: 0, waitCause: null, startedAt, answered: 0, answeredAt: [], abort, signal, writeError: undefined, changed: new Set(), done: Promise.resolve() };
}

export const stopped = (run: Run): boolean => run.stop !== null || run.signal.aborted;

/** The service asked to wait `ms` (Retry-After or backoff): no POST of this run before then. */
export function waitAtLeast(run: Run, clock: Pick<Clock, 'now'>, ms: number, cause: WaitCause | null = null): void {
  const until = clock.now() + ms;
  if (until < run.notBefore) return;
  run.notBefore = until;
  run.waitCause = cause;
}

/** A row was answered at `at`: counted for the run, and for the rate over the last minute. */
export function noteAnswer(run: Run, at: number): void {
  run.answered += 1;
  run.answeredAt.push(at);
  // Pruned here too, so a long run does not keep every answer's time.
  if (run.answeredAt.length > 4096) answeredInWindow(run, at);
}

/** Answers in the last RATE_WINDOW_MS before `at` (older times are dropped). */
export function answeredInWindow(run: Run, at: number): number {
  const from = at - RATE_WINDOW_MS;
  let first = 0;
  while (first < run.answeredAt.length && run.answeredAt[first]! <= from) first += 1;
  if (first > 0) run.answeredAt.splice(0, first);
  return run.answeredAt.length;
}

/**
 * How long a worker waits for a wait's progress push before it sleeps anyway: real time (a bound on
 * a view, not a moment of the batch), long enough for a count on a loaded desktop.
 */
export const WAIT_PUSH_BOUND_MS = 2_000;

/**
 * Waits until the service's Retry-After has passed; false when the run stopped meanwhile.
 * `announce` shows the wait (a progress event, counted by the store) before sleeping, so the
 * screen says why the batch waits; but a push is a view, queued behind the batch's earlier pushes
 * and their counts on the store (a workspace's pool, a slow or unreachable server): the worker
 * waits for it at most WAIT_PUSH_BOUND_MS, then sleeps while it goes on
 * (docs/decisions/wait-push-never-holds-a-worker.md).
 */
export async function waitTurn(run: Run, clock: Clock, announce: () => Promise<void>): Promise<boolean> {
  for (;;) {
    if (stopped(run)) return false;
    const wait = run.notBefore - clock.now();
    if (wait <= 0) return true;
    await shownWithin(announce, WAIT_PUSH_BOUND_MS);
    try {
      await clock.sleep(wait, run.signal);
    } catch {
      return false; // a stop, or the console is closing
    }
  }
}

/** Starts a push and waits for it at most `ms`; never throws (the emitter logs what it could not count, ./progress.ts). */
async function shownWithin(announce: () => Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([Promise.resolve().then(announce).catch(() => undefined), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** The network is failing: stop taking rows; Resume looks the unknown ones up first. */
export function interrupt(run: Run, message: string): void {
  if (run.stop !== null && run.stop !== 'interrupt') return;
  run.stop = 'interrupt';
  run.reason = `The connection to the service failed (${message}). Resume looks up the rows whose outcome is unknown, then sends the rest.`;
}
