/**
 * One desktop (the SQLite journal) has no approvals: the channels say so with their own code, the
 * status says `available: false`, and sending is unchanged (a large payout goes as before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let runtime: Awaited<ReturnType<typeof startRuntime>>;
beforeAll(async () => {
  runtime = await startRuntime();
}, 60_000);
afterAll(() => runtime?.close());

describe('approvals on a single desktop', () => {
  it('are unavailable, said plainly, and hold nothing back', async () => {
    expect(expectOk(await runtime.handlers['approvals:status']({}))).toEqual({ available: false });
    expect(expectFail(await runtime.handlers['approvals:list']({ scope: 'forMe' }), 'APPROVALS_UNAVAILABLE').message).toMatch(/team workspace only/);
    expect(expectFail(await runtime.handlers['audit:list']({}), 'APPROVALS_UNAVAILABLE').message).toMatch(/audit log exists on a team workspace only/);
    expectFail(await runtime.handlers['audit:export']({ filter: { action: 'send' } }), 'APPROVALS_UNAVAILABLE');
    expectFail(await runtime.handlers['approvals:askPayout']({ request: paymentRequest({ amount: 900_000 }) }), 'APPROVALS_UNAVAILABLE');
    const request = paymentRequest({ amount: 900_000 });
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    expect(expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken })).amount).toBe(900_000);
  });
});
