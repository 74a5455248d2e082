/**
 * The one reading of a POST's answer (electron/console/outcome.ts) tells "this external id already
 * exists" from other refusals: the first is looked up and adopted, the others are failures.
 */
import { describe, expect, it } from 'vitest';
import { classifyInitiate } from '../../electron/console/outcome';

const refusal = (httpStatus: number, code: string, fields: Record<string, string[]> | null) =>
  classifyInitiate({ kind: 'api-error', httpStatus, code, message: 'refused', fields, retryAfterSeconds: null }).kind;

describe('an initiate refused because its external id already exists', () => {
  it('is read as `exists` in the sandbox engine\'s words, a 409, or a duplicate code', () => {
    expect(refusal(422, 'VALIDATION_ERROR', { external_id: ['has already been used for a payout in this environment'] })).toBe('exists');
    expect(refusal(409, 'CONFLICT', null)).toBe('exists');
    expect(refusal(422, 'DUPLICATE_EXTERNAL_ID', null)).toBe('exists');
  });

  it('is not confused with other refusals, of the external id\'s format or of another field', () => {
    expect(refusal(422, 'VALIDATION_ERROR', { external_id: ['must be at most 100 characters'] })).toBe('refused');
    expect(refusal(422, 'VALIDATION_ERROR', { amount: ['has already been used'] })).toBe('refused');
    expect(refusal(422, 'INSUFFICIENT_FUNDS', null)).toBe('refused');
    expect(refusal(429, 'RATE_LIMIT_EXCEEDED', null)).toBe('retry-later');
    expect(refusal(503, 'SERVICE_UNAVAILABLE', { external_id: ['already exists'] })).toBe('may-exist');
  });
});
