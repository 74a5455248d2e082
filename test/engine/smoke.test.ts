import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from './helpers';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t.stop();
});

describe('engine smoke', () => {
  it('creates a payment that completes', async () => {
    const created = ok(await t.client.createPayment(paymentBody()));
    expect(created.status).toBe('processing');
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    const full = ok(await t.client.retrievePayment(created.transaction_id));
    expect(full.status).toBe('completed');
    expect(full.net_amount).toBe(full.amount - full.fee);
  });
});
