/**
 * Payout confirmation tokens: the confirmation step (`payouts:prepare`) issues one, bound to a hash
 * of (profile, environment, request); `payouts:initiate` consumes it. Single use, so a double
 * submit cannot send twice; short-lived, so a stale confirmation screen cannot send later.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Environment, TransactionRequest } from '../../shared/contract';

export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** JSON with sorted keys, so the same request always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function bindingHash(profileId: string, environment: Environment, request: TransactionRequest): string {
  return createHash('sha256').update(canonicalJson({ profileId, environment, request })).digest('hex');
}

export type ConsumeResult = { ok: true } | { ok: false; reason: 'unknown' | 'expired' | 'mismatch' };

export interface Confirmations {
  issue(binding: string): { token: string; expiresAt: number };
  /** Checks and uses up a token; a mismatched token stays valid for its own request. */
  consume(token: string, binding: string): ConsumeResult;
}

export function createConfirmations(now: () => number, ttlMs: number = CONFIRMATION_TTL_MS): Confirmations {
  const tokens = new Map<string, { binding: string; expiresAt: number }>();

  function sweep(): void {
    const at = now();
    for (const [token, entry] of tokens) if (entry.expiresAt <= at) tokens.delete(token);
  }

  return {
    issue(binding) {
      sweep();
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now() + ttlMs;
      tokens.set(token, { binding, expiresAt });
      return { token, expiresAt };
    },
    consume(token, binding) {
      const entry = tokens.get(token);
      if (!entry) return { ok: false, reason: 'unknown' };
      if (entry.expiresAt <= now()) {
        tokens.delete(token);
        return { ok: false, reason: 'expired' };
      }
      if (entry.binding !== binding) return { ok: false, reason: 'mismatch' };
      tokens.delete(token);
      return { ok: true };
    },
  };
}
