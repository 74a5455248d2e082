/**
 * The sandbox library signs with real time (issue 23 item 5): the engine checks a request's
 * ±300 s window against real time, so a developer test that advances the engine clock past it
 * (webhook retries, expiry) still sends signed requests that pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
});

describe('startSandbox after advanceClock', () => {
  it('signs GET /v1/balance and a payout POST that the engine accepts two hours later', async () => {
    sandbox = await startSandbox();
    sandbox.advanceClock(2 * 60 * 60);
    expect(sandbox.engine.clock.nowSeconds() - sandbox.engine.clock.wallSeconds()).toBeGreaterThanOrEqual(7200);

    const balance = await sandbox.request('GET', '/v1/balance');
    expect(balance.status).toBe(200);

    const payout = await sandbox.request<{ data: { status: string } }>('POST', '/v1/payouts/initiate', {
      payment_method: 'service_demo',
      amount: 5000,
      phone_number: '+237650000001',
      customer: { first_name: 'Ada', last_name: 'N', email: 'ada@example.com' },
      external_id: 'clock-2h-1',
    });
    expect(payout.status).toBe(200);
    expect(['initiated', 'processing', 'completed']).toContain(payout.body.data.status);

    // The bare helper too: its timestamp is real time, not the advanced engine clock.
    const headers = sandbox.sign('GET', '/v1/balance', undefined, 'payout');
    const timestamp = Number(Object.entries(headers).find(([name]) => /timestamp/i.test(name))![1]);
    expect(Math.abs(timestamp - sandbox.engine.clock.wallSeconds())).toBeLessThanOrEqual(1);
  });
});
