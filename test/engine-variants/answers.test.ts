/**
 * Each service variant over real HTTP: the engine answers the spec's silence the variant's way, and
 * the default engine (no variant) does not. One sandbox; each test starts from no variant.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/index';
import { send, transactionBody } from './http';

let sandbox: Sandbox;

beforeAll(async () => {
  // Transactions stay `processing` until a test settles them (control settleNow).
  sandbox = await startSandbox({ settleMs: 60_000 });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  sandbox.setVariants([]);
  sandbox.engine.control.setMaintenance(false);
});

type Transaction = Record<string, unknown> & { transaction_id: string; status: string };
const dataOf = (answer: { json<T>(): T }) => answer.json<{ data: Transaction }>().data;
const MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The payload of the last webhook delivery queued for a transaction (the text that is sent). */
function lastPayload(transactionId: string): { timestamp: string; data: Record<string, unknown> } {
  const delivery = sandbox.deliveries().filter((candidate) => candidate.transactionId === transactionId).at(-1);
  if (!delivery) throw new Error(`no delivery for ${transactionId}`);
  return JSON.parse(delivery.payload) as { timestamp: string; data: Record<string, unknown> };
}

describe('duplicates-accepted', () => {
  it('creates a second payout with a used external_id, and retrieve by external_id answers the latest', async () => {
    const body = transactionBody();
    const first = await send(sandbox, 'POST', '/v1/payouts/initiate', body);
    expect(first.status).toBe(200);
    const refused = await send(sandbox, 'POST', '/v1/payouts/initiate', body);
    expect(refused.status).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: { external_id: ['has already been used for a payout in this environment'] } });

    sandbox.setVariants(['duplicates-accepted']);
    const balanceBefore = sandbox.engine.control.walletBalance(sandbox.appId, 'sandbox');
    const second = await send(sandbox, 'POST', '/v1/payouts/initiate', { ...body, amount: 6000 });
    const third = await send(sandbox, 'POST', '/v1/payouts/initiate', { ...body, amount: 7000 });
    expect([second.status, third.status]).toEqual([200, 200]);
    const ids = [dataOf(first).transaction_id, dataOf(second).transaction_id, dataOf(third).transaction_id];
    expect(new Set(ids).size).toBe(3);
    // Each one is a payout of its own: the wallet paid both new ones (amount plus fee).
    const fees = sandbox.engine.api.feeFor('payout', 6000) + sandbox.engine.api.feeFor('payout', 7000);
    expect(sandbox.engine.control.walletBalance(sandbox.appId, 'sandbox')).toBe(balanceBefore - 13_000 - fees);

    const byExternalId = await send(sandbox, 'GET', `/v1/payouts/${String(body.external_id)}?identifier_type=external_id`);
    expect(byExternalId.status).toBe(200);
    expect(dataOf(byExternalId)).toMatchObject({ transaction_id: ids[2], amount: 7000 });
    // Switched off again, the used id is refused once more.
    sandbox.setVariants([]);
    expect((await send(sandbox, 'POST', '/v1/payouts/initiate', body)).status).toBe(422);
  });
});

describe('nulls-omitted', () => {
  it('leaves null fields out of initiate, retrieve, verify and the webhook payload', async () => {
    sandbox.setWebhookUrl('http://127.0.0.1:9/hook');
    const plain = await send(sandbox, 'POST', '/v1/payments', transactionBody());
    expect(dataOf(plain)).toMatchObject({ description: null, reason: null, failed_code: null, completed_at: null });
    expect((dataOf(plain).customer as Record<string, unknown>).metadata).toBeNull();

    sandbox.setVariants(['nulls-omitted']);
    const created = await send(sandbox, 'POST', '/v1/payments', transactionBody());
    const id = dataOf(created).transaction_id;
    const answers = [
      dataOf(created),
      dataOf(await send(sandbox, 'GET', `/v1/payments/${id}`)),
      dataOf(await send(sandbox, 'GET', `/v1/payments/${id}/verify`)),
      lastPayload(id).data,
    ];
    for (const data of answers) {
      for (const field of ['description', 'reason', 'failed_code', 'failed_at', 'cancelled_at', 'completed_at']) expect(data).not.toHaveProperty(field);
      expect(data.customer).not.toHaveProperty('metadata');
      expect(data).toMatchObject({ transaction_id: id, status: 'processing', amount: 5000 });
    }
    sandbox.setWebhookUrl(null);
  });
});

