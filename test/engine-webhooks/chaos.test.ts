/**
 * Webhook chaos per application and a scenario's webhook effect, seen from a real receiver on
 * loopback: dropped, duplicated (same webhook-id), out of order, late on the engine clock; every
 * delivery records what was done to it; the same seed replays the same decisions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookChaos, WebhookDelivery } from '../../packages/sandbox/src/engine';
import { control, data } from '../engine-control/control';
import { ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from '../engine/helpers';
import { waitForDeliveries } from './deliveries';
import { startReceiver, type Receiver, type ReceivedWebhook } from './receiver';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({ settleMs: 0, webhooks: { jitter: 0 } });
  t.engine.webhooks.setUrl(APP, receiver.url);
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});
afterEach(async () => {
  expect((await control(t.engine, 'DELETE', `/applications/${APP}/webhook-chaos`)).status).toBe(200);
});

function eventsFor(transactionId: string): ReceivedWebhook[] {
  return receiver.received.filter((webhook) => webhook.json.data.transaction_id === transactionId);
}

function deliveriesOf(transactionId: string): WebhookDelivery[] {
  return t.engine.webhooks.deliveries(APP).filter((delivery) => delivery.transactionId === transactionId);
}

/** Resolves with a transaction's delivery records once they satisfy `predicate`. */
async function recordsSettle(transactionId: string, predicate: (deliveries: WebhookDelivery[]) => boolean): Promise<WebhookDelivery[]> {
  const ofTransaction = (all: WebhookDelivery[]) => all.filter((delivery) => delivery.transactionId === transactionId);
  return ofTransaction(await waitForDeliveries(t.engine, (all) => predicate(ofTransaction(all)), { appId: APP }));
}

async function setChaos(body: Record<string, unknown>): Promise<WebhookChaos> {
  return data(await control<{ chaos: WebhookChaos }>(t.engine, 'PUT', `/applications/${APP}/webhook-chaos`, body)).chaos;
}

async function payAndSettle(phone = '+237650000001'): Promise<string> {
  const created = ok(await t.client.createPayment(paymentBody({ phone_number: phone })));
  await waitForStatus(t.engine, created.transaction_id, 'completed');
  return created.transaction_id;
}

