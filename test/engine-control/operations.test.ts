/**
 * The control API's operations over real HTTP, each checked through the public API it changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FullTransaction } from '../../shared/contract';
import type { SeededApplication, SeededKey, LedgerRow } from '../../packages/sandbox/src/engine';
import { clientFor, ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from '../engine/helpers';
import { control, data } from './control';

const APP = 'app_paydesk_demo';
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ settleMs: 0, expirySeconds: 120 });
});
afterAll(async () => {
  await t.stop();
});

function clientForApp(app: SeededApplication, environment: 'sandbox' | 'live' = 'sandbox') {
  const key = (type: 'payment' | 'payout') => app.keys.find((k) => k.environment === environment && k.type === type && k.active) as SeededKey;
  const secrets = Object.fromEntries(app.keys.map((k) => [k.publicKey, k.secretKey]));
  return clientFor(t.engine, { baseUrl: t.engine.api.url, environment, paymentPublicKey: key('payment').publicKey, payoutPublicKey: key('payout').publicKey }, secrets);
}

async function errorCodeOf(promise: Promise<{ kind: string } & Record<string, unknown>>): Promise<string> {
  const result = await promise;
  if (result.kind !== 'api-error') throw new Error(`expected an API error, got ${JSON.stringify(result)}`);
  return (result as unknown as { code: string }).code;
}

describe('applications and keys', () => {
  it('creates an application with working key pairs, lists it, deactivates, activates and approves live mode', async () => {
    const created = await control<SeededApplication>(t.engine, 'POST', '/applications', { id: 'app_from_control', name: 'From Control' });
    expect(created.status).toBe(201);
    const app = data(created);
    expect(app.keys.map((k) => `${k.environment}/${k.type}`).sort()).toEqual(['live/payment', 'live/payout', 'sandbox/payment', 'sandbox/payout']);
    expect(data(await control<SeededApplication[]>(t.engine, 'GET', '/applications')).map((a) => a.id)).toContain('app_from_control');

    const client = clientForApp(app);
    ok(await client.createPayment(paymentBody()));
    data(await control(t.engine, 'PATCH', '/applications/app_from_control', { status: 'inactive' }));
    expect(await errorCodeOf(client.createPayment(paymentBody()))).toBe('APP_NOT_ACTIVE');
    data(await control(t.engine, 'PATCH', '/applications/app_from_control', { status: 'pending' }));
    expect(await errorCodeOf(client.createPayment(paymentBody()))).toBe('APPLICATION_NOT_ACTIVE');
    data(await control(t.engine, 'PATCH', '/applications/app_from_control', { status: 'active' }));
    ok(await client.createPayment(paymentBody()));

    const live = clientForApp(app, 'live');
    expect(await errorCodeOf(live.createPayment(paymentBody({ payment_method: 'momo_cm' })))).toBe('LIVE_MODE_NOT_ENABLED');
    const approved = data(await control<SeededApplication>(t.engine, 'PATCH', '/applications/app_from_control', { liveApproved: true }));
    expect(approved.liveApproved).toBe(true);
    ok(await live.createPayment(paymentBody({ payment_method: 'momo_cm' })));
    await Promise.all([client.close(), live.close()]);

    const duplicate = await control(t.engine, 'POST', '/applications', { id: 'app_from_control', name: 'Again' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 'CONFLICT', errors: { id: ['is used by another application'] } });
  });

  it('disables a key, sets its IP whitelist, rotates its secret and adds a key', async () => {
    const app = data(await control<SeededApplication>(t.engine, 'POST', '/applications', { name: 'Key Shop' }));
    const payment = app.keys.find((k) => k.environment === 'sandbox' && k.type === 'payment') as SeededKey;
    const before = clientForApp(app);
    ok(await before.createPayment(paymentBody()));

    data(await control(t.engine, 'PATCH', `/keys/${payment.publicKey}`, { ipWhitelist: ['10.9.9.9'] }));
    expect(await errorCodeOf(before.createPayment(paymentBody()))).toBe('FORBIDDEN');
    data(await control(t.engine, 'PATCH', `/keys/${payment.publicKey}`, { ipWhitelist: ['127.0.0.1', '::1'] }));
    ok(await before.createPayment(paymentBody()));

    const rotated = data(await control<SeededKey>(t.engine, 'POST', `/keys/${payment.publicKey}/rotate`));
    expect(rotated.publicKey).toBe(payment.publicKey);
    expect(rotated.secretKey).not.toBe(payment.secretKey);
    expect(await errorCodeOf(before.createPayment(paymentBody()))).toBe('INVALID_DIGITAL_SIGNATURE');
    const refreshed = data(await control<SeededApplication>(t.engine, 'GET', `/applications/${app.id}`));
    const after = clientForApp(refreshed);
    ok(await after.createPayment(paymentBody()));

    const disabled = data(await control<SeededKey>(t.engine, 'PATCH', `/keys/${payment.publicKey}`, { active: false }));
    expect(disabled.active).toBe(false);
    expect(await errorCodeOf(after.createPayment(paymentBody()))).toBe('INVALID_API_KEY');

    const withNew = data(await control<SeededApplication>(t.engine, 'POST', `/applications/${app.id}/keys`, { environment: 'sandbox', type: 'payment' }));
    expect(withNew.keys.filter((k) => k.environment === 'sandbox' && k.type === 'payment')).toHaveLength(2);
    const third = clientForApp(withNew);
    ok(await third.createPayment(paymentBody()));
    await Promise.all([before.close(), after.close(), third.close()]);

    expect((await control(t.engine, 'PATCH', '/keys/pk_sandbox_payment_nobody', { active: false })).status).toBe(404);
  });
});

describe('wallets', () => {
  it('tops up and withdraws with a reason, each a ledger entry, and refuses to go below zero', async () => {
    const start = t.engine.control.walletBalance(APP, 'sandbox');
    const topUp = data(await control<{ balance: number }>(t.engine, 'POST', `/applications/${APP}/wallets/sandbox/top-up`, { amount: 2500, reason: 'test float' }));
    expect(topUp.balance).toBe(start + 2500);
    const withdrawn = data(await control<{ balance: number }>(t.engine, 'POST', `/applications/${APP}/wallets/sandbox/withdraw`, { amount: 1000, reason: 'sweep' }));
    expect(withdrawn.balance).toBe(start + 1500);
    const wallet = data(await control<{ balance: number; ledger: LedgerRow[] }>(t.engine, 'GET', `/applications/${APP}/wallets/sandbox`));
    expect(wallet.balance).toBe(start + 1500);
    expect(wallet.ledger.slice(-2).map((entry) => [entry.amount, entry.reason])).toEqual([[2500, 'test float'], [-1000, 'sweep']]);

    const tooMuch = await control(t.engine, 'POST', `/applications/${APP}/wallets/sandbox/withdraw`, { amount: start + 1501, reason: 'all of it' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: { amount: [`must be at most the balance (${start + 1500})`] } });
    expect(t.engine.control.walletBalance(APP, 'sandbox')).toBe(start + 1500);
  });

  it('names every bad field at once, and refuses a bad environment or application', async () => {
    const bad = await control(t.engine, 'POST', `/applications/${APP}/wallets/sandbox/top-up`, { amount: -5.5, reason: ' ', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ amount: expect.any(Array), reason: ['is required'], extra: ['is not a known field'] });
    expect((await control(t.engine, 'POST', `/applications/${APP}/wallets/staging/top-up`, { amount: 1, reason: 'x' })).body.code).toBe('VALIDATION_ERROR');
    const missing = await control(t.engine, 'POST', '/applications/app_nobody/wallets/sandbox/top-up', { amount: 1, reason: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('No application app_nobody.');
  });
});

describe('time and outcomes', () => {
  it('moves a +237650000004 payment to failed EXPIRED by advancing the clock, without sleeping', async () => {
    const created = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000004' })));
    const early = data(await control<{ offsetSeconds: number }>(t.engine, 'POST', '/clock/advance', { seconds: 60 }));
    expect(early.offsetSeconds).toBeGreaterThanOrEqual(60);
    expect(t.engine.control.transaction(created.transaction_id)?.status).toBe('processing');
    data(await control(t.engine, 'POST', '/clock/advance', { seconds: 61 }));
    await waitForStatus(t.engine, created.transaction_id, 'failed');
    const tx = ok(await t.client.retrievePayment(created.transaction_id));
    expect(tx).toMatchObject({ status: 'failed', failed_code: 'EXPIRED' });
  });

  it('reads a transaction with its timeline and says whether it is a payment or a payout (the spec’s shape says payment for both)', async () => {
    const payment = ok(await t.client.createPayment(paymentBody()));
    const payout = ok(await t.client.initiatePayout(paymentBody({ external_id: `KIND-PAYOUT-${Date.now()}` })));
    const read = async (id: string) => data(await control<{ transaction: FullTransaction; kind: string; timeline: { status: string }[] }>(t.engine, 'GET', `/transactions/${id}`));
    const asPayment = await read(payment.transaction_id);
    expect(asPayment).toMatchObject({ kind: 'payment', transaction: { transaction_id: payment.transaction_id, type: 'payment' } });
    expect(asPayment.timeline.length).toBeGreaterThan(0);
    expect(await read(payout.transaction_id)).toMatchObject({ kind: 'payout', transaction: { transaction_id: payout.transaction_id, type: 'payment' } });
    expect((await control(t.engine, 'GET', '/transactions/TE_nothing')).status).toBe(404);
  });

  it('sets the settle delay, settles a transaction now, and steers a customer to an outcome', async () => {
    expect(data(await control<{ settleMs: number }>(t.engine, 'PUT', '/settle-ms', { settleMs: 3_600_000 })).settleMs).toBe(3_600_000);
    try {
      const waiting = ok(await t.client.createPayment(paymentBody()));
      const settled = data(await control<FullTransaction>(t.engine, 'POST', `/transactions/${waiting.transaction_id}/settle`));
      expect(settled.status).toBe('completed');

      const steered = ok(await t.client.createPayment(paymentBody({ phone_number: '+237650000001' })));
      const outcome = await control<FullTransaction>(t.engine, 'POST', `/transactions/${steered.transaction_id}/outcome`, { status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS', now: true });
      expect(data(outcome)).toMatchObject({ status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' });

      // A silent outcome: only verify learns it.
      const silent = ok(await t.client.createPayment(paymentBody()));
      data(await control(t.engine, 'POST', `/transactions/${silent.transaction_id}/outcome`, { status: 'cancelled', notify: false, now: true }));
      expect(t.engine.control.transaction(silent.transaction_id)?.status).toBe('processing');
      expect(ok(await t.client.verifyPayment(silent.transaction_id)).status).toBe('cancelled');

      const final = await control(t.engine, 'POST', `/transactions/${steered.transaction_id}/outcome`, { status: 'completed' });
      expect(final.status).toBe(409);
      expect(final.body.message).toMatch(/already failed/);
      const invalid = await control(t.engine, 'POST', `/transactions/${waiting.transaction_id}/outcome`, { status: 'failed' });
      expect(invalid.body.errors).toEqual({ failed_code: ['is required when status is failed'] });
      expect((await control(t.engine, 'POST', '/transactions/TE_nothing/settle')).status).toBe(404);
    } finally {
      data(await control(t.engine, 'PUT', '/settle-ms', { settleMs: 0 }));
    }
  });

  it('refuses a clock that goes backwards or nowhere', async () => {
    for (const seconds of [0, -5, 'ten']) {
      const answer = await control(t.engine, 'POST', '/clock/advance', { seconds });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors as object)).toEqual(['seconds']);
    }
  });
});

describe('maintenance, reset and bad requests', () => {
  it('switches maintenance mode: the public API answers 503, the control API keeps working', async () => {
    expect(data(await control<{ maintenance: boolean }>(t.engine, 'PUT', '/maintenance', { enabled: true })).maintenance).toBe(true);
    expect(t.engine.control.maintenance()).toBe(true);
    try {
      const result = await t.client.createPayment(paymentBody());
      expect(result).toMatchObject({ kind: 'api-error', code: 'MAINTENANCE_MODE', httpStatus: 503 });
      expect((await control(t.engine, 'GET', '/settings')).status).toBe(200);
    } finally {
      data(await control(t.engine, 'PUT', '/maintenance', { enabled: false }));
    }
    ok(await t.client.createPayment(paymentBody()));
  });

  it('answers bad JSON with 400, a wrong media type with 415 and an unknown route with 404, in the envelope', async () => {
    const badJson = await control(t.engine, 'PUT', '/maintenance', '{"enabled": tru');
    expect(badJson).toMatchObject({ status: 400, body: { success: false, code: 'MALFORMED_REQUEST' } });
    const array = await control(t.engine, 'PUT', '/maintenance', '[true]');
    expect(array.body.message).toBe('The request body must be a JSON object.');
    const response = await fetch(`${t.engine.api.url}/_sandbox/maintenance`, { method: 'PUT', headers: { authorization: `Bearer ${t.engine.control.adminToken}`, 'content-type': 'text/plain' }, body: 'on' });
    expect(response.status).toBe(415);
    const unknown = await control(t.engine, 'GET', '/nothing-here');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', message: 'No control endpoint GET /_sandbox/nothing-here.' } });
  });

  it('resets the database to the seed', async () => {
    data(await control(t.engine, 'POST', '/applications', { id: 'app_to_forget', name: 'Temporary' }));
    const created = ok(await t.client.createPayment(paymentBody()));
    const apps = data(await control<SeededApplication[]>(t.engine, 'POST', '/reset'));
    expect(apps.map((app) => app.id)).toEqual([APP]);
    expect(t.engine.control.transaction(created.transaction_id)).toBeNull();
    expect(t.engine.webhooks.deliveries()).toEqual([]);
    ok(await t.client.createPayment(paymentBody()));
  });
});
