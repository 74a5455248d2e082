/**
 * `GET /_sandbox/deliveries` pages: newest first, `limit` (default 50, at most 500) and an opaque
 * `cursor` that stays put while new deliveries arrive; list items leave the body out. The
 * console's Sandbox panel reads the first page through the same engine call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryPage, WebhookDeliverySummary } from '../../packages/sandbox/src/engine';
import { HandlerFailure } from '../../electron/console/handlers/context';
import { sandboxControlFrom } from '../../electron/console/sandbox-engine';
import { CHANNEL_INPUTS } from '../../shared/api/channels';
import { ok, paymentBody, startTestEngine, type TestEngine } from '../engine/helpers';
import { startReceiver, type Receiver } from '../engine-webhooks/receiver';
import { control, data } from './control';

const APP = 'app_paydesk_demo';
let t: TestEngine;
let receiver: Receiver;

/** Payments whose customer never answers: one delivery (payment.processing) each, awaited until recorded as delivered. */
async function createDeliveries(count: number): Promise<void> {
  const target = t.engine.webhooks.deliveries().length + count;
  const allDelivered = () => {
    const all = t.engine.webhooks.deliveries();
    return all.length === target && all.every((delivery) => delivery.status === 'delivered');
  };
  const done = new Promise<void>((resolve) => {
    const unsubscribe = t.engine.onEvent((event) => {
      if (event.type === 'extension' && event.topic === 'webhook.delivery' && allDelivered()) {
        unsubscribe();
        resolve();
      }
    });
  });
  for (let index = 0; index < count; index += 1) ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
  await done;
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestEngine({ settleMs: 0, rateLimit: { perKeyPerMinute: 0 } });
  t.engine.webhooks.setUrl(APP, receiver.url);
  await createDeliveries(120);
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

async function page(query: string): Promise<DeliveryPage> {
  return data(await control<DeliveryPage>(t.engine, 'GET', `/deliveries${query}`));
}

const newestFirstIds = () => t.engine.webhooks.deliveries().map((delivery) => delivery.id).reverse();

describe('GET /_sandbox/deliveries paging', () => {
  it('answers the 50 newest by default, without payloads, with the documented fields', async () => {
    const first = await page('');
    expect(first.deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(0, 50));
    expect(first.nextCursor).toEqual(expect.any(String));
    const sample = first.deliveries[0] as WebhookDeliverySummary;
    expect(sample).not.toHaveProperty('payload');
    expect(Object.keys(sample).sort()).toEqual(['appId', 'attempts', 'chaos', 'createdAt', 'eventType', 'finishedAt', 'id', 'lastError', 'nextAttemptAt', 'status', 'transactionId']);
    expect(sample.eventType).toBe('payment.processing');
    expect(Object.keys(sample.attempts[0] ?? {}).sort()).toEqual(['at', 'durationMs', 'error', 'httpStatus', 'url']);
  });

  it('walks every delivery once with limit and nextCursor, and ends with nextCursor null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const next: DeliveryPage = await page(`?app_id=${APP}&limit=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(next.deliveries.length).toBeLessThanOrEqual(7);
      seen.push(...next.deliveries.map((delivery) => delivery.id));
      cursor = next.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual(newestFirstIds());
    expect(pages).toBe(Math.ceil(seen.length / 7));
    expect((await page('?limit=500')).deliveries).toHaveLength(seen.length);
    expect((await page('?app_id=app_nobody')).deliveries).toEqual([]);
  });

  it('keeps its place while new deliveries arrive', async () => {
    const original = newestFirstIds();
    const first = await page('?limit=10');
    await createDeliveries(5);
    const second = await page(`?limit=10&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
    expect(second.deliveries.map((delivery) => delivery.id)).toEqual(original.slice(10, 20));
    // The new ones are at the top of a fresh first page.
    expect((await page('?limit=5')).deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(0, 5));
  });

  it('refuses a bad limit or cursor with 422 naming the parameter, never a 500', async () => {
    for (const [query, field, message] of [
      ['?limit=0', 'limit', 'must be a whole number from 1 to 500'],
      ['?limit=501', 'limit', 'must be a whole number from 1 to 500'],
      ['?limit=-3', 'limit', 'must be a whole number from 1 to 500'],
      ['?limit=1.5', 'limit', 'must be a whole number from 1 to 500'],
      ['?limit=ten', 'limit', 'must be a whole number from 1 to 500'],
      ['?limit=5&limit=6', 'limit', 'must be given once'],
      ['?cursor=abc', 'cursor', 'is not a nextCursor returned by an earlier page'],
      ['?cursor=dlv1.bm9wZQ', 'cursor', 'is not a nextCursor returned by an earlier page'],
      ['?cursor=', 'cursor', 'is not a nextCursor returned by an earlier page'],
      ['?offset=10', 'offset', 'is not a known field'],
    ] as const) {
      const answer = await control(t.engine, 'GET', `/deliveries${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body, query).toMatchObject({ success: false, code: 'VALIDATION_ERROR', errors: { [field]: [message] } });
    }
  });
});

describe('the console reads the first page', () => {
  it('shows the 50 newest of its application, newest first, and follows nextCursor', async () => {
    const console = sandboxControlFrom(t.engine);
    const first = await console.deliveries!();
    expect(first.deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(0, 50));
    expect(first.deliveries[0]).toMatchObject({ url: receiver.url, state: 'delivered', eventType: 'payment.processing' });
    const second = await console.deliveries!(first.nextCursor ?? undefined);
    expect(second.deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(50, 100));
    expect(() => console.deliveries!('dlv1.bogus')).toThrow(HandlerFailure);
    expect(CHANNEL_INPUTS['sandbox:deliveries'].safeParse({}).success).toBe(true);
    expect(CHANNEL_INPUTS['sandbox:deliveries'].safeParse({ cursor: first.nextCursor }).success).toBe(true);
    expect(CHANNEL_INPUTS['sandbox:deliveries'].safeParse({ cursor: '' }).success).toBe(false);
  });
});

describe('the console pages further with a limit', () => {
  it('answers `limit` deliveries after the cursor, and refuses a bad limit naming it', async () => {
    const console = sandboxControlFrom(t.engine);
    const first = await console.deliveries!(undefined, 7);
    expect(first.deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(0, 7));
    const next = await console.deliveries!(first.nextCursor ?? undefined, 120);
    expect(next.deliveries.map((delivery) => delivery.id)).toEqual(newestFirstIds().slice(7, 127));
    expect(CHANNEL_INPUTS['sandbox:deliveries'].parse({ limit: 500, cursor: first.nextCursor })).toEqual({ limit: 500, cursor: first.nextCursor });
    for (const limit of [0, 501, 1.5, '20', null]) {
      const parsed = CHANNEL_INPUTS['sandbox:deliveries'].safeParse({ limit });
      expect(parsed.success, String(limit)).toBe(false);
      expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message]), String(limit)).toEqual([['limit', 'must be a whole number from 1 to 500']]);
    }
  });
});
