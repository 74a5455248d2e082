/**
 * Runs the provider's due notifications: one timer set for the earliest due one, re-armed after
 * each run, and an immediate run whenever the engine clock is advanced.
 */
import type { EngineContext } from './context';
import { dueNotifications, markNotified, nextNotificationAt, viewOf } from './provider';
import { applyProviderView } from './settlement';
import { transactionByProviderRef } from './store';

export interface Scheduler {
  kick(): void;
  runDue(): number;
  stop(): void;
}

/** Timers longer than this are re-armed rather than trusted (setTimeout caps at ~24.8 days). */
const MAX_DELAY_MS = 60_000;

export function createScheduler(getContext: () => EngineContext): Scheduler {
  let timer: NodeJS.Timeout | null = null;
  let timerDueAt = Number.POSITIVE_INFINITY;
  let stopped = false;

  function runDue(): number {
    const ctx = getContext();
    let settled = 0;
    for (;;) {
      const now = ctx.clock.nowMicros();
      const batch = ctx.write(() => {
        const due = dueNotifications(ctx.db, now);
        for (const request of due) {
          markNotified(ctx.db, request.ref);
          const row = transactionByProviderRef(ctx.db, request.ref);
          if (row && applyProviderView(ctx, row, viewOf(request))) settled += 1;
        }
        return due.length;
      });
      if (batch === 0) return settled;
    }
  }

  function arm(): void {
    if (stopped) return;
    const ctx = getContext();
    const next = nextNotificationAt(ctx.db);
    if (next === null) return;
    if (timer && timerDueAt <= next) return;
    if (timer) clearTimeout(timer);
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil((next - ctx.clock.nowMicros()) / 1000)));
    timerDueAt = next;
    timer = setTimeout(function onSchedulerTimer() {
      timer = null;
      timerDueAt = Number.POSITIVE_INFINITY;
      try {
        runDue();
      } catch (error) {
        console.error('paydesk engine: settling due transactions failed', error);
      }
      arm();
    }, delayMs);
    timer.unref();
  }

  return {
    kick: arm,
    runDue() {
      // The clock may have moved: a timer armed on the old time would fire late.
      if (timer) clearTimeout(timer);
      timer = null;
      timerDueAt = Number.POSITIVE_INFINITY;
      const settled = runDue();
      arm();
      return settled;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
