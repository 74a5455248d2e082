/**
 * A final status never moves again in the engine (issue 23): a completed payout refuses every
 * move at the one place statuses change (lifecycle/transitions.ts), and through the control API;
 * its row, its timeline and the wallet stay as they were (no refund of a paid payout).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionStatus } from '../../shared/contract';
import { changeStatus } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { getTransaction, transactionEvents } from '../../packages/sandbox/src/storage/store';
import { DEMO_APP, ok, paymentBody, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
});
afterAll(async () => {
  await t.stop();
});

async function completedPayout(): Promise<string> {
  const payout = ok(await t.client.initiatePayout(paymentBody({ payment_method: 'momo_cm', phone_number: '+237650000001' })));
  expect(t.engine.control.settleNow(payout.transaction_id)).toMatchObject({ status: 'completed' });
  return payout.transaction_id;
}

describe('a final status', () => {
  it('refuses completed -> failed, cancelled, processing, initiated and completed at the engine\'s one place of status changes', async () => {
    const id = await completedPayout();
    const { ctx, db } = engineInternals(t.engine);
    const balance = t.engine.control.walletBalance(DEMO_APP, 'sandbox');
    const events = transactionEvents(db, id).length;
    const moves: [TransactionStatus, 'PAYER_NOT_FOUND' | null][] = [
      ['failed', 'PAYER_NOT_FOUND'],
      ['cancelled', null],
      ['processing', null],
      ['initiated', null],
      ['completed', null],
    ];
    for (const [to, code] of moves) {
      expect(() => ctx.write(() => changeStatus(ctx, getTransaction(db, id)!, to, code)), `completed -> ${to}`).toThrow(/not a valid move/);
    }
    expect(getTransaction(db, id)).toMatchObject({ status: 'completed', failed_code: null, failed_at: null, cancelled_at: null });
    expect(transactionEvents(db, id)).toHaveLength(events);
    expect(t.engine.control.walletBalance(DEMO_APP, 'sandbox')).toBe(balance);
  });

  it('refuses a new customer outcome for a completed payout through the control API', async () => {
    const id = await completedPayout();
    expect(() => t.engine.control.setCustomerOutcome(id, { status: 'failed', failed_code: 'PAYER_NOT_FOUND', notify: true, now: true })).toThrow(/final status never changes/);
    t.engine.control.settleNow(id);
    expect(t.engine.control.transaction(id)).toMatchObject({ status: 'completed' });
  });
});
