/**
 * Runs the provider's due notifications: one timer set for the earliest due one, re-armed after
 * each run, and an immediate run whenever the engine clock is advanced.
 */
import type { EngineContext } from '../context';
import { markDueNotified, markNotified, nextNotificationAt } from './provider';
import { applyProviderView } from '../ledger/settlement';
import { dueNotifications } from '../storage/store';
import { processLog } from '../log';

export interface Scheduler {
  /** `dueAt`: the due time of the new work, when known (see EngineContext.kickScheduler). */
  kick(dueAt?: number): void;
  runDue(): number;
  stop(): void;
}

/** Timers longer than this are re-armed rather than trusted (setTimeout caps at ~24.8 days). */
const MAX_DELAY_MS = 60_000;
/** Transactions settled per write transaction. */
const BATCH = 100;
/**
 * The timer never fires sooner than this: settlements due within a few milliseconds of each other
 * share one write transaction instead of paying one commit each. (50 ms was tried for bigger
 * settlement writes: test/console/sweeper-single-sends.test.ts then never saw its batch row settle
 * — cause not pinned — so it stays 10 ms.)
 */
const MIN_DELAY_MS = 10;

/** Listens on `ctx.kickScheduler` for new due work from the moment it is made. */
export function createScheduler(ctx: EngineContext): Scheduler {
  let timer: NodeJS.Timeout | null = null;
  let timerDueAt = Number.POSITIVE_INFINITY;
  let stopped = false;

  /** Settles due work in batches of `BATCH`; stops after `maxBatches` (the timer path yields to requests). */
  function runDue(maxBatches = Number.POSITIVE_INFINITY): { settled: number; more: boolean } {
    let settled = 0;
    for (let batches = 0; ; batches += 1) {
      if (batches >= maxBatches) return { settled, more: true };
      const now = ctx.clock.nowMicros();
      const batch = ctx.write(() => {
        const due = dueNotifications(ctx.db, now, BATCH);
        // All of them read: one statement marks them (the same rows, in the same write); else one by one.
        const marked = due.length < BATCH ? markDueNotified(ctx.db, now) : -1;
        if (marked !== -1 && marked !== due.length) throw new Error(`settlement read ${due.length} due notifications but marked ${marked}`);
        for (const { providerRef, view, row } of due) {
          if (marked === -1) markNotified(ctx.db, providerRef);
          if (row && applyProviderView(ctx, row, view)) settled += 1;
        }
        return due.length;
      });
      if (batch < BATCH) return { settled, more: false };
    }
  }

  function arm(): void {
    if (stopped) return;
    const next = nextNotificationAt(ctx.db);
    if (next === null) return;
    if (timer && timerDueAt <= next) return;
    if (timer) clearTimeout(timer);
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, Math.ceil((next - ctx.clock.nowMicros()) / 1000)));
    timerDueAt = next;
    timer = setTimeout(function onSchedulerTimer() {
      timer = null;
      if (stopped) return;
      timerDueAt = Number.POSITIVE_INFINITY;
      let more = false;
      try {
        more = runDue(1).more;
      } catch (error) {
        processLog.error('engine: settling due transactions failed', { error });
      }
      if (more) {
        // A backlog: settle the next batch after pending I/O, so API requests keep flowing.
        timerDueAt = Number.NEGATIVE_INFINITY;
        timer = setTimeout(onSchedulerTimer, 0);
        timer.unref();
        return;
      }
      arm();
    }, delayMs);
    timer.unref();
  }

  function kick(dueAt?: number): void {
    // An armed timer that fires no later than the new work covers it: no need to look anything up.
    if (dueAt !== undefined && timer && timerDueAt <= dueAt) return;
    arm();
  }
  const unsubscribe = ctx.onSchedulerKick(kick);

  return {
    kick,
    runDue() {
      // The clock may have moved: a timer armed on the old time would fire late.
      if (timer) clearTimeout(timer);
      timer = null;
      timerDueAt = Number.POSITIVE_INFINITY;
      const { settled } = runDue();
      arm();
      return settled;
    },
    stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
