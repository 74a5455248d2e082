/**
 * Per-key rate limit: a fixed one-minute window on the engine clock, counted after a request has
 * authenticated (so nobody can spend another merchant's budget with forged requests).
 */
import { ApiError } from '../api/errors';

/** The largest per-key limit the CLI, `startEngine` and the control API accept (0 turns it off). */
export const MAX_RATE_LIMIT_PER_KEY_PER_MINUTE = 1_000_000;

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limitPerMinute: () => number) {}

  /** Counts one request for `key` at `nowSeconds`; throws 429 with Retry-After when over. */
  hit(key: string, nowSeconds: number): void {
    const limit = this.limitPerMinute();
    if (limit <= 0) return;
    const windowStart = nowSeconds - (nowSeconds % 60);
    let window = this.windows.get(key);
    if (!window || window.start !== windowStart) {
      window = { start: windowStart, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > limit) {
      const retryAfter = Math.max(1, windowStart + 60 - nowSeconds);
      throw new ApiError('RATE_LIMIT_EXCEEDED', `Too many requests for this key: the limit is ${limit} per minute. Retry after ${retryAfter} s.`, [], {
        'retry-after': String(retryAfter),
      });
    }
  }

  reset(): void {
    this.windows.clear();
  }
}
