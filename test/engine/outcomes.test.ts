import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaydeskClient } from '../../electron/client';
import { fullTransactionSchema, SANDBOX_OUTCOMES, type FullTransaction } from '../../shared/contract';
import { ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from './helpers';

let t: TestEngine;
let client: PaydeskClient;
const APP = 'app_paydesk_demo';

beforeAll(async () => {
  t = await startTestEngine({ settleMs: 0, expirySeconds: 120 });
  client = t.client;
});
afterAll(async () => {
  await t.stop();
});

const kinds = [
  { kind: 'payment' as const, create: (phone: string) => client.createPayment(paymentBody({ phone_number: phone })), retrieve: (id: string) => client.retrievePayment(id), verify: (id: string) => client.verifyPayment(id) },
  { kind: 'payout' as const, create: (phone: string) => client.initiatePayout(paymentBody({ phone_number: phone })), retrieve: (id: string) => client.retrievePayout(id), verify: (id: string) => client.verifyPayout(id) },
];

function expectFinalFields(tx: FullTransaction) {
  switch (tx.status) {
    case 'completed':
      expect(tx.completed_at).not.toBeNull();
      expect(tx.failed_at).toBeNull();
      expect(tx.cancelled_at).toBeNull();
      expect(tx.failed_code).toBeNull();
      break;
    case 'failed':
      expect(tx.failed_at).not.toBeNull();
      expect(tx.failed_code).not.toBeNull();
      expect(tx.completed_at).toBeNull();
      expect(tx.reason).toEqual(expect.any(String));
      break;
    case 'cancelled':
      expect(tx.cancelled_at).not.toBeNull();
      expect(tx.failed_code).toBeNull();
      expect(tx.completed_at).toBeNull();
      break;
    default:
      throw new Error(`not final: ${tx.status}`);
  }
}

describe.each(kinds)('sandbox outcome table for $kind', ({ create, retrieve, verify }) => {
  const settling = SANDBOX_OUTCOMES.filter((row) => row.behaviour === 'settles');

  it.each(settling.map((row) => [row.phoneNumber, row.finalStatus, row.failedCode] as const))(
    '%s ends %s (%s) and the timeline records every move',
    async (phone, finalStatus, failedCode) => {
      const created = ok(await create(phone));
      expect(created.status).toBe('processing');
      await waitForStatus(t.engine, created.transaction_id, finalStatus);
      const full = ok(await retrieve(created.transaction_id));
      expect(full.status).toBe(finalStatus);
      expect(full.failed_code).toBe(failedCode);
      expectFinalFields(fullTransactionSchema.parse(full));
      const timeline = t.engine.control.timeline(created.transaction_id);
      expect(timeline.map((event) => [event.from, event.status, event.failedCode])).toEqual([
        [null, 'initiated', null],
        ['initiated', 'processing', null],
        ['processing', finalStatus, failedCode],
      ]);
      expect(timeline.every((event) => /\.\d{6}Z$/.test(event.at))).toBe(true);
      expect(ok(await verify(created.transaction_id)).status).toBe(finalStatus);
    },
  );

  it('any other valid number completes', async () => {
    const created = ok(await create('+237699999999'));
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    expect(ok(await retrieve(created.transaction_id)).status).toBe('completed');
  });

  it('+237650000004: stays processing until the expiry window passes on the engine clock, then fails EXPIRED', async () => {
    const created = ok(await create('+237650000004'));
    t.engine.clock.advance(60);
    expect(ok(await retrieve(created.transaction_id)).status).toBe('processing');
    expect(ok(await verify(created.transaction_id)).status).toBe('processing');
    t.engine.clock.advance(61);
    // Due work ran inside advance(): no waiting.
    const full = ok(await retrieve(created.transaction_id));
    expect(full).toMatchObject({ status: 'failed', failed_code: 'EXPIRED' });
    expectFinalFields(fullTransactionSchema.parse(full));
  });

  it('+237650000008: retrieve keeps saying processing; verify asks the provider and completes it', async () => {
    const created = ok(await create('+237650000008'));
    // Let the provider decide (settle 0) and every due notification run.
    t.engine.clock.advance(5);
    expect(ok(await retrieve(created.transaction_id)).status).toBe('processing');
    expect(t.engine.control.timeline(created.transaction_id).map((event) => event.status)).toEqual(['initiated', 'processing']);
    const verified = ok(await verify(created.transaction_id));
    expect(verified.status).toBe('completed');
    expectFinalFields(fullTransactionSchema.parse(verified));
    expect(ok(await retrieve(created.transaction_id)).status).toBe('completed');
    expect(t.engine.control.timeline(created.transaction_id).map((event) => event.status)).toEqual(['initiated', 'processing', 'completed']);
  });
});

describe('settle delay', () => {
  it('with a settle delay, a transaction stays processing until the clock passes it', async () => {
    t.engine.control.setSettleMs(30_000);
    try {
      const created = ok(await client.createPayment(paymentBody({ phone_number: '+237650000001' })));
      t.engine.clock.advance(10);
      expect(ok(await client.retrievePayment(created.transaction_id)).status).toBe('processing');
      // Verify asks the provider, which has not decided yet either.
      expect(ok(await client.verifyPayment(created.transaction_id)).status).toBe('processing');
      t.engine.clock.advance(21);
      expect(ok(await client.retrievePayment(created.transaction_id)).status).toBe('completed');
    } finally {
      t.engine.control.setSettleMs(0);
    }
  });

  it('settleNow decides at once', async () => {
    t.engine.control.setSettleMs(600_000);
    try {
      const created = ok(await client.createPayment(paymentBody({ phone_number: '+237650000009' })));
      expect(t.engine.control.settleNow(created.transaction_id)).toEqual({ status: 'cancelled' });
      expect(ok(await client.retrievePayment(created.transaction_id)).status).toBe('cancelled');
      expect(t.engine.control.settleNow('TE_unknown')).toBeNull();
    } finally {
      t.engine.control.setSettleMs(0);
    }
  });

  it('emits status events after commit, in order, with the engine time', async () => {
    const seen: string[] = [];
    const unsubscribe = t.engine.onEvent((event) => {
      if (event.type === 'status') seen.push(`${event.kind}:${event.from ?? '-'}>${event.to}`);
    });
    const created = ok(await client.initiatePayout(paymentBody({ phone_number: '+237650000003' })));
    await waitForStatus(t.engine, created.transaction_id, 'failed');
    unsubscribe();
    expect(seen).toEqual(['payout:->initiated', 'payout:initiated>processing', 'payout:processing>failed']);
    expect(t.engine.control.walletBalance(APP, 'sandbox')).toBeGreaterThan(0);
  });
});
