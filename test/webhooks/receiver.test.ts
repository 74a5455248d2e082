/**
 * The service's webhooks received (issue 38 item 3): a callback is a trigger to read the service,
 * never the truth. The real engine over HTTP behind a proxy that counts the console's reads, a
 * console core on a journal file, and the receiver on a real HTTP port where the engine delivers
 * its signed webhooks (chaos: duplicates, out of order). Each callback costs at most one read of
 * what it names; its body is never recorded; forged, repeated and out-of-order callbacks change
 * nothing the service does not say; a flood is bounded.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { createWebhookReceiver, referenceOf, verifySignature, type WebhookReceiver } from '../../electron/webhooks/receiver';
import type { Clock } from '../../electron/console/deps';
import { makeTempDir } from '../temp-dir';
import { startGateProxy, type GateProxy } from '../console/gate-proxy';
import { activateEngineProfile, expectOk, paymentRequest, startRuntime } from '../console/helpers';
import { memoryKeyring } from '../helpers/memory-keyring';

/** Real time whose waits end only when the console closes. */
const waitsForever: Clock = {
  now: Date.now,
  sleep: (_ms, signal) =>
    new Promise((_resolve, reject) => {
      if (signal?.aborted) reject(new Error('aborted'));
      signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }),
};

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let engine: EngineHandle;
let proxy: GateProxy;
let runtime: Runtime;
let receiver: WebhookReceiver;
let server: Server;
let receiverUrl: string;