describe('webhook chaos', () => {
  it('is off by default', async () => {
    expect(data(await control(t.engine, 'GET', `/applications/${APP}/webhook-chaos`))).toEqual({ enabled: false, chaos: null });
    const id = await payAndSettle();
    await receiver.waitFor(() => eventsFor(id).length === 2);
    expect(deliveriesOf(id).map((delivery) => delivery.chaos)).toEqual([[], []]);
  });

  it('drop (count 1): the next event never reaches the receiver, and its delivery says why', async () => {
    await setChaos({ drop: { count: 1 } });
    const id = await payAndSettle();
    await receiver.waitFor(() => eventsFor(id).some((event) => event.json.type === 'payment.completed'));
    expect(eventsFor(id).map((event) => event.json.type)).toEqual(['payment.completed']);
    const dropped = deliveriesOf(id).find((delivery) => delivery.eventType === 'payment.processing');
    expect(dropped).toMatchObject({ status: 'failed', attempts: [], chaos: [{ effect: 'drop', source: 'chaos' }] });
    expect(dropped?.lastError).toContain('never sent');
    // The count is spent.
    expect(data(await control<{ chaos: WebhookChaos }>(t.engine, 'GET', `/applications/${APP}/webhook-chaos`)).chaos.drop).toEqual({ count: 0 });
  });

  it('duplicate (rate 1): every event arrives twice with the same webhook-id and body', async () => {
    await setChaos({ duplicate: { rate: 1 } });
    const id = await payAndSettle();
    await receiver.waitFor(() => eventsFor(id).length === 4);
    const events = eventsFor(id);
    const byId = new Map<string, string[]>();
    for (const event of events) byId.set(event.headers['webhook-id'] as string, [...(byId.get(event.headers['webhook-id'] as string) ?? []), event.body]);
    expect([...byId.values()].map((bodies) => bodies.length)).toEqual([2, 2]);
    for (const bodies of byId.values()) expect(bodies[0]).toBe(bodies[1]);
    for (const delivery of await recordsSettle(id, (all) => all.every((d) => d.status === 'delivered'))) {
      expect(delivery.attempts.map((attempt) => attempt.httpStatus)).toEqual([200, 200]);
      expect(delivery.chaos).toMatchObject([{ effect: 'duplicate', source: 'chaos' }]);
      expect(delivery.status).toBe('delivered');
    }
  });

  it('out of order (count 1): the final event reaches the receiver before processing', async () => {
    await setChaos({ out_of_order: { count: 1 } });
    const id = await payAndSettle();
    await receiver.waitFor(() => eventsFor(id).length === 2);
    expect(eventsFor(id).map((event) => event.json.type)).toEqual(['payment.completed', 'payment.processing']);
    const held = deliveriesOf(id).find((delivery) => delivery.eventType === 'payment.processing');
    expect(held?.chaos).toMatchObject([{ effect: 'out_of_order', source: 'chaos', seconds: 60 }]);
  });

  it('late (rate 1, 30 s): nothing arrives until the engine clock passes 30 s', async () => {
    await setChaos({ late: { rate: 1, seconds: 30 } });
    const id = await payAndSettle();
    const deliveries = deliveriesOf(id);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) {
      expect(delivery.status).toBe('pending');
      expect(Date.parse(delivery.nextAttemptAt as string) - Date.parse(delivery.createdAt)).toBe(30_000);
      expect(delivery.chaos).toMatchObject([{ effect: 'late', seconds: 30 }]);
    }
    expect(eventsFor(id)).toEqual([]);
    t.engine.clock.advance(31);
    await receiver.waitFor(() => eventsFor(id).length === 2);
  });

  it('the same seed replays the same decisions', async () => {
    async function run(): Promise<string[]> {
      const chaos = await setChaos({ seed: 4242, drop: { rate: 0.5 }, duplicate: { rate: 0.3 } });
      expect(chaos).toMatchObject({ seed: 4242, draws: 0 });
      const pattern: string[] = [];
      for (let index = 0; index < 8; index += 1) {
        const id = await payAndSettle();
        for (const delivery of deliveriesOf(id)) pattern.push(`${delivery.eventType}:${delivery.chaos.map((c) => c.effect).join('+') || 'none'}`);
      }
      return pattern;
    }
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    // A rate of 0.5 over 16 draws drops some and lets some through.
    expect(first.some((entry) => entry.includes('drop'))).toBe(true);
    expect(first.some((entry) => entry.endsWith(':none'))).toBe(true);
  });

  it('refuses bad settings with a 422 naming each field', async () => {
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{}, { drop: ['give at least one of duplicate, out_of_order, late, drop (DELETE turns chaos off)'] }],
      [{ drop: {} }, { 'drop.rate': ['give exactly one of rate and count'] }],
      [{ drop: { rate: 0.5, count: 2 } }, { 'drop.count': ['give exactly one of rate and count'] }],
      [{ duplicate: { rate: 1.5 } }, { 'duplicate.rate': ['must be from 0 to 1'] }],
      [{ late: { rate: 1 } }, { 'late.seconds': ['must be a number'] }],
      [{ late: { count: 0, seconds: 5 } }, { 'late.count': ['must be at least 1'] }],
      [{ drop: { count: 1 }, seed: -1 }, { seed: ['must be 0 or more'] }],
      [{ drop: { count: 1 }, lost: { rate: 1 } }, { lost: ['is not a known field'] }],
    ];
    for (const [body, errors] of cases) {
      const answer = await control(t.engine, 'PUT', `/applications/${APP}/webhook-chaos`, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.errors, JSON.stringify(body)).toEqual(errors);
    }
    expect((await control(t.engine, 'PUT', '/applications/app_none/webhook-chaos', { drop: { count: 1 } })).status).toBe(404);
  });
});

describe("a scenario's webhook effect", () => {
  it('duplicates only the deliveries of the transactions it steers', async () => {
    const scenario = data(await control<{ id: string }>(t.engine, 'POST', '/scenarios', { phone_number: '+237677000401', status: 'completed', webhooks: 'duplicate' }));
    const steered = await payAndSettle('+237677000401');
    const plain = await payAndSettle('+237650000001');
    await receiver.waitFor(() => eventsFor(steered).length === 4 && eventsFor(plain).length === 2);
    expect(deliveriesOf(steered).map((delivery) => delivery.chaos)).toEqual([
      [expect.objectContaining({ effect: 'duplicate', source: 'scenario', scenarioId: scenario.id })],
      [expect.objectContaining({ effect: 'duplicate', source: 'scenario', scenarioId: scenario.id })],
    ]);
    expect(deliveriesOf(plain).map((delivery) => delivery.chaos)).toEqual([[], []]);
    await control(t.engine, 'DELETE', '/scenarios');
  });

  it('drop: a scenario can make a transaction silent to the receiver', async () => {
    await control(t.engine, 'POST', '/scenarios', { external_id: 'silent-order-1', status: 'failed', failed_code: 'EXPIRED', webhooks: 'drop' });
    const created = ok(await t.client.createPayment(paymentBody({ external_id: 'silent-order-1' })));
    await waitForStatus(t.engine, created.transaction_id, 'failed');
    const marker = await payAndSettle();
    await receiver.waitFor(() => eventsFor(marker).length === 2);
    expect(eventsFor(created.transaction_id)).toEqual([]);
    expect(deliveriesOf(created.transaction_id).map((delivery) => delivery.status)).toEqual(['failed', 'failed']);
    await control(t.engine, 'DELETE', '/scenarios');
  });
});
