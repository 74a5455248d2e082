/**
 * Retries on the engine clock: failed attempts are recorded and retried with backoff when the
 * clock moves (no sleeping), the last attempt fails the delivery, and a hanging receiver never
 * holds up the API. 410 Gone: see paused.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineHandle, WebhookDelivery, WebhookOptions } from '../../packages/sandbox/src/engine';
import { ok, paymentBody, startTestEngine, type TestEngine } from '../engine/helpers';
import { startReceiver, type Answer, type Receiver } from './receiver';

const APP = 'app_paydesk_demo';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(answer: (index: number) => Answer, webhooks: WebhookOptions = {}): Promise<{ t: TestEngine; receiver: Receiver }> {
  const receiver = await startReceiver((_webhook, index) => answer(index));
  cleanups.push(() => receiver.close());
  const t = await startTestEngine({ settleMs: 0, webhooks });
  cleanups.push(() => t.stop());
  t.engine.webhooks.setUrl(APP, receiver.url);
  return { t, receiver };
}

/** Resolves with the delivery once `predicate` holds, checked on every delivery event. */
function waitForDelivery(engine: EngineHandle, predicate: (delivery: WebhookDelivery) => boolean, timeoutMs = 10_000): Promise<WebhookDelivery> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const found = engine.webhooks.deliveries().find(predicate);
      if (!found) return false;
      clearTimeout(timer);
      unsubscribe();
      resolve(found);
      return true;
    };
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no delivery matched; have ${JSON.stringify(engine.webhooks.deliveries().map((d) => [d.eventType, d.status, d.attempts.length]))}`));
    }, timeoutMs);
    const unsubscribe = engine.onEvent((event) => {
      if (event.type === 'extension' && event.topic === 'webhook.delivery') check();
    });
    check();
  });
}

describe('webhook retries', () => {
  it('retries a receiver that answers 500 three times and delivers on the fourth attempt, every attempt recorded', async () => {
    const { t, receiver } = await setup((index) => (index < 3 ? 500 : 200), { retryDelaysSeconds: [5, 30, 120], jitter: 0.2 });
    // Only the completed event: the processing one is sent before the URL matters here.
    t.engine.webhooks.setUrl(APP, null);
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    t.engine.webhooks.setUrl(APP, receiver.url);
    t.engine.control.settleNow(created.transaction_id);
    const isOurs = (delivery: WebhookDelivery) => delivery.transactionId === created.transaction_id;

    const delays = [5, 30, 120];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const pending = await waitForDelivery(t.engine, (d) => isOurs(d) && d.attempts.length === attempt);
      expect(pending.status).toBe('pending');
      expect(pending.lastError).toBe('HTTP 500');
      // The next attempt is scheduled with backoff and jitter, never before the delay.
      const wait = (Date.parse(pending.nextAttemptAt ?? '') - Date.parse(pending.attempts[attempt - 1]?.at ?? '')) / 1000;
      expect(wait).toBeGreaterThanOrEqual((delays[attempt - 1] as number) - 0.01);
      expect(wait).toBeLessThanOrEqual((delays[attempt - 1] as number) * 1.2 + 1);
      expect(receiver.received).toHaveLength(attempt);
      // Time moves on the engine clock; nothing sleeps.
      t.engine.clock.advance((delays[attempt - 1] as number) * 1.2 + 1);
    }
    const delivered = await waitForDelivery(t.engine, (d) => isOurs(d) && d.status === 'delivered');
    expect(delivered.attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 500, 500, 200]);
    expect(delivered.attempts.every((attempt) => attempt.url === receiver.url && attempt.durationMs >= 0)).toBe(true);
    expect(delivered.attempts.slice(0, 3).every((attempt) => attempt.error === null)).toBe(true);
    expect(receiver.received).toHaveLength(4);
    // The same message id on every attempt, so a receiver can dedupe.
    expect(new Set(receiver.received.map((webhook) => webhook.headers['webhook-id']))).toEqual(new Set([delivered.id]));
    expect(receiver.received.map((webhook) => webhook.json.type)).toEqual(Array(4).fill('payment.failed'));
  });

  it('marks a delivery failed after the last attempt', async () => {
    const { t, receiver } = await setup(() => 503, { retryDelaysSeconds: [1, 2], jitter: 0 });
    const created = ok(await t.client.createPayment(paymentBody()));
    const isCompleted = (d: WebhookDelivery) => d.transactionId === created.transaction_id && d.eventType === 'payment.completed';
    await waitForDelivery(t.engine, (d) => isCompleted(d) && d.attempts.length === 1);
    t.engine.clock.advance(1.5);
    await waitForDelivery(t.engine, (d) => isCompleted(d) && d.attempts.length === 2);
    t.engine.clock.advance(2.5);
    const failed = await waitForDelivery(t.engine, (d) => isCompleted(d) && d.status === 'failed');
    expect(failed.attempts.map((attempt) => attempt.httpStatus)).toEqual([503, 503, 503]);
    expect(failed.lastError).toBe('HTTP 503 (after 3 attempts)');
    expect(failed.nextAttemptAt).toBeNull();
    const sentForIt = receiver.received.filter((webhook) => webhook.headers['webhook-id'] === failed.id);
    expect(sentForIt).toHaveLength(3);
    // Nothing more, however far the clock moves.
    t.engine.clock.advance(3600);
    expect(t.engine.webhooks.deliveries().find(isCompleted)?.attempts).toHaveLength(3);
  });

  it('records a refused connection and a timeout as attempts with their error, and retries them', async () => {
    const { t, receiver } = await setup(() => 'hang', { timeoutMs: 300, retryDelaysSeconds: [1], jitter: 0 });
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    const processing = await waitForDelivery(t.engine, (d) => d.transactionId === created.transaction_id && d.attempts.length === 1);
    expect(processing.attempts[0]).toMatchObject({ httpStatus: null, error: 'timed out after 300 ms' });
    expect(processing.status).toBe('pending');
    await receiver.close();
    t.engine.clock.advance(1.5);
    const refused = await waitForDelivery(t.engine, (d) => d.id === processing.id && d.attempts.length === 2);
    expect(refused.attempts[1]).toMatchObject({ httpStatus: null, error: 'connection refused' });
    expect(refused.status).toBe('failed');
  });

  it('never holds up the API: payments are answered while a receiver keeps a delivery hanging', async () => {
    const { t, receiver } = await setup(() => 'hang', { timeoutMs: 60_000 });
    const first = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    await receiver.waitFor((received) => received.length === 1);
    // The delivery is in flight and will not finish; the API still answers at once.
    for (let index = 0; index < 5; index += 1) {
      const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
      expect(ok(await t.client.retrievePayment(created.transaction_id)).status).toBe('processing');
    }
    expect(t.engine.webhooks.deliveries().find((d) => d.transactionId === first.transaction_id)?.attempts).toEqual([]);
  });
});