beforeAll(async () => {
  // Transactions stay `processing` until the test moves the engine clock (settle after 60 s).
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-webhooks-engine-'), 'sandbox.db'), settleMs: 60_000, rateLimit: { perKeyPerMinute: 0 } });
  proxy = await startGateProxy(engine.api.url);
  // The watcher's and sweeper's waits never end (until the console closes): only callbacks make it read.
  runtime = await startRuntime({ engine: false, keyring: memoryKeyring(), clock: waitsForever });
  await activateEngineProfile(runtime, proxy.url, 'Webhooks', engine);
  receiver = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference), secret: engine.webhooks.secret(engine.api.applications()[0]!.id), minIntervalMs: 200 });
  server = createServer((request, response) => receiver.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/service`;
}, 60_000);

afterAll(async () => {
  receiver?.close();
  await new Promise((resolve) => server?.close(resolve));
  await runtime?.close();
  if (runtime) rmSync(runtime.dir, { recursive: true, force: true });
  await proxy?.close();
  await engine?.stop();
});

const appId = () => engine.api.applications()[0]!.id;
/** The console's reads of one transaction at the service (by transaction id or external id). */
const readsOf = (transactionId: string, externalId: string) => proxy.seen.filter((request) => request.method === 'GET' && (request.path.includes(transactionId) || request.path.includes(externalId))).length;

async function sendPayout(externalId: string) {
  const request = { ...paymentRequest({ external_id: externalId }), payment_method: 'momo_cm' };
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  const entry = expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
  expect(entry.status).toBe('processing');
  return entry;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; message: string }> {
  const response = await fetch(receiverUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, message: ((await response.json()) as { message: string }).message };
}

describe('what a callback names', () => {
  it('takes the transaction id and external id wherever the payload puts them, the kind from the event type, and says what is missing', () => {
    expect(referenceOf({ type: 'payout.completed', data: { transaction_id: 'tx_1', external_id: 'E-1', status: 'completed' } })).toEqual({ transactionId: 'tx_1', externalId: 'E-1', kind: 'payout' });
    expect(referenceOf({ transaction_id: 'tx_2' })).toEqual({ transactionId: 'tx_2' });
    expect(referenceOf({ event: 'payment.failed', data: { external_id: 'E-3' } })).toEqual({ externalId: 'E-3', kind: 'payment' });
    expect(referenceOf({ data: { status: 'completed' } })).toEqual({ error: 'the callback names no transaction_id nor external_id' });
    expect(referenceOf([1, 2])).toEqual({ error: 'the callback body is not a JSON object' });
  });

  it('checks a Standard Webhooks signature when the receiver has a secret', () => {
    const secret = engine.webhooks.secret(appId());
    const body = '{"type":"payout.completed"}';
    const now = Math.floor(Date.now() / 1000);
    const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`msg_1.${now}.${body}`).digest('base64');
    expect(verifySignature(secret, { id: 'msg_1', timestamp: String(now), signature: `v1,${mac}` }, body, now)).toBeNull();
    expect(verifySignature(secret, { id: 'msg_1', timestamp: String(now), signature: `v1,${mac}` }, `${body} `, now)).toBe('no webhook-signature matches this body');
    expect(verifySignature(secret, { id: 'msg_1', timestamp: String(now - 301), signature: `v1,${mac}` }, body, now)).toBe('webhook-timestamp is more than 5 minutes from now');
    expect(verifySignature(secret, { id: 'msg_1', timestamp: String(now) }, body, now)).toBe('the webhook-id, webhook-timestamp and webhook-signature headers are required');
  });
});

describe('the engine\'s own webhooks, delivered to the receiver', () => {
  it('a completed payout reaches the journal through its webhook: one read of the service, what the service says recorded', async () => {
    engine.webhooks.setUrl(appId(), receiverUrl);
    const entry = await sendPayout('HOOK-1');
    // Processing at the service; the console does not poll (its waits never end in this test).
    await receiver.idle();
    const before = readsOf(entry.transactionId!, 'HOOK-1');
    engine.clock.advance(61); // the customer answers: completed, and the engine sends payout.completed
    await expect.poll(async () => expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id })).transaction.status, { timeout: 30_000 }).toBe('completed');
    await receiver.idle();
    const delivered = engine.webhooks.deliveries(appId()).filter((delivery) => delivery.transactionId === entry.transactionId);
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    // The processing callback (sent at initiate) and the completed one: at most one read each.
    expect(readsOf(entry.transactionId!, 'HOOK-1') - before).toBeGreaterThanOrEqual(1);
    expect(readsOf(entry.transactionId!, 'HOOK-1')).toBeLessThanOrEqual(delivered.length);
    const { timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id }));
    expect(timeline.map((event) => event.message)).toContain('status seen while following up');
  }, 60_000);

  it('duplicated and out-of-order deliveries change nothing the service does not say', async () => {
    engine.webhooks.chaos.set(appId(), { seed: 7, duplicate: { rate: 1 }, out_of_order: { rate: 1, hold_seconds: 1 } });
    try {
      const entry = await sendPayout('HOOK-2');
      engine.clock.advance(61);
      await expect.poll(async () => expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id })).transaction.status, { timeout: 30_000 }).toBe('completed');
      engine.clock.advance(5); // the held processing event (out of order) and the duplicates go out after
      await expect.poll(() => engine.webhooks.deliveries(appId()).filter((delivery) => delivery.transactionId === entry.transactionId && delivery.status === 'pending').length, { timeout: 30_000 }).toBe(0);
      await receiver.idle();
      // Still completed: a late `processing` callback made the console read, and the service said completed.
      expect(expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id })).transaction.status).toBe('completed');
    } finally {
      engine.webhooks.chaos.clear(appId());
    }
  }, 60_000);
});

describe('callbacks that are not the service', () => {
  // The engine's own deliveries stop here: what is counted below is the test's callbacks alone.
  beforeAll(() => engine.webhooks.setUrl(appId(), null));

  it('refuses an unsigned or badly signed delivery before anything is read', async () => {
    const reads = proxy.seen.length;
    expect(await post({ type: 'payout.completed', data: { transaction_id: 'tx_forged' } })).toEqual({ status: 401, message: 'the webhook-id, webhook-timestamp and webhook-signature headers are required' });
    const now = String(Math.floor(Date.now() / 1000));
    expect((await post({ data: { transaction_id: 'tx_forged' } }, { 'webhook-id': 'msg_x', 'webhook-timestamp': now, 'webhook-signature': 'v1,AAAA' })).status).toBe(401);
    expect(receiver.stats().refused.badSignature).toBeGreaterThanOrEqual(2);
    expect(proxy.seen.length).toBe(reads);
  });

  it('a forged "completed" for a processing payout is read, and the service\'s processing stays', async () => {
    const entry = await sendPayout('HOOK-3');
    await receiver.idle();
    const before = readsOf(entry.transactionId!, 'HOOK-3');
    // Unsigned receiver of the same console: what a company would run without a signing secret.
    const open = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference) });
    expect(open.accept({ type: 'payout.completed', data: { transaction_id: entry.transactionId, external_id: 'HOOK-3', status: 'completed', amount: 1 } }).status).toBe(202);
    await open.idle();
    expect(readsOf(entry.transactionId!, 'HOOK-3') - before).toBe(1);
    const after = expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id })).transaction;
    expect(after.status).toBe('processing');
    expect(after.amount).toBe(entry.amount);
    open.close();
  }, 30_000);

  it('a callback for a transaction the journal does not hold, or one already final, costs no read', async () => {
    const open = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference) });
    const reads = proxy.seen.length;
    open.accept({ type: 'payout.completed', data: { transaction_id: 'tx_nobody', external_id: 'NOBODY' } });
    open.accept({ type: 'payout.completed', data: { transaction_id: 'tx_nobody_2' } });
    const final = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'HOOK-1' }, offset: 0, limit: 1 })).rows[0]!;
    open.accept({ type: 'payout.completed', data: { transaction_id: final.transactionId, external_id: 'HOOK-1' } });
    await open.idle();
    expect(proxy.seen.length).toBe(reads);
    expect(open.stats()).toMatchObject({ received: 3, reads: 3 });
    open.close();
  });

  it('a flood naming one open payout costs one read and one trailing read; beyond the bound, 429', async () => {
    const entry = await sendPayout('HOOK-4');
    await receiver.idle();
    const before = readsOf(entry.transactionId!, 'HOOK-4');
    const open = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference), maxWaiting: 2, minIntervalMs: 100 });
    const answers = Array.from({ length: 500 }, () => open.accept({ type: 'payout.processing', data: { transaction_id: entry.transactionId } }).status);
    expect(answers.every((status) => status === 202)).toBe(true);
    await open.idle();
    expect(readsOf(entry.transactionId!, 'HOOK-4') - before).toBeLessThanOrEqual(2);
    expect(open.stats().coalesced).toBeGreaterThanOrEqual(498);
    // Two other references wait (their reads held back by the interval): a third is refused.
    open.accept({ data: { transaction_id: entry.transactionId } });
    open.accept({ data: { transaction_id: 'tx_other_1' } });
    expect(open.accept({ data: { transaction_id: 'tx_other_2' } })).toEqual({ status: 429, message: 'too many callbacks waiting (2): retry later' });
    await open.idle();
    open.close();
  }, 30_000);

  it('answers a body that is not JSON, names nothing or is too large with a precise error', async () => {
    const open = createWebhookReceiver({ follow: (reference) => runtime.followReference(reference) });
    const local = createServer((request, response) => open.handle(request, response));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}/`;
    const send = async (body: string) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return [response.status, ((await response.json()) as { message: string }).message];
    };
    expect(await send('not json')).toEqual([400, 'the callback body is not JSON']);
    expect(await send('{"data":{}}')).toEqual([400, 'the callback names no transaction_id nor external_id']);
    expect(await send(JSON.stringify({ data: { transaction_id: 'x' }, pad: 'x'.repeat(70_000) }))).toEqual([413, 'a callback is at most 65536 bytes']);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    await new Promise((resolve) => local.close(resolve));
    open.close();
  });
});

