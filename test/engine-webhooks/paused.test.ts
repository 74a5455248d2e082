/**
 * 410 Gone stops sending, it does not destroy records: the delivery that got the 410, the other
 * pending deliveries of the application, and every event while the endpoint stays disabled are
 * kept `paused`, and all go out when the URL is set again.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type DeliveryPage, type Migration, type WebhookDelivery } from '../../packages/sandbox/src/engine';
import { sandboxControlFrom } from '../../electron/console/sandbox-engine';
import { openEngineDb } from '../../packages/sandbox/src/storage/db';
import { WEBHOOK_MIGRATIONS } from '../../packages/sandbox/src/webhooks';
import { control, data } from '../engine-control/control';
import { ok, paymentBody, startTestEngine, tempDir, waitForStatus } from '../engine/helpers';
import { waitForDeliveries } from './deliveries';
import { startReceiver, type Answer } from './receiver';

const APP = 'app_paydesk_demo';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a 410-disabled endpoint', () => {
  it('pauses the 410 delivery and the other pending ones, keeps new events paused, and sends them all when the URL is set again', async () => {
    // What the receiver answers now: 500 first, then 410 Gone, then (endpoint back) 200.
    let answer: Answer = 500;
    const receiver = await startReceiver(() => answer);
    cleanups.push(() => receiver.close());
    const t = await startTestEngine({ settleMs: 0, webhooks: { retryDelaysSeconds: [5], jitter: 0 } });
    cleanups.push(() => t.stop());
    t.engine.webhooks.setUrl(APP, receiver.url);
    const of = (id: string) => (all: WebhookDelivery[]) => all.filter((d) => d.transactionId === id);

    // B's delivery fails with a 500 and waits for its retry (pending, on the engine clock) ...
    const b = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    await waitForDeliveries(t.engine, (all) => of(b.transaction_id)(all).some((d) => d.status === 'pending' && d.attempts.length === 1));
    // ... when A's delivery is answered 410 Gone: both are kept, paused.
    answer = 410;
    const a = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    const afterGone = await waitForDeliveries(
      t.engine,
      (all) => of(a.transaction_id)(all)[0]?.status === 'paused' && of(b.transaction_id)(all)[0]?.status === 'paused',
    );
    const deliveryA = of(a.transaction_id)(afterGone)[0] as WebhookDelivery;
    expect(deliveryA.attempts.at(-1)?.httpStatus).toBe(410);
    expect(deliveryA.lastError).toMatch(/410 Gone/);
    expect(deliveryA.nextAttemptAt).toBeNull();
    expect(data(await control<{ disabledAt: string | null }>(t.engine, 'GET', `/applications/${APP}/webhook`)).disabledAt).not.toBeNull();

    // While disabled: new events are kept paused, nothing is sent, retries do not fire, redelivery is refused.
    const c = ok(await t.client.createPayment(paymentBody()));
    await waitForStatus(t.engine, c.transaction_id, 'completed');
    const receivedWhileGone = receiver.received.length;
    t.engine.clock.advance(7200);
    const paused = t.engine.webhooks.deliveries();
    expect(of(c.transaction_id)(paused).map((d) => [d.eventType, d.status])).toEqual([
      ['payment.processing', 'paused'],
      ['payment.completed', 'paused'],
    ]);
    expect(paused.every((d) => d.status === 'paused')).toBe(true);
    expect(() => t.engine.webhooks.redeliver(deliveryA.id)).toThrow(/410 Gone/);
    const listed = data(await control<DeliveryPage>(t.engine, 'GET', `/deliveries?app_id=${APP}`)).deliveries;
    expect(listed.filter((d) => d.status === 'paused' && d.nextAttemptAt === null)).toHaveLength(paused.length);
    expect(receiver.received.length).toBe(receivedWhileGone);
    // The console's Sandbox panel shows them as stopped.
    const shown = await sandboxControlFrom(t.engine).deliveries!();
    expect(shown.deliveries.map((delivery) => delivery.state)).toEqual(paused.map(() => 'stopped'));

    // The URL is set again: every kept delivery goes out, each from the start of its schedule.
    answer = 200;
    data(await control(t.engine, 'PUT', `/applications/${APP}/webhook`, { url: receiver.url }));
    const delivered = await waitForDeliveries(t.engine, (all) => all.length === paused.length && all.every((d) => d.status === 'delivered'));
    for (const id of [a.transaction_id, b.transaction_id, c.transaction_id]) {
      expect(receiver.received.some((webhook) => webhook.json.data.transaction_id === id && receiver.received.indexOf(webhook) >= receivedWhileGone)).toBe(true);
    }
    expect(of(c.transaction_id)(delivered).every((d) => d.attempts.length === 1 && d.attempts[0]?.httpStatus === 200)).toBe(true);
  });
});

describe('a 410-disabled endpoint whose URL is removed', () => {
  it('keeps its paused deliveries through the removal and sends them when a URL is set', async () => {
    let answer: Answer = 410;
    const receiver = await startReceiver(() => answer);
    cleanups.push(() => receiver.close());
    const t = await startTestEngine({ settleMs: 0 });
    cleanups.push(() => t.stop());
    t.engine.webhooks.setUrl(APP, receiver.url);
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    await waitForDeliveries(t.engine, (all) => all[0]?.status === 'paused');
    t.engine.webhooks.setUrl(APP, null);
    expect(t.engine.webhooks.deliveries().map((d) => d.status)).toEqual(['paused']);
    expect(() => t.engine.webhooks.redeliver(t.engine.webhooks.deliveries()[0]?.id ?? '')).toThrow(/no webhook URL/);
    answer = 200;
    t.engine.webhooks.setUrl(APP, receiver.url);
    const [delivered] = await waitForDeliveries(t.engine, (all) => all[0]?.status === 'delivered');
    expect(delivered).toMatchObject({ transactionId: created.transaction_id, eventType: 'payment.processing' });
    expect(delivered?.attempts.map((attempt) => attempt.httpStatus)).toEqual([410, 200]);
  });
});

describe('migration 101 (paused deliveries)', () => {
  it('keeps the deliveries of a database made before it', async () => {
    const temp = tempDir();
    cleanups.push(async () => temp.cleanup());
    const file = join(temp.dir, 'before-101.db');
    const old = openEngineDb(file, [WEBHOOK_MIGRATIONS[0] as Migration]);
    old.prepare(`INSERT INTO webhook_deliveries (id, app_id, transaction_id, event_type, payload, status, round_attempts, next_attempt_at, created_at, last_error)
      VALUES ('msg_old', 'app_paydesk_demo', 'TE_old', 'payment.completed', '{}', 'failed', 6, NULL, 1700000000000000, 'HTTP 500')`).run();
    old.close();
    const engine = await startEngine({ db: file, port: 0 });
    cleanups.push(() => engine.stop());
    expect(engine.webhooks.deliveries()).toMatchObject([{ id: 'msg_old', status: 'failed', transactionId: 'TE_old', lastError: 'HTTP 500' }]);
  });
});
