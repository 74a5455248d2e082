import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientResult, PaydeskClient } from '../../electron/client';
import { createClient } from '../../electron/client';
import { TEST_SEED } from './fixtures';
import { sendRaw, type RawSigner } from '../helpers/raw-request';
import { clientFor, paymentBody, profileFor, secretsOf, signerFor, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;
let main: PaydeskClient;
/** app_main's keys, for requests the client never sends. */
let mainSigner: RawSigner;
const clients: PaydeskClient[] = [];

beforeAll(async () => {
  t = await startTestEngine({ seed: TEST_SEED });
  mainSigner = signerFor(t.engine, profileFor(t.engine, 'app_main'));
  main = track(clientFor(t.engine, mainSigner.profile));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t.stop();
});

function track(client: PaydeskClient): PaydeskClient {
  clients.push(client);
  return client;
}

interface VariantOptions { paymentKey?: string; payoutKey?: string; environment?: 'sandbox' | 'live'; app?: string; shiftSeconds?: number; secrets?: Record<string, string> }

/** app_main's sandbox keys with one of them replaced, or signing at a shifted time. */
function variantSigner(opts: VariantOptions): RawSigner {
  const profile = profileFor(t.engine, opts.app ?? 'app_main', 'sandbox', {
    ...(opts.environment ? { environment: opts.environment } : {}),
    ...(opts.paymentKey ? { paymentPublicKey: opts.paymentKey } : {}),
    ...(opts.payoutKey ? { payoutPublicKey: opts.payoutKey } : {}),
  });
  return { profile, secretFor: secretsOf(t.engine, opts.secrets), now: () => (t.engine.clock.wallSeconds() + (opts.shiftSeconds ?? 0)) * 1000 };
}

/** The real client for a variant signer. */
function variant(opts: VariantOptions): PaydeskClient {
  const signer = variantSigner(opts);
  return track(createClient(signer.profile, signer.secretFor, { now: signer.now, retry: { attempts: 1 } }));
}

function expectError(result: ClientResult<unknown>, httpStatus: number, code: string) {
  expect(result, JSON.stringify(result)).toMatchObject({ kind: 'api-error', httpStatus, code });
  if (result.kind === 'api-error') expect(result.message.length).toBeGreaterThan(0);
}

const H = { ts: 'X-SVC-Timestamp', sig: 'X-SVC-Signature', env: 'X-SVC-Environment', auth: 'Authorization' };

describe('authentication checks (spec 5.4)', () => {
  it('accepts a correctly signed request', async () => {
    expect((await main.createPayment(paymentBody())).kind).toBe('success');
  });

  it.each([H.auth, H.ts, H.sig, H.env])('refuses a request without %s with 401 AUTHENTICATION_HEADERS_REQUIRED', async (header) => {
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', omitHeaders: [header] }), 401, 'AUTHENTICATION_HEADERS_REQUIRED');
  });

  it('treats an empty header as missing', async () => {
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', headers: { [H.sig]: '' } }), 401, 'AUTHENTICATION_HEADERS_REQUIRED');
  });

  it.each(['abc', '0', '-5', '1.5', '1e9', ' '])('refuses the timestamp %j with 401 INVALID_TIMESTAMP', async (value) => {
    const result = await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', headers: { [H.ts]: value } });
    expectError(result, 401, value.trim() === '' ? 'AUTHENTICATION_HEADERS_REQUIRED' : 'INVALID_TIMESTAMP');
  });

  it.each(['production', 'SANDBOX', 'test'])('refuses the environment %j with 400 INVALID_ENVIRONMENT', async (value) => {
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', headers: { [H.env]: value } }), 400, 'INVALID_ENVIRONMENT');
  });

  // Signed at real time read here, checked at real time read by the engine a moment later: a
  // second boundary crossed in between brings +301 to 300 (accepted). +330 and -301 hold for every
  // timing; the exact ±300/±301 boundary is pinned in clock-window.test.ts (wall clock injected).
  it.each([330, -301, 3600])('refuses a timestamp %i s off server time with 401 TIMESTAMP_EXPIRED', async (shift) => {
    expectError(await variant({ shiftSeconds: shift }).createPayment(paymentBody()), 401, 'TIMESTAMP_EXPIRED');
  });

  it('accepts a timestamp 290 s off in either direction', async () => {
    expect((await variant({ shiftSeconds: 290 }).createPayment(paymentBody())).kind).toBe('success');
    expect((await variant({ shiftSeconds: -290 }).createPayment(paymentBody())).kind).toBe('success');
  });

  it('checks the timestamp window against real time, not the advanced sandbox clock', async () => {
    const engineTimeClient = track(createClient(profileFor(t.engine, 'app_main'), secretsOf(t.engine), { now: () => Math.floor(t.engine.clock.nowMicros() / 1000), retry: { attempts: 1 } }));
    t.engine.clock.advance(400);
    try {
      // Clients sign with their own real clock, as against the real service: still accepted.
      expect((await main.createPayment(paymentBody())).kind).toBe('success');
      // A client that signed with the sandbox's advanced time is 400 s in the future of real time.
      expectError(await engineTimeClient.createPayment(paymentBody()), 401, 'TIMESTAMP_EXPIRED');
    } finally {
      t.engine.clock.reset();
    }
  });

  it('refuses an unknown key with 401 INVALID_API_KEY', async () => {
    expectError(await variant({ paymentKey: 'pk_sandbox_payment_nobody' }).createPayment(paymentBody()), 401, 'INVALID_API_KEY');
  });

  it('refuses a disabled key with 401 INVALID_API_KEY', async () => {
    expectError(await variant({ paymentKey: 'pk_sandbox_payment_disabled' }).createPayment(paymentBody()), 401, 'INVALID_API_KEY');
  });

  it('refuses a payout key on /v1/payments with 401 INVALID_API_KEY', async () => {
    expectError(await variant({ paymentKey: 'pk_sandbox_payout_main' }).createPayment(paymentBody()), 401, 'INVALID_API_KEY');
  });

  it('refuses a payment key on /v1/payouts/initiate, /v1/payouts/{id} and /v1/balance with 401 INVALID_API_KEY', async () => {
    const client = variant({ payoutKey: 'pk_sandbox_payment_main' });
    expectError(await client.initiatePayout(paymentBody()), 401, 'INVALID_API_KEY');
    expectError(await client.retrievePayout('TE_x'), 401, 'INVALID_API_KEY');
    expectError(await client.verifyPayout('TE_x'), 401, 'INVALID_API_KEY');
    expectError(await client.getBalance(), 401, 'INVALID_API_KEY');
  });

  it('refuses a live key sent as sandbox with 401 API_KEY_ENV_MISMATCH', async () => {
    expectError(await variant({ paymentKey: 'pk_live_payment_main' }).createPayment(paymentBody()), 401, 'API_KEY_ENV_MISMATCH');
  });

  it('refuses a sandbox key sent as live with 401 API_KEY_ENV_MISMATCH', async () => {
    expectError(await variant({ environment: 'live' }).createPayment(paymentBody()), 401, 'API_KEY_ENV_MISMATCH');
  });

  it('refuses a wrong signature with 401 INVALID_DIGITAL_SIGNATURE', async () => {
    const client = variant({ secrets: { pk_sandbox_payment_main: 'sk_not_the_right_secret_000000' } });
    expectError(await client.createPayment(paymentBody()), 401, 'INVALID_DIGITAL_SIGNATURE');
  });

  it('refuses an upper-case hex signature and a tampered body with 401 INVALID_DIGITAL_SIGNATURE', async () => {
    const signature = 'A'.repeat(64);
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', headers: { [H.sig]: signature } }), 401, 'INVALID_DIGITAL_SIGNATURE');
    // A signature for one query does not cover another.
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/payments/TE_x', query: 'identifier_type=transaction_id', keyType: 'payment', headers: { [H.sig]: 'f'.repeat(64) } }), 401, 'INVALID_DIGITAL_SIGNATURE');
  });

  it('checks the signature over the exact body bytes (whitespace counts)', async () => {
    const body = JSON.stringify(paymentBody(), null, 2);
    expect((await sendRaw(mainSigner, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody: body })).kind).toBe('success');
  });

  it('refuses a whitelisted key from another address with 403 FORBIDDEN, ignoring X-Forwarded-For', async () => {
    const opts = { paymentKey: 'pk_sandbox_payment_elsewhere' };
    expectError(await variant(opts).createPayment(paymentBody()), 403, 'FORBIDDEN');
    expectError(
      await sendRaw(variantSigner(opts), { method: 'POST', path: '/v1/payments', keyType: 'payment', body: paymentBody(), headers: { 'X-Forwarded-For': '10.1.2.3', 'X-Real-IP': '10.1.2.3' } }),
      403,
      'FORBIDDEN',
    );
  });

  it('accepts a whitelisted key from its listed address', async () => {
    expect((await variant({ paymentKey: 'pk_sandbox_payment_loopback' }).createPayment(paymentBody())).kind).toBe('success');
  });

  it('refuses a deactivated application with 403 APP_NOT_ACTIVE', async () => {
    expectError(await variant({ app: 'app_inactive' }).createPayment(paymentBody()), 403, 'APP_NOT_ACTIVE');
  });

  it('refuses a never-activated application with 403 APPLICATION_NOT_ACTIVE', async () => {
    expectError(await variant({ app: 'app_pending' }).createPayment(paymentBody()), 403, 'APPLICATION_NOT_ACTIVE');
  });

  it('refuses live requests of an application not approved for live with 403 LIVE_MODE_NOT_ENABLED', async () => {
    const client = track(clientFor(t.engine, profileFor(t.engine, 'app_nolive', 'live')));
    expectError(await client.initiatePayout(paymentBody({ payment_method: 'momo_cm' })), 403, 'LIVE_MODE_NOT_ENABLED');
    expectError(await client.createPayment(paymentBody({ payment_method: 'momo_cm' })), 403, 'LIVE_MODE_NOT_ENABLED');
  });

  it('serves live requests of an approved application', async () => {
    const client = track(clientFor(t.engine, profileFor(t.engine, 'app_main', 'live')));
    expect((await client.createPayment(paymentBody({ payment_method: 'momo_cm' }))).kind).toBe('success');
  });
});

