/**
 * The delivery row is written in the status change's own SQLite transaction: if the change rolls
 * back, no webhook is queued for it; if it commits, the row is there (no event lost in between).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, paymentBody, startTestEngine, type TestEngine } from '../engine/helpers';
import { startReceiver, type Receiver } from './receiver';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;
let failCompletion = false;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({
    settleMs: 3_600_000,
    extensions: [
      // A later hook that fails: the whole change, webhook row included, must roll back.
      (_app, ctx) => {
        ctx.registerStatusHook((_db, change) => {
          if (failCompletion && change.to === 'completed') throw new Error('hook refused the change');
        });
      },
    ],
  });
  t.engine.webhooks.setUrl(APP, receiver.url);
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

describe('webhook rows and status changes commit together', () => {
  it('queues nothing for a status change that rolls back, and queues it once the change commits', async () => {
    const created = ok(await t.client.createPayment(paymentBody()));
    await receiver.waitFor((received) => received.length === 1);

    failCompletion = true;
    expect(() => t.engine.control.settleNow(created.transaction_id)).toThrow('hook refused the change');
    expect(t.engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    expect(t.engine.webhooks.deliveries().map((delivery) => delivery.eventType)).toEqual(['payment.processing']);

    failCompletion = false;
    expect(t.engine.control.settleNow(created.transaction_id)).toEqual({ status: 'completed' });
    expect(t.engine.webhooks.deliveries().map((delivery) => delivery.eventType)).toEqual(['payment.processing', 'payment.completed']);
    const [, completed] = await receiver.waitFor((received) => received.length === 2);
    expect(completed?.json).toMatchObject({ type: 'payment.completed', data: { transaction_id: created.transaction_id, status: 'completed' } });
  });
});
