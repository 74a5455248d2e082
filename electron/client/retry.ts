/**
 * When and how long a GET waits before trying again. A POST is never retried here: whether it
 * reached the server is for the caller to find out (verify by external_id), not to guess.
 */
export interface RetryPolicy {
  /** Counts the first try. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 300, maxDelayMs: 8_000 };

/** Statuses that say "try again later" rather than "this request is wrong". */
export const RETRYABLE_STATUSES: readonly number[] = [429, 503];

/**
 * Exponential backoff with "equal jitter": after the nth failed try, wait between half and all
 * of min(max, base * 2^(n-1)), so clients that failed together do not come back together.
 */
export function backoffDelayMs(failedTries: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedTries - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * The wait before the next try, or null to stop. A Retry-After the server sent is honoured
 * exactly; one longer than the cap stops retrying and hands the answer (with its Retry-After)
 * back, since waiting less would only earn another 429.
 */
export function nextDelayMs(
  failedTries: number,
  retryAfterSeconds: number | null,
  policy: RetryPolicy,
  random: () => number,
): number | null {
  if (failedTries >= policy.attempts) return null;
  if (retryAfterSeconds !== null) {
    const wanted = retryAfterSeconds * 1000;
    return wanted > policy.maxDelayMs ? null : wanted;
  }
  return backoffDelayMs(failedTries, policy, random);
}

export function resolveRetryPolicy(input: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number } | undefined): RetryPolicy {
  const policy: RetryPolicy = {
    attempts: input?.attempts ?? DEFAULT_RETRY.attempts,
    baseDelayMs: input?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: input?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new RangeError(`retry.attempts must be a whole number of at least 1, got ${String(policy.attempts)}`);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(policy[name]) || policy[name] < 0) {
      throw new RangeError(`retry.${name} must be a number of milliseconds >= 0, got ${String(policy[name])}`);
    }
  }
  return policy;
}