describe('check order (documented in packages/sandbox/src/auth/auth.ts)', () => {
  const get = (signer: RawSigner, headers: Record<string, string> = {}, omitHeaders: string[] = []) =>
    sendRaw(signer, { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment', headers, omitHeaders });

  it('missing headers before an invalid timestamp and environment', async () => {
    expectError(await get(mainSigner, { [H.ts]: 'abc', [H.env]: 'prod' }, [H.sig]), 401, 'AUTHENTICATION_HEADERS_REQUIRED');
  });
  it('invalid timestamp before invalid environment', async () => {
    expectError(await get(mainSigner, { [H.ts]: 'abc', [H.env]: 'prod' }), 401, 'INVALID_TIMESTAMP');
  });
  it('invalid environment before an expired timestamp', async () => {
    expectError(await get(variantSigner({ shiftSeconds: -1000 }), { [H.env]: 'prod' }), 400, 'INVALID_ENVIRONMENT');
  });
  it('expired timestamp before an unknown key', async () => {
    expectError(await get(variantSigner({ shiftSeconds: -1000, paymentKey: 'pk_sandbox_payment_nobody' })), 401, 'TIMESTAMP_EXPIRED');
  });
  it('invalid key before environment mismatch', async () => {
    // A live payout key on a payment path, sent as sandbox: wrong type wins over wrong environment.
    expectError(await get(variantSigner({ paymentKey: 'pk_live_payout_main' })), 401, 'INVALID_API_KEY');
  });
  it('environment mismatch before a bad signature', async () => {
    expectError(await get(variantSigner({ paymentKey: 'pk_live_payment_main', secrets: { pk_live_payment_main: 'sk_wrong_secret_0000000000' } })), 401, 'API_KEY_ENV_MISMATCH');
  });
  it('bad signature before the IP whitelist', async () => {
    const signer = variantSigner({ paymentKey: 'pk_sandbox_payment_elsewhere', secrets: { pk_sandbox_payment_elsewhere: 'sk_wrong_secret_0000000000' } });
    expectError(await get(signer), 401, 'INVALID_DIGITAL_SIGNATURE');
  });
  it('authentication before the inactive application', async () => {
    const signer = variantSigner({ app: 'app_inactive', secrets: { pk_sandbox_payment_inactive: 'sk_wrong_secret_0000000000' } });
    expectError(await get(signer), 401, 'INVALID_DIGITAL_SIGNATURE');
  });
  it('authentication before media type, body syntax and validation', async () => {
    const signer = variantSigner({ secrets: { pk_sandbox_payment_main: 'sk_wrong_secret_0000000000' } });
    expectError(await sendRaw(signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody: '{bad', headers: { 'Content-Type': 'text/plain' } }), 401, 'INVALID_DIGITAL_SIGNATURE');
  });
  it('media type before body syntax', async () => {
    expectError(await sendRaw(mainSigner, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody: '{bad', headers: { 'Content-Type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
  it('body syntax before validation', async () => {
    expectError(await sendRaw(mainSigner, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody: '[1,2]' }), 400, 'MALFORMED_REQUEST');
  });
  it('validation before method checks', async () => {
    expectError(await main.createPayment(paymentBody({ payment_method: 'nope', amount: -1 })), 422, 'VALIDATION_ERROR');
  });
  it('method checks before the external_id uniqueness check', async () => {
    const body = paymentBody();
    expect((await main.createPayment(body)).kind).toBe('success');
    expectError(await main.createPayment({ ...body, payment_method: 'nope' }), 406, 'PAYMENT_METHOD_NOT_SUPPORTED');
    expectError(await main.createPayment(body), 422, 'VALIDATION_ERROR');
  });
  it('the external_id check before the funds check', async () => {
    const body = paymentBody({ amount: 999_999_999 });
    const first = await main.initiatePayout({ ...body, amount: 10 });
    expect(first.kind).toBe('success');
    const result = await main.initiatePayout(body);
    expectError(result, 422, 'VALIDATION_ERROR');
    expect(result.kind === 'api-error' && result.fields).toEqual({ external_id: [expect.any(String)] });
  });
  it('an unknown route before authentication', async () => {
    expectError(await sendRaw(mainSigner, { method: 'GET', path: '/v1/refunds', keyType: 'payment', omitHeaders: [H.sig] }), 404, 'ROUTE_NOT_FOUND');
  });
});
