/**
 * At least once across restarts: deliveries pending when the engine stops (receiver down, or an
 * attempt in flight) are sent by the next engine on the same database file.
 */
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { clientFor, ok, paymentBody, profileFor, tempDir } from '../engine/helpers';
import { waitForDeliveries } from './deliveries';
import { startReceiver, type Receiver } from './receiver';

const APP = 'app_paydesk_demo';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function engineOn(db: string, timeoutMs = 5000): Promise<EngineHandle> {
  const engine = await startEngine({ db, port: 0, settleMs: 0, webhooks: { retryDelaysSeconds: [5, 30], jitter: 0.2, timeoutMs } });
  return engine;
}

describe('webhook delivery across a restart', () => {
  it('delivers what was pending when the engine stopped while the receiver was down', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = join(dir, 'sandbox.db');
    // A receiver that is down: its port refuses connections.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();

    const first = await engineOn(db);
    first.webhooks.setUrl(APP, `http://127.0.0.1:${port}/hooks`);
    const secret = first.webhooks.secret(APP);
    const client = clientFor(first, profileFor(first));
    const created = ok(await client.createPayment(paymentBody({ metadata: { order: 'survives-restart' } })));
    await client.close();
    const failedOnce = await waitForDeliveries(first, (list) => list.length === 2 && list.every((d) => d.attempts.length === 1 && d.status === 'pending'));
    expect(failedOnce.map((d) => d.attempts[0]?.error)).toEqual(['connection refused', 'connection refused']);
    await first.stop();

    let receiver: Receiver;
    try {
      receiver = await startReceiver(() => 200, port);
    } catch {
      // The freed port was taken meanwhile: point the stored URL at a new receiver instead.
      receiver = await startReceiver();
    }
    cleanups.push(() => receiver.close());
    const second = await engineOn(db);
    cleanups.push(() => second.stop());
    if (receiver.port !== port) second.webhooks.setUrl(APP, receiver.url);
    expect(second.webhooks.secret(APP)).toBe(secret);
    expect(second.webhooks.deliveries().every((d) => d.status === 'pending')).toBe(true);
    // The retry is due 5-6 s after the failure; the new engine's clock is moved, not waited for.
    second.clock.advance(7);
    await receiver.waitFor((received) => received.length === 2);
    const delivered = await waitForDeliveries(second, (list) => list.every((d) => d.status === 'delivered'));
    expect(delivered.map((d) => d.attempts.map((a) => a.error ?? a.httpStatus))).toEqual([
      ['connection refused', 200],
      ['connection refused', 200],
    ]);
    const verifier = new Webhook(secret);
    for (const webhook of receiver.received) {
      verifier.verify(webhook.body, webhook.headers);
      expect(webhook.json.data.transaction_id).toBe(created.transaction_id);
      expect(webhook.json.data.metadata).toEqual({ order: 'survives-restart' });
    }
    expect(new Set(receiver.received.map((webhook) => webhook.headers['webhook-id']))).toEqual(new Set(failedOnce.map((d) => d.id)));
  });

  it('sends again an attempt that was in flight when the engine stopped (its lease runs out)', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = join(dir, 'sandbox.db');
    let hang = true;
    const receiver = await startReceiver(() => (hang ? 'hang' : 200));
    cleanups.push(() => receiver.close());

    const first = await engineOn(db, 30_000);
    first.webhooks.setUrl(APP, receiver.url);
    const client = clientFor(first, profileFor(first));
    const created = ok(await client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    await client.close();
    await receiver.waitFor((received) => received.length === 1);
    // Stopped mid-attempt: nothing is recorded, the delivery stays pending.
    await first.stop();

    hang = false;
    const second = await engineOn(db, 30_000);
    cleanups.push(() => second.stop());
    const [pending] = second.webhooks.deliveries();
    expect(pending).toMatchObject({ transactionId: created.transaction_id, status: 'pending', attempts: [] });
    second.clock.advance(31 + 1);
    await receiver.waitFor((received) => received.length === 2);
    const [delivered] = await waitForDeliveries(second, (list) => list[0]?.status === 'delivered');
    expect(delivered?.attempts.map((attempt) => attempt.httpStatus)).toEqual([200]);
    expect(receiver.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([pending?.id, pending?.id]);
  });
});