describe('millisecond-timestamps', () => {
  it('writes 3 fraction digits in every timestamp of answers and webhook payloads', async () => {
    sandbox.setWebhookUrl('http://127.0.0.1:9/hook');
    const plain = dataOf(await send(sandbox, 'POST', '/v1/payments', transactionBody()));
    expect(plain.created_at).toMatch(MICROS);
    expect(lastPayload(plain.transaction_id).timestamp).toMatch(MICROS);

    sandbox.setVariants(['millisecond-timestamps']);
    const id = dataOf(await send(sandbox, 'POST', '/v1/payments', transactionBody())).transaction_id;
    sandbox.engine.control.settleNow(id);
    const retrieved = dataOf(await send(sandbox, 'GET', `/v1/payments/${id}`));
    expect(retrieved.status).toBe('completed');
    for (const field of ['created_at', 'updated_at', 'completed_at']) expect(retrieved[field]).toMatch(MILLIS);
    const payload = lastPayload(id);
    expect(payload.timestamp).toMatch(MILLIS);
    expect(payload.data.completed_at).toMatch(MILLIS);
    sandbox.setWebhookUrl(null);
  });
});

describe('extra-fields', () => {
  it('adds fields a strict reader refuses, at the envelope and in the transaction', async () => {
    const plain = (await send(sandbox, 'POST', '/v1/payouts/initiate', transactionBody())).json<Record<string, unknown>>();
    expect(Object.keys(plain).sort()).toEqual(['data', 'message', 'success']);
    expect(plain.data).not.toHaveProperty('links');

    sandbox.setVariants(['extra-fields']);
    const created = await send(sandbox, 'POST', '/v1/payouts/initiate', transactionBody());
    const id = dataOf(created).transaction_id;
    for (const answer of [created, await send(sandbox, 'GET', `/v1/payouts/${id}`), await send(sandbox, 'GET', `/v1/payouts/${id}/verify`)]) {
      const envelope = answer.json<Record<string, unknown>>();
      expect(envelope).toMatchObject({ success: true, meta: { api_version: 'v1' } });
      expect(envelope.data).toMatchObject({
        transaction_id: id,
        provider_ref: expect.stringMatching(/^[0-9a-f-]{36}$/),
        links: { self: `/v1/payouts/${id}`, verify: `/v1/payouts/${id}/verify` },
        risk: { score: 0 },
      });
    }
  });
});

describe('unlisted-status', () => {
  it('answers `pending` while the transaction is not final, then the final status', async () => {
    expect(dataOf(await send(sandbox, 'POST', '/v1/payments', transactionBody())).status).toBe('processing');

    sandbox.setVariants(['unlisted-status']);
    const id = dataOf(await send(sandbox, 'POST', '/v1/payments', transactionBody())).transaction_id;
    expect(dataOf(await send(sandbox, 'GET', `/v1/payments/${id}`)).status).toBe('pending');
    expect(dataOf(await send(sandbox, 'GET', `/v1/payments/${id}/verify`)).status).toBe('pending');
    // The engine's own state is the default's: the variant only changes what the API says.
    expect(sandbox.engine.control.transaction(id)?.status).toBe('processing');
    sandbox.engine.control.settleNow(id);
    expect(dataOf(await send(sandbox, 'GET', `/v1/payments/${id}`)).status).toBe('completed');
  });

  it('answers `pending` at initiate too', async () => {
    sandbox.setVariants(['unlisted-status']);
    const created = await send(sandbox, 'POST', '/v1/payouts/initiate', transactionBody());
    expect(created.status).toBe(200);
    expect(dataOf(created).status).toBe('pending');
  });
});

describe('created-201', () => {
  it('answers a successful create with 201, reads with 200', async () => {
    expect((await send(sandbox, 'POST', '/v1/payments', transactionBody())).status).toBe(200);
    sandbox.setVariants(['created-201']);
    const payment = await send(sandbox, 'POST', '/v1/payments', transactionBody());
    const payout = await send(sandbox, 'POST', '/v1/payouts/initiate', transactionBody());
    expect([payment.status, payout.status]).toEqual([201, 201]);
    expect((await send(sandbox, 'GET', `/v1/payments/${dataOf(payment).transaction_id}`)).status).toBe(200);
  });
});

describe('gateway-html', () => {
  it('answers maintenance with an HTML page (no envelope, no Retry-After)', async () => {
    sandbox.engine.control.setMaintenance(true);
    const plain = await send(sandbox, 'GET', '/v1/payments/TE_none');
    expect(plain.status).toBe(503);
    expect(plain.headers.get('retry-after')).toBe('60');
    expect(plain.json()).toMatchObject({ success: false, code: 'MAINTENANCE_MODE' });

    sandbox.setVariants(['gateway-html']);
    for (const answer of [await send(sandbox, 'GET', '/v1/payments/TE_none'), await send(sandbox, 'POST', '/v1/payouts/initiate', transactionBody())]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.headers.get('retry-after')).toBeNull();
      expect(answer.text).toContain('<h1>503 Service Temporarily Unavailable</h1>');
      expect(() => answer.json()).toThrow();
    }
    // Other errors keep the envelope.
    sandbox.engine.control.setMaintenance(false);
    expect((await send(sandbox, 'GET', '/v1/payments/TE_none')).json()).toMatchObject({ success: false, code: 'PAYMENT_NOT_FOUND' });
  });
});
