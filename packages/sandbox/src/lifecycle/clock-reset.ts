/**
 * `POST /_sandbox/clock/reset`: engine time back to real time.
 *
 * Work already scheduled on the advanced clock keeps the wait it had left: every provider
 * decision not yet delivered (settling, expiry, the "needs Verify" answer) and every pending
 * webhook delivery moves back by the offset removed. Without that, a transaction created while
 * the clock was a day ahead would stay `processing` for a real day after the reset. Timestamps
 * already written (created_at, timeline, attempts) keep their advanced values: they are history.
 */
import type { EngineContext } from '../context';

export interface ClockReset {
  /** The offset removed, in seconds (0: the clock was not advanced). */
  removedSeconds: number;
  /** Provider decisions and webhook deliveries whose due time moved back. */
  rescheduled: { decisions: number; deliveries: number };
}

export function resetEngineClock(ctx: EngineContext): ClockReset {
  const removedMicros = Math.round(ctx.clock.offsetSeconds() * 1_000_000);
  let rescheduled = { decisions: 0, deliveries: 0 };
  if (removedMicros > 0) {
    rescheduled = ctx.write(() => ({
      decisions: ctx.db.prepare('UPDATE provider_requests SET decides_at = decides_at - ? WHERE notified = 0').run(removedMicros).changes,
      deliveries: ctx.db
        .prepare(`UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at - ? WHERE status = 'pending' AND next_attempt_at IS NOT NULL`)
        .run(removedMicros).changes,
    }));
  }
  // The clock's listeners (scheduler, webhook dispatcher) re-arm their timers on the new times.
  ctx.clock.reset();
  return { removedSeconds: removedMicros / 1_000_000, rescheduled };
}
