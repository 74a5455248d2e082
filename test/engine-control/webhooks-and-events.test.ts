/**
 * Webhooks through the control API (URL, secret, deliveries, redeliver) and the live event stream
 * (server-sent events) a tool outside the process reads.
 */
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryPage, WebhookDelivery, WebhookEndpoint } from '../../packages/sandbox/src/engine';
import { ok, paymentBody, startTestEngine, type TestEngine } from '../engine/helpers';
import { startReceiver, type Receiver } from '../engine-webhooks/receiver';
import { control, data } from './control';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({ settleMs: 0 });
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

describe('webhooks through the control API', () => {
  it('sets the URL, shows the whsec_ secret, lists deliveries with attempts and redelivers one with the same id', async () => {
    const set = data(await control<WebhookEndpoint>(t.engine, 'PUT', `/applications/${APP}/webhook`, { url: receiver.url }));
    expect(set).toEqual({ url: receiver.url, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/), disabledAt: null });
    expect(data(await control<WebhookEndpoint>(t.engine, 'GET', `/applications/${APP}/webhook`))).toEqual(set);

    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    await receiver.waitFor((received) => received.length === 1);
    const listed = data(await control<DeliveryPage>(t.engine, 'GET', `/deliveries?app_id=${APP}`));
    await expect.poll(() => t.engine.webhooks.deliveries(APP)[0]?.status).toBe('delivered');
    const [delivery] = data(await control<DeliveryPage>(t.engine, 'GET', `/deliveries?app_id=${APP}`)).deliveries;
    expect(listed.deliveries).toHaveLength(1);
    expect(listed.nextCursor).toBeNull();
    expect(delivery).toMatchObject({ transactionId: created.transaction_id, eventType: 'payment.processing', status: 'delivered' });
    expect(delivery?.attempts).toEqual([{ at: expect.any(String), url: receiver.url, httpStatus: 200, error: null, durationMs: expect.any(Number) }]);
    // The list leaves the body out; one delivery has it, exactly as sent.
    expect(delivery).not.toHaveProperty('payload');
    expect(data(await control<WebhookDelivery>(t.engine, 'GET', `/deliveries/${delivery?.id}`))).toEqual({ ...delivery, payload: receiver.received[0]?.body });

    const again = await control<WebhookDelivery>(t.engine, 'POST', `/deliveries/${delivery?.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(data(again).status).toBe('pending');
    await receiver.waitFor((received) => received.length === 2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(delivery?.id);
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    await expect.poll(() => t.engine.webhooks.deliveries(APP)[0]?.attempts.length).toBe(2);

    // A rotated secret signs the next deliveries.
    const rotated = data(await control<WebhookEndpoint>(t.engine, 'POST', `/applications/${APP}/webhook/rotate-secret`));
    expect(rotated.secret).not.toBe(set.secret);
    data(await control(t.engine, 'POST', `/deliveries/${delivery?.id}/redeliver`));
    const [, , third] = await receiver.waitFor((received) => received.length === 3);
    expect(() => new Webhook(rotated.secret).verify(third?.body ?? '', third?.headers ?? {})).not.toThrow();
    expect(() => new Webhook(set.secret).verify(third?.body ?? '', third?.headers ?? {})).toThrow();
  });

  it('refuses bad URLs, unknown deliveries and redelivery without a URL precisely', async () => {
    const bad = await control(t.engine, 'PUT', `/applications/${APP}/webhook`, { url: 'javascript:alert(1)' });
    expect(bad).toMatchObject({ status: 422, body: { code: 'VALIDATION_ERROR', errors: { url: ['must be an http or https URL'] } } });
    const missingField = await control(t.engine, 'PUT', `/applications/${APP}/webhook`, {});
    expect(missingField.body.errors).toEqual({ url: ['must be a URL or null'] });
    expect((await control(t.engine, 'GET', '/deliveries/msg_nothing')).status).toBe(404);
    expect((await control(t.engine, 'POST', '/deliveries/msg_nothing/redeliver')).status).toBe(404);
    expect((await control(t.engine, 'PUT', '/applications/app_nobody/webhook', { url: receiver.url })).status).toBe(404);

    const [delivery] = t.engine.webhooks.deliveries(APP);
    data(await control(t.engine, 'PUT', `/applications/${APP}/webhook`, { url: null }));
    const refused = await control(t.engine, 'POST', `/deliveries/${delivery?.id}/redeliver`);
    expect(refused).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(refused.body.message).toMatch(/has no webhook URL/);
    data(await control(t.engine, 'PUT', `/applications/${APP}/webhook`, { url: receiver.url }));
  });
});

describe('the live event stream', () => {
  it('streams status changes and delivery attempts as server-sent events, and only with the token', async () => {
    const refused = await request(`${t.engine.api.url}/_sandbox/events`);
    expect(refused.statusCode).toBe(401);
    await refused.body.dump();

    const response = await request(`${t.engine.api.url}/_sandbox/events`, { headers: { authorization: `Bearer ${t.engine.control.adminToken}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const events: { event: string; data: Record<string, unknown> }[] = [];
    let buffer = '';
    let transactionId = '';
    const seen = (async () => {
      for await (const chunk of response.body) {
        buffer += (chunk as Buffer).toString('utf8');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.+)$/m.exec(frame)?.[1];
          const json = /^data: (.+)$/m.exec(frame)?.[1];
          if (name && json) events.push({ event: name, data: JSON.parse(json) as Record<string, unknown> });
        }
        const ours = (e: { data: Record<string, unknown> }) => JSON.stringify(e.data).includes(transactionId);
        const attempted = events.some((e) => e.event === 'webhook.delivery' && ours(e) && ((e.data.data as WebhookDelivery).attempts?.length ?? 0) > 0);
        if (transactionId && events.some((e) => e.event === 'status' && ours(e) && e.data.to === 'completed') && attempted) return;
      }
    })();
    // The stream is open (its first comment arrived with the headers): act now.
    transactionId = ok(await t.client.createPayment(paymentBody())).transaction_id;
    await seen;
    response.body.destroy();
    const statuses = events.filter((e) => e.event === 'status' && e.data.transactionId === transactionId).map((e) => e.data.to);
    expect(statuses).toEqual(['initiated', 'processing', 'completed']);
    expect(events.some((e) => e.event === 'wallet')).toBe(true);
  });

  it('ends open streams when the engine stops, so stopping never hangs', async () => {
    const other = await startTestEngine();
    const response = await request(`${other.engine.api.url}/_sandbox/events`, { headers: { authorization: `Bearer ${other.engine.control.adminToken}` } });
    const drained = response.body.text();
    await other.stop();
    await expect(drained).resolves.toContain(': paydesk sandbox events');
  });
});
