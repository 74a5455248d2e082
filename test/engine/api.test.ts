import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientResult, PaydeskClient } from '../../electron/client';
import { fullTransactionSchema, initiatedTransactionSchema, balanceSchema, parseTimestamp } from '../../shared/contract';
import { TEST_SEED } from './fixtures';
import { clientFor, ok, paymentBody, profileFor, startTestEngine, waitForStatus, type TestEngine } from './helpers';
import { sendRaw } from '../helpers/raw-request';
import { engineInternals } from '../../packages/sandbox/src/internals';

let t: TestEngine;
let main: PaydeskClient;
let other: PaydeskClient;
let mainLive: PaydeskClient;

beforeAll(async () => {
  t = await startTestEngine({ seed: TEST_SEED });
  main = t.client;
  other = clientFor(t.engine, profileFor(t.engine, 'app_other'));
  mainLive = clientFor(t.engine, profileFor(t.engine, 'app_main', 'live'));
});
afterAll(async () => {
  await other.close();
  await mainLive.close();
  await t.stop();
});

function expectError(result: ClientResult<unknown>, httpStatus: number, code: string) {
  expect(result, JSON.stringify(result)).toMatchObject({ kind: 'api-error', httpStatus, code });
}

function transactionCount(): number {
  return engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM transactions').pluck().get() as number;
}

