/**
 * The per-key rate limit is a setting: `--rate-limit N` (CLI, see cli.test.ts), the `rateLimit`
 * option of startEngine, and `PUT /_sandbox/rate-limit` at run time; 0 turns it off so a developer
 * can load-test an app against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { control, data } from '../engine-control/control';
import { startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;

beforeAll(async () => {
  // The default limit (600 per minute per key). Real time pinned: the rate-limit minute moves only
  // when the test moves the engine clock, so a 751-request burst stays in one minute on any machine.
  const pinnedMicros = Date.now() * 1000;
  t = await startTestEngine({ rateLimit: undefined, wallMicros: () => pinnedMicros });
});
afterAll(async () => {
  await t.stop();
});

/** Moves the engine clock to the start of a fresh minute, so a burst stays in one rate-limit window. */
function startOfMinute(): void {
  t.engine.clock.advance(60 - (t.engine.clock.nowSeconds() % 60));
}

async function burst(count: number): Promise<Map<string, number>> {
  const codes = new Map<string, number>();
  for (let index = 0; index < count; index += 1) {
    const result = await t.client.retrievePayment('TE_none');
    const code = result.kind === 'api-error' ? result.code : result.kind;
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  return codes;
}

describe('rate limit setting', () => {
  it('is shown in GET /_sandbox/settings and changed by PUT /_sandbox/rate-limit', async () => {
    expect(data(await control<{ rateLimitPerKeyPerMinute: number }>(t.engine, 'GET', '/settings')).rateLimitPerKeyPerMinute).toBe(600);
    const answer = await control<{ rateLimitPerKeyPerMinute: number }>(t.engine, 'PUT', '/rate-limit', { perMinute: 3 });
    expect(data(answer)).toEqual({ rateLimitPerKeyPerMinute: 3 });
    expect(answer.body.message).toBe('Rate limit set to 3 requests per minute per key.');
    expect(data(await control<{ rateLimitPerKeyPerMinute: number }>(t.engine, 'GET', '/settings')).rateLimitPerKeyPerMinute).toBe(3);
    startOfMinute();
    expect(Object.fromEntries(await burst(4))).toEqual({ PAYMENT_NOT_FOUND: 3, RATE_LIMIT_EXCEEDED: 1 });
  });

  it('0 turns it off: more than 600 requests of one key in one minute all pass', async () => {
    data(await control(t.engine, 'PUT', '/rate-limit', { perMinute: 600 }));
    startOfMinute();
    const minute = Math.floor(t.engine.clock.nowSeconds() / 60);
    expect(Object.fromEntries(await burst(601))).toEqual({ PAYMENT_NOT_FOUND: 600, RATE_LIMIT_EXCEEDED: 1 });
    const off = await control(t.engine, 'PUT', '/rate-limit', { perMinute: 0 });
    expect(off.body.message).toBe('Rate limit off: keys may send any number of requests.');
    expect(Object.fromEntries(await burst(150))).toEqual({ PAYMENT_NOT_FOUND: 150 });
    // All 751 in the same window: the limit was really off, not reset by a new minute.
    expect(Math.floor(t.engine.clock.nowSeconds() / 60)).toBe(minute);
  });

  it('refuses a bad value with 422 on perMinute, and keeps the current limit', async () => {
    data(await control(t.engine, 'PUT', '/rate-limit', { perMinute: 42 }));
    for (const [body, message] of [
      [{ perMinute: -1 }, 'must be 0 (no limit) or more'],
      [{ perMinute: 2.5 }, 'must be a whole number of requests per minute'],
      [{ perMinute: '100' }, 'must be a number'],
      [{ perMinute: 1_000_001 }, 'must be at most 1000000'],
    ] as const) {
      const answer = await control(t.engine, 'PUT', '/rate-limit', body);
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: { perMinute: [message] } });
    }
    expect((await control(t.engine, 'PUT', '/rate-limit', {})).body.errors).toHaveProperty('perMinute');
    expect((await control(t.engine, 'PUT', '/rate-limit', { perMinute: 5, extra: 1 })).body.errors).toHaveProperty('extra');
    expect(data(await control<{ rateLimitPerKeyPerMinute: number }>(t.engine, 'GET', '/settings')).rateLimitPerKeyPerMinute).toBe(42);
  });
});

describe('startEngine rateLimit option', () => {
  it('takes 0 (off) and refuses values out of range', async () => {
    const engine = await startEngine({ db: ':memory:', port: 0, rateLimit: { perKeyPerMinute: 0 } });
    try {
      expect(engine.control.settings().rateLimitPerKeyPerMinute).toBe(0);
    } finally {
      await engine.stop();
    }
    await expect(startEngine({ db: ':memory:', port: 0, rateLimit: { perKeyPerMinute: 1_000_001 } })).rejects.toThrow(/at most 1000000/);
    await expect(startEngine({ db: ':memory:', port: 0, rateLimit: { perKeyPerMinute: -5 } })).rejects.toThrow(/non-negative integer/);
  });
});
