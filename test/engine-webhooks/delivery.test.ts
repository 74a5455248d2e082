/**
 * Every event type reaches a real loopback receiver, signed so that the Standard Webhooks
 * library (`standardwebhooks`) accepts it, with the full transaction object in `data`.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_INPUT, parseSeed, startEngine } from '../../packages/sandbox/src/engine';
import { fullTransactionSchema, isTimestamp } from '../../shared/contract';
import { clientFor, ok, paymentBody, profileFor, startTestEngine, waitForStatus, type TestEngine } from '../engine/helpers';
import { startReceiver, type Receiver, type ReceivedWebhook } from './receiver';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({ settleMs: 0 });
  t.engine.webhooks.setUrl(APP, receiver.url);
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

function eventsFor(transactionId: string): ReceivedWebhook[] {
  return receiver.received.filter((webhook) => webhook.json.data.transaction_id === transactionId);
}

describe('webhook delivery', () => {
  it('delivers every payment and payout event type, each verifiable with the standardwebhooks library', async () => {
    const wanted: { kind: 'payment' | 'payout'; phone: string; final: string }[] = [];
    for (const kind of ['payment', 'payout'] as const) {
      wanted.push({ kind, phone: '+237650000001', final: 'completed' }, { kind, phone: '+237650000002', final: 'failed' }, { kind, phone: '+237650000009', final: 'cancelled' });
    }
    const ids: { id: string; kind: string; final: string; metadata: Record<string, unknown> }[] = [];
    for (const { kind, phone, final } of wanted) {
      const metadata = { order: `${kind}-${final}`, nested: { cart: [1, 2] } };
      const body = paymentBody({ phone_number: phone, metadata });
      const created = ok(kind === 'payment' ? await t.client.createPayment(body) : await t.client.initiatePayout(body));
      ids.push({ id: created.transaction_id, kind, final, metadata });
    }
    await receiver.waitFor(() => ids.every(({ id }) => eventsFor(id).length === 2));

    const verifier = new Webhook(t.engine.webhooks.secret(APP));
    const seenTypes = new Set<string>();
    for (const { id, kind, final, metadata } of ids) {
      const events = eventsFor(id);
      // In order: one send at a time per transaction.
      expect(events.map((event) => event.json.type)).toEqual([`${kind}.processing`, `${kind}.${final}`]);
      for (const event of events) {
        seenTypes.add(event.json.type);
        // Throws on a bad signature or timestamp; returns the parsed payload.
        const verified = verifier.verify(event.body, event.headers) as ReceivedWebhook['json'];
        expect(verified.type).toBe(event.json.type);
        expect(event.headers['webhook-id']).toMatch(/^msg_/);
        expect(event.headers['content-type']).toBe('application/json');
        expect(isTimestamp(event.json.timestamp)).toBe(true);
        // The full transaction object, metadata included, as retrieve returns it.
        const data = fullTransactionSchema.parse(event.json.data);
        expect(data.metadata).toEqual(metadata);
        expect(data.status).toBe(event.json.type.split('.')[1]);
        expect(data.application.id).toBe(APP);
      }
      const final_ = events.find((event) => event.json.type.endsWith(final));
      const retrieved = t.engine.control.transaction(id);
      expect(final_?.json.data).toEqual(JSON.parse(JSON.stringify(retrieved)));
    }
    expect([...seenTypes].sort()).toEqual(
      ['payment', 'payout'].flatMap((kind) => ['cancelled', 'completed', 'failed', 'processing'].map((status) => `${kind}.${status}`)).sort(),
    );
  });

  it('signs so that a changed body, id or secret fails verification', async () => {
    const created = ok(await t.client.createPayment(paymentBody()));
    await receiver.waitFor(() => eventsFor(created.transaction_id).length === 2);
    const event = eventsFor(created.transaction_id)[0] as ReceivedWebhook;
    const verifier = new Webhook(t.engine.webhooks.secret(APP));
    expect(() => verifier.verify(event.body.replace('"amount":5000', '"amount":5001'), event.headers)).toThrow();
    expect(() => verifier.verify(event.body, { ...event.headers, 'webhook-id': 'msg_other' })).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.from('another secret entirely').toString('base64')).verify(event.body, event.headers)).toThrow();
  });

  it('records each delivery with its attempt, and the webhook-id stays the delivery id', async () => {
    const created = ok(await t.client.createPayment(paymentBody()));
    await receiver.waitFor(() => eventsFor(created.transaction_id).length === 2);
    const deliveries = t.engine.webhooks.deliveries(APP).filter((delivery) => delivery.transactionId === created.transaction_id);
    await expect.poll(() => t.engine.webhooks.deliveries(APP).filter((d) => d.transactionId === created.transaction_id).every((d) => d.status === 'delivered')).toBe(true);
    expect(deliveries.map((delivery) => delivery.eventType).sort()).toEqual(['payment.completed', 'payment.processing']);
    for (const delivery of t.engine.webhooks.deliveries(APP).filter((d) => d.transactionId === created.transaction_id)) {
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0]).toMatchObject({ url: receiver.url, httpStatus: 200, error: null });
      expect(delivery.attempts[0]?.durationMs).toBeGreaterThanOrEqual(0);
      expect(eventsFor(created.transaction_id).map((event) => event.headers['webhook-id'])).toContain(delivery.id);
      expect(eventsFor(created.transaction_id).find((event) => event.headers['webhook-id'] === delivery.id)?.body).toBe(delivery.payload);
    }
  });

  it('sends nothing about a +237650000008 outcome until verify brings it forward', async () => {
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000008' })));
    await receiver.waitFor(() => eventsFor(created.transaction_id).length === 1);
    // The provider has decided (settle delay 0, and settled now), but never tells the service.
    t.engine.control.settleNow(created.transaction_id);
    expect(t.engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    expect(t.engine.webhooks.deliveries(APP).filter((delivery) => delivery.transactionId === created.transaction_id).map((d) => d.eventType)).toEqual(['payment.processing']);
    const verified = ok(await t.client.verifyPayment(created.transaction_id));
    expect(verified.status).toBe('completed');
    await receiver.waitFor(() => eventsFor(created.transaction_id).length === 2);
    expect(eventsFor(created.transaction_id).map((event) => event.json.type)).toEqual(['payment.processing', 'payment.completed']);
  });

  it('queues nothing for an application without a webhook URL', async () => {
    t.engine.webhooks.setUrl(APP, null);
    try {
      const created = ok(await t.client.createPayment(paymentBody()));
      await waitForStatus(t.engine, created.transaction_id, 'completed');
      expect(t.engine.webhooks.deliveries(APP).filter((delivery) => delivery.transactionId === created.transaction_id)).toEqual([]);
      expect(t.engine.webhooks.url(APP)).toBeNull();
    } finally {
      t.engine.webhooks.setUrl(APP, receiver.url);
    }
  });

  it('refuses a webhook URL that is not http or https', () => {
    expect(() => t.engine.webhooks.setUrl(APP, 'ftp://127.0.0.1/hook')).toThrow(/http or https/);
    expect(() => t.engine.webhooks.setUrl(APP, 'not a url')).toThrow(/absolute http or https URL/);
    expect(() => t.engine.webhooks.setUrl('app_missing', receiver.url)).toThrow(/No application app_missing/);
    expect(t.engine.webhooks.url(APP)).toBe(receiver.url);
  });

  it('uses the webhook URL and whsec_ secret given in the seed', async () => {
    const seedReceiver = await startReceiver();
    const secret = `whsec_${Buffer.from('a seed-given secret, 32 bytes!!!').toString('base64')}`;
    const [demo] = DEFAULT_SEED_INPUT.applications;
    const seed = parseSeed({ ...DEFAULT_SEED_INPUT, applications: [{ ...demo, webhookUrl: seedReceiver.url, webhookSecret: secret }] });
    const engine = await startEngine({ db: ':memory:', port: 0, settleMs: 0, seed });
    const client = clientFor(engine, profileFor(engine));
    try {
      expect(engine.webhooks.secret(APP)).toBe(secret);
      ok(await client.createPayment(paymentBody()));
      const [first] = await seedReceiver.waitFor((received) => received.length === 2);
      expect(() => new Webhook(secret).verify(first?.body ?? '', first?.headers ?? {})).not.toThrow();
    } finally {
      await client.close();
      await engine.stop();
      await seedReceiver.close();
    }
  });
});