describe('POST /v1/payments', () => {
  it('answers 200 with the initiate shape, status processing, and no retrieve-only fields', async () => {
    const body = paymentBody({ metadata: { cart: 'c-1', lines: [1, 2] }, customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com', metadata: { tier: 'gold' } } });
    const raw = await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', body });
    expect(raw.kind).toBe('success');
    if (raw.kind !== 'success') return;
    expect(raw.httpStatus).toBe(200);
    expect(raw.message).toMatch(/prompt/);
    const data = initiatedTransactionSchema.strict().parse(raw.data);
    expect(data.transaction_id).toMatch(/^TE_[A-Za-z0-9]{24}$/);
    expect(data.ref).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data).toMatchObject({
      external_id: body.external_id,
      type: 'payment',
      status: 'processing',
      amount: 5000,
      currency: 'XAF',
      description: 'Test order',
      account_name: 'Ada Ndiaye',
      account_number: '+2376****0001',
      account_type: 'mobile_money',
      reason: null,
      failed_code: null,
      failed_at: null,
      cancelled_at: null,
      completed_at: null,
      metadata: { cart: 'c-1', lines: [1, 2] },
      payment_method: { code: 'service_demo', name: 'Service Demo' },
      customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com', metadata: { tier: 'gold' } },
    });
    expect(parseTimestamp(data.created_at)).not.toBeNull();
    expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(raw.data).not.toHaveProperty('fee');
    expect(raw.data).not.toHaveProperty('application');
  });

  it('matches method codes case-insensitively and answers the canonical form', async () => {
    const created = ok(await main.createPayment(paymentBody({ payment_method: 'SERVICE_Demo' })));
    expect(created.payment_method?.code).toBe('service_demo');
    const full = ok(await main.retrievePayment(created.transaction_id));
    expect(full.payment_method?.code).toBe('service_demo');
  });

  it('refuses every invalid field at once with 422 and dotted names', async () => {
    const before = transactionCount();
    const result = await sendRaw(t.signer, {
      method: 'POST',
      path: '/v1/payments',
      keyType: 'payment',
      body: {
        payment_method: '',
        amount: 12.5,
        phone_number: '650000001',
        customer: { first_name: 'x'.repeat(101), last_name: '', email: 'not-an-email', nickname: 'Bob' },
        external_id: 'has spaces',
        description: 5,
        metadata: 'text',
        surprise: true,
      },
    });
    expectError(result, 422, 'VALIDATION_ERROR');
    if (result.kind !== 'api-error') return;
    expect(Object.keys(result.fields ?? {}).sort()).toEqual(
      ['amount', 'customer.email', 'customer.first_name', 'customer.last_name', 'customer.nickname', 'description', 'external_id', 'metadata', 'payment_method', 'phone_number', 'surprise'].sort(),
    );
    expect(transactionCount()).toBe(before);
  });

  it('names every missing required field', async () => {
    const result = await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', body: {} });
    expectError(result, 422, 'VALIDATION_ERROR');
    expect(Object.keys((result.kind === 'api-error' && result.fields) || {}).sort()).toEqual(['amount', 'customer', 'payment_method', 'phone_number']);
  });

  it.each([
    ['not JSON', '{"amount": 5', 'MALFORMED_REQUEST', 400],
    ['an array', '[]', 'MALFORMED_REQUEST', 400],
    ['a string', '"hello"', 'MALFORMED_REQUEST', 400],
    ['null', 'null', 'MALFORMED_REQUEST', 400],
    ['empty', '', 'MALFORMED_REQUEST', 400],
  ])('refuses a body that is %s with 400 MALFORMED_REQUEST', async (_name, rawBody, code, status) => {
    expectError(await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody, headers: { 'Content-Type': 'application/json' } }), status, code);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'nonsense'])('refuses Content-Type %j with 415 UNSUPPORTED_MEDIA_TYPE', async (contentType) => {
    expectError(await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', body: paymentBody(), headers: { 'Content-Type': contentType } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body without Content-Type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expectError(await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', body: paymentBody(), omitHeaders: ['Content-Type'] }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts application/json; charset=utf-8', async () => {
    expect((await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', body: paymentBody(), headers: { 'Content-Type': 'application/json; charset=UTF-8' } })).kind).toBe('success');
  });

  it('refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const rawBody = JSON.stringify({ ...paymentBody(), description: 'x'.repeat(70 * 1024) });
    expectError(await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses an unknown method with 406 PAYMENT_METHOD_NOT_SUPPORTED', async () => {
    expectError(await main.createPayment(paymentBody({ payment_method: 'paypal' })), 406, 'PAYMENT_METHOD_NOT_SUPPORTED');
  });
  it('refuses a globally disabled method with 406 PAYMENT_METHOD_NOT_ENABLED', async () => {
    expectError(await main.createPayment(paymentBody({ payment_method: 'orange_cm' })), 406, 'PAYMENT_METHOD_NOT_ENABLED');
  });
  it('refuses a method not enabled for the application with 406 APP_PAYMENT_METHOD_NOT_ENABLED', async () => {
    expectError(await main.createPayment(paymentBody({ payment_method: 'app_blocked' })), 406, 'APP_PAYMENT_METHOD_NOT_ENABLED');
  });
  it('refuses the sandbox-only demo method in live with 406 PAYMENT_METHOD_NOT_SUPPORTED', async () => {
    expectError(await mainLive.createPayment(paymentBody({ payment_method: 'service_demo' })), 406, 'PAYMENT_METHOD_NOT_SUPPORTED');
  });

  it('refuses a second payment with the same external_id with 422 on external_id, creating nothing', async () => {
    const body = paymentBody();
    ok(await main.createPayment(body));
    const before = transactionCount();
    const again = await main.createPayment({ ...body, amount: 777 });
    expectError(again, 422, 'VALIDATION_ERROR');
    expect(again.kind === 'api-error' && again.fields).toEqual({ external_id: [expect.stringMatching(/already/)] });
    expect(transactionCount()).toBe(before);
  });

  it('keeps external_id unique per application, environment and kind only', async () => {
    const body = paymentBody({ payment_method: 'momo_cm' });
    ok(await main.createPayment(body));
    ok(await other.createPayment(body));
    ok(await mainLive.createPayment(body));
    ok(await main.initiatePayout(body));
  });
});

describe('GET /v1/payments/{id} and /verify', () => {
  it('retrieves the full object by transaction id and by external_id', async () => {
    const body = paymentBody();
    const created = ok(await main.createPayment(body));
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    const byId = await sendRaw(t.signer, { method: 'GET', path: `/v1/payments/${created.transaction_id}`, keyType: 'payment' });
    expect(byId.kind === 'success' && byId.message).toBe('Payment retrieved.');
    const full = fullTransactionSchema.strict().parse(byId.kind === 'success' ? byId.data : null);
    expect(full).toMatchObject({
      transaction_id: created.transaction_id,
      status: 'completed',
      fee: 75,
      net_amount: 4925,
      fee_payer: 'merchant',
      application: { id: 'app_main', name: 'Main Shop' },
    });
    expect(full.completed_at).not.toBeNull();
    const byExternal = ok(await main.retrievePayment(body.external_id as string, { by: 'external_id' }));
    expect(byExternal.transaction_id).toBe(created.transaction_id);
    const explicit = await sendRaw(t.signer, { method: 'GET', path: `/v1/payments/${created.transaction_id}`, query: 'identifier_type=transaction_id', keyType: 'payment' });
    expect(explicit.kind).toBe('success');
  });

  it('refuses an unknown identifier_type with 400 MALFORMED_REQUEST naming the parameter', async () => {
    const result = await sendRaw(t.signer, { method: 'GET', path: '/v1/payments/TE_x', query: 'identifier_type=phone', keyType: 'payment' });
    expectError(result, 400, 'MALFORMED_REQUEST');
    expect(result.kind === 'api-error' && result.fields).toEqual({ identifier_type: [expect.any(String)] });
  });

  it('answers 404 PAYMENT_NOT_FOUND for an unknown id, external id, or verify', async () => {
    expectError(await main.retrievePayment('TE_doesnotexist'), 404, 'PAYMENT_NOT_FOUND');
    expectError(await main.retrievePayment('nope', { by: 'external_id' }), 404, 'PAYMENT_NOT_FOUND');
    expectError(await main.verifyPayment('TE_doesnotexist'), 404, 'PAYMENT_NOT_FOUND');
  });

  it('does not find a payment by its external_id without identifier_type', async () => {
    const body = paymentBody();
    ok(await main.createPayment(body));
    expectError(await main.retrievePayment(body.external_id as string), 404, 'PAYMENT_NOT_FOUND');
  });

  it('verify answers the full object with a message describing the outcome', async () => {
    const created = ok(await main.createPayment(paymentBody({ phone_number: '+237650000002' })));
    await waitForStatus(t.engine, created.transaction_id, 'failed');
    const result = await sendRaw(t.signer, { method: 'GET', path: `/v1/payments/${created.transaction_id}/verify`, keyType: 'payment' });
    expect(result.kind === 'success' && result.message).toBe('Payment failed: PAYER_NOT_FOUND.');
    expect(fullTransactionSchema.parse(result.kind === 'success' ? result.data : null).failed_code).toBe('PAYER_NOT_FOUND');
  });
});

describe('isolation between applications and environments', () => {
  it('answers 404 for another application’s payment, by id and by external_id, and for verify', async () => {
    const body = paymentBody();
    const created = ok(await main.createPayment(body));
    expectError(await other.retrievePayment(created.transaction_id), 404, 'PAYMENT_NOT_FOUND');
    expectError(await other.retrievePayment(body.external_id as string, { by: 'external_id' }), 404, 'PAYMENT_NOT_FOUND');
    expectError(await other.verifyPayment(created.transaction_id), 404, 'PAYMENT_NOT_FOUND');
  });

  it('answers 404 for the same application’s payment from the other environment', async () => {
    const created = ok(await main.createPayment(paymentBody()));
    expectError(await mainLive.retrievePayment(created.transaction_id), 404, 'PAYMENT_NOT_FOUND');
  });

  it('does not find a payout as a payment or a payment as a payout', async () => {
    const payment = ok(await main.createPayment(paymentBody()));
    const payout = ok(await main.initiatePayout(paymentBody()));
    expectError(await main.retrievePayout(payment.transaction_id), 404, 'PAYOUT_NOT_FOUND');
    expectError(await main.retrievePayment(payout.transaction_id), 404, 'PAYMENT_NOT_FOUND');
  });
});

describe('payouts', () => {
  it('POST /v1/payouts/initiate answers 200 with type payment (the spec’s observed quirk) and status processing', async () => {
    const raw = await sendRaw(t.signer, { method: 'POST', path: '/v1/payouts/initiate', keyType: 'payout', body: paymentBody() });
    expect(raw.kind === 'success' && raw.httpStatus).toBe(200);
    const data = initiatedTransactionSchema.strict().parse(raw.kind === 'success' ? raw.data : null);
    expect(data.type).toBe('payment');
    expect(data.status).toBe('processing');
  });

  it('retrieves and verifies a payout (local extension) by id and external_id', async () => {
    const body = paymentBody();
    const created = ok(await main.initiatePayout(body));
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    expect(ok(await main.retrievePayout(created.transaction_id))).toMatchObject({ status: 'completed', fee: 100, net_amount: 4900 });
    expect(ok(await main.retrievePayout(body.external_id as string, { by: 'external_id' })).transaction_id).toBe(created.transaction_id);
    expect(ok(await main.verifyPayout(created.transaction_id)).status).toBe('completed');
    expectError(await main.retrievePayout('TE_nothing'), 404, 'PAYOUT_NOT_FOUND');
    expectError(await main.verifyPayout('TE_nothing'), 404, 'PAYOUT_NOT_FOUND');
  });

  it('refuses payout method problems with the payout 406 codes and PAYOUT_NOT_AVAILABLE', async () => {
    expectError(await main.initiatePayout(paymentBody({ payment_method: 'paypal' })), 406, 'PAYOUT_METHOD_NOT_SUPPORTED');
    expectError(await main.initiatePayout(paymentBody({ payment_method: 'card_collect' })), 406, 'PAYOUT_METHOD_NOT_SUPPORTED');
    expectError(await main.initiatePayout(paymentBody({ payment_method: 'orange_cm' })), 406, 'PAYOUT_METHOD_NOT_ENABLED');
    expectError(await main.initiatePayout(paymentBody({ payment_method: 'app_blocked' })), 406, 'APP_PAYOUT_METHOD_NOT_ENABLED');
    expectError(await main.initiatePayout(paymentBody({ payment_method: 'MOMO_CM', phone_number: '+2250700000001' })), 422, 'PAYOUT_NOT_AVAILABLE');
  });

  it('GET /v1/balance answers the wallet of the key’s application and environment', async () => {
    const balance = balanceSchema.parse(ok(await main.getBalance()));
    expect(balance).toEqual({ environment: 'sandbox', currency: 'XAF', balance: t.engine.control.walletBalance('app_main', 'sandbox') });
    expect(ok(await mainLive.getBalance())).toEqual({ environment: 'live', currency: 'XAF', balance: t.engine.control.walletBalance('app_main', 'live') });
  });
});

describe('routes', () => {
  it.each([
    ['GET', '/v1/refunds'],
    ['GET', '/v2/payments/TE_x'],
    ['POST', '/v1/payments/TE_x'],
    ['GET', '/'],
    ['GET', '/v1/payments/TE_x/verify/extra'],
  ] as const)('answers %s %s with 404 ROUTE_NOT_FOUND in the envelope', async (method, path) => {
    const result = await fetch(`${t.engine.api.url}${path}`, { method });
    expect(result.status).toBe(404);
    expect(await result.json()).toEqual({ success: false, message: expect.any(String), code: 'ROUTE_NOT_FOUND', errors: [] });
  });
});
