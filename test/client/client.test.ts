import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSignedRequest, createClient, keyTypeForPath, type ClientResult, type PaydeskClient } from '../../electron/client';
import { verifySignature } from '@paydesk/sandbox';
import { sendRaw } from '../helpers/raw-request';
import { json, raw, startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server';
import {
  ALL_SECRETS,
  FIXED_NOW_MS,
  FIXED_NOW_SECONDS,
  PAYMENT_PUBLIC,
  PAYOUT_PUBLIC,
  SECRETS,
  countingSecrets,
  failure,
  full,
  initiated,
  paymentRequest,
  profileFor,
  success,
} from './sample-data';

let server: RecordingServer;
let client: PaydeskClient;
let secrets: ReturnType<typeof countingSecrets>;

beforeEach(async () => {
  server = await startRecordingServer();
  secrets = countingSecrets();
  client = createClient(profileFor(server.url), secrets.secretFor, { now: () => FIXED_NOW_MS, sleep: async () => {} });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

function only(requests: RecordedRequest[]): RecordedRequest {
  expect(requests).toHaveLength(1);
  return requests[0] as RecordedRequest;
}

/** Checks the received signature against what the server actually received, byte for byte. */
function expectValidSignature(request: RecordedRequest, word = 'svc'): void {
  const publicKey = String(request.headers.authorization);
  const secret = SECRETS[publicKey];
  expect(secret, `a known public key in Authorization, got ${publicKey}`).toBeDefined();
  const parts = {
    publicKey,
    timestamp: String(request.headers[`x-${word}-timestamp`]),
    method: request.method,
    path: request.path,
    payload: request.method === 'GET' ? request.query : request.body,
  };
  expect(verifySignature(secret as string, parts, String(request.headers[`x-${word}-signature`]))).toBe(true);
}

describe('what the client sends', () => {
  it('signs exactly the body bytes it sends, non-ASCII text included', async () => {
    server.reply(json(200, success(initiated, 'Payment initiated')));
    const result = await client.createPayment(paymentRequest);
    // An initiate's answer has no fee fields: read as null (the tolerant reader, shared/contract/reading.ts).
    expect(result).toEqual({ kind: 'success', httpStatus: 200, message: 'Payment initiated', data: { ...initiated, fee: null, net_amount: null, fee_payer: null, application: null } });
    const received = only(server.requests);
    expect(received.method).toBe('POST');
    expect(received.target).toBe('/v1/payments');
    expect(received.body.equals(Buffer.from(JSON.stringify(paymentRequest), 'utf8'))).toBe(true);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['content-length']).toBe(String(received.body.length));
    expect(received.headers.accept).toBe('application/json');
    expect(received.headers['x-svc-timestamp']).toBe(String(FIXED_NOW_SECONDS));
    expect(received.headers['x-svc-environment']).toBe('sandbox');
    expect(received.headers['x-svc-signature']).toMatch(/^[0-9a-f]{64}$/);
    expectValidSignature(received);
  });

  it('a signature made over other bytes does not verify (the check can fail)', async () => {
    server.reply(json(200, success(initiated)));
    await client.createPayment(paymentRequest);
    const received = only(server.requests);
    const tampered = { ...received, body: Buffer.from(received.body.toString('utf8').replace('2500', '2501')) };
    expect(() => expectValidSignature(tampered)).toThrow();
  });

  const endpoints: Array<{ name: string; call: (c: PaydeskClient) => Promise<ClientResult<unknown>>; method: string; target: string; key: string; data: unknown }> = [
    { name: 'createPayment', call: (c) => c.createPayment(paymentRequest), method: 'POST', target: '/v1/payments', key: PAYMENT_PUBLIC, data: initiated },
    { name: 'initiatePayout', call: (c) => c.initiatePayout(paymentRequest), method: 'POST', target: '/v1/payouts/initiate', key: PAYOUT_PUBLIC, data: initiated },
    { name: 'retrievePayment', call: (c) => c.retrievePayment('TE_8f2k1'), method: 'GET', target: '/v1/payments/TE_8f2k1', key: PAYMENT_PUBLIC, data: full },
    { name: 'verifyPayment', call: (c) => c.verifyPayment('TE_8f2k1'), method: 'GET', target: '/v1/payments/TE_8f2k1/verify', key: PAYMENT_PUBLIC, data: full },
    { name: 'retrievePayout', call: (c) => c.retrievePayout('TE_8f2k1'), method: 'GET', target: '/v1/payouts/TE_8f2k1', key: PAYOUT_PUBLIC, data: full },
    { name: 'verifyPayout', call: (c) => c.verifyPayout('TE_8f2k1'), method: 'GET', target: '/v1/payouts/TE_8f2k1/verify', key: PAYOUT_PUBLIC, data: full },
    { name: 'getBalance', call: (c) => c.getBalance(), method: 'GET', target: '/v1/balance', key: PAYOUT_PUBLIC, data: { environment: 'sandbox', currency: 'XAF', balance: 125000 } },
  ];
  for (const endpoint of endpoints) {
    it(`${endpoint.name} sends ${endpoint.method} ${endpoint.target} with the ${endpoint.key.includes('payout') ? 'Payout' : 'Payment'} key`, async () => {
      server.reply(json(200, success(endpoint.data)));
      const result = await endpoint.call(client);
      expect(result).toMatchObject({ kind: 'success', data: endpoint.data });
      const received = only(server.requests);
      expect(received.method).toBe(endpoint.method);
      expect(received.target).toBe(endpoint.target);
      expect(received.headers.authorization).toBe(endpoint.key);
      expect(secrets.calls).toEqual([endpoint.key]);
      if (endpoint.method === 'GET') {
        expect(received.body.length).toBe(0);
        expect(received.headers['content-type']).toBeUndefined();
      }
      expectValidSignature(received);
    });
  }

  it('percent-encodes the id, puts identifier_type in the query and signs the raw query', async () => {
    server.reply(json(200, success(full)));
    await client.retrievePayment('order 7/ü?x=1', { by: 'external_id' });
    const received = only(server.requests);
    expect(received.target).toBe('/v1/payments/order%207%2F%C3%BC%3Fx%3D1?identifier_type=external_id');
    expect(received.query).toBe('identifier_type=external_id');
    expectValidSignature(received);
  });

  it('keeps an id of ".." as one path segment', async () => {
    server.reply(json(200, success(full)));
    await client.retrievePayout('..', { by: 'external_id' });
    expect(only(server.requests).target).toBe('/v1/payouts/%2E%2E?identifier_type=external_id');
  });

  it('sends nothing for an empty id', async () => {
    const result = await client.verifyPayment('');
    expect(result).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'INVALID_ARGUMENT' });
    expect(server.requests).toHaveLength(0);
  });

  it('names the headers with the profile header word', async () => {
    const acme = createClient(profileFor(server.url, { headerWord: 'ACME', environment: 'live' }), secrets.secretFor, { now: () => FIXED_NOW_MS });
    server.reply(json(200, success(full)));
    await acme.verifyPayment('TE_1');
    await acme.close();
    const received = only(server.requests);
    expect(received.headers['x-acme-timestamp']).toBe(String(FIXED_NOW_SECONDS));
    expect(received.headers['x-acme-environment']).toBe('live');
    expect(Object.keys(received.headers).filter((name) => name.startsWith('x-svc-'))).toEqual([]);
    expectValidSignature(received, 'acme');
  });

  it('signs the full path when the base URL carries a prefix', async () => {
    const prefixed = createClient(profileFor(`${server.url}/gw/`), secrets.secretFor, { now: () => FIXED_NOW_MS });
    server.reply(json(200, success({ environment: 'sandbox', currency: 'XAF', balance: 1 })));
    const result = await prefixed.getBalance();
    await prefixed.close();
    expect(result.kind).toBe('success');
    const received = only(server.requests);
    expect(received.path).toBe('/gw/v1/balance');
    expectValidSignature(received);
  });

  it('the tests\' raw-request helper sends a raw body exactly, and can override or leave out headers', async () => {
    server.reply(json(400, failure('MALFORMED_REQUEST', 'The body is not valid JSON')));
    const rawBody = Buffer.from([0x7b, 0x22, 0xff, 0x0a]);
    const signer = { profile: profileFor(server.url), secretFor: secrets.secretFor, now: () => FIXED_NOW_MS };
    const result = await sendRaw(signer, { method: 'POST', path: '/v1/payments', rawBody, keyType: 'payment', headers: { 'x-svc-environment': 'staging' }, omitHeaders: ['X-SVC-Signature'] });
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 400, code: 'MALFORMED_REQUEST' });
    const received = only(server.requests);
    expect(received.body.equals(rawBody)).toBe(true);
    expect(received.headers['x-svc-environment']).toBe('staging');
    expect(received.headers['x-svc-signature']).toBeUndefined();
  });

  it('refuses a profile it cannot use without sending anything', async () => {
    const bad = createClient(profileFor(server.url, { headerWord: 'X Y' }), secrets.secretFor);
    const noKey = createClient(profileFor(server.url, { payoutPublicKey: '' }), secrets.secretFor);
    const badUrl = createClient(profileFor('ftp://example.com'), secrets.secretFor);
    expect(await bad.getBalance()).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'INVALID_PROFILE' });
    expect(await noKey.getBalance()).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'INVALID_PROFILE' });
    expect(await badUrl.getBalance()).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'INVALID_PROFILE' });
    await Promise.all([bad.close(), noKey.close(), badUrl.close()]);
    expect(server.requests).toHaveLength(0);
  });
});

describe('reading envelopes', () => {
  it('accepts a success envelope without message (spec 2.1 rule 3)', async () => {
    server.reply(json(200, success(full, null)));
    expect(await client.retrievePayment('TE_8f2k1')).toEqual({ kind: 'success', httpStatus: 200, message: null, data: full });
  });

  it('returns the field map of a 422 validation error', async () => {
    const fields = { 'customer.first_name': ['is required'], amount: ['must be greater than 0'] };
    server.reply(json(422, failure('VALIDATION_ERROR', 'The given data was invalid', fields)));
    expect(await client.createPayment(paymentRequest)).toEqual({
      kind: 'api-error', httpStatus: 422, code: 'VALIDATION_ERROR', message: 'The given data was invalid', fields, retryAfterSeconds: null,
    });
  });

  it('returns a 404 with no field map', async () => {
    server.reply(json(404, failure('PAYMENT_NOT_FOUND', 'Payment not found')));
    expect(await client.retrievePayment('TE_missing')).toEqual({
      kind: 'api-error', httpStatus: 404, code: 'PAYMENT_NOT_FOUND', message: 'Payment not found', fields: null, retryAfterSeconds: null,
    });
  });

  const unreadable: Array<{ name: string; reply: ReturnType<typeof raw>; status: number; says: RegExp }> = [
    { name: 'a garbage body', reply: raw(200, 'definitely not json{', { 'Content-Type': 'application/json' }), status: 200, says: /not JSON/ },
    { name: 'an HTML error page', reply: raw(502, '<html><title>502 Bad Gateway</title></html>', { 'Content-Type': 'text/html' }), status: 502, says: /not JSON \(text\/html\).*502 Bad Gateway/ },
    { name: 'JSON that is not an envelope', reply: json(200, { id: 'TE_1', status: 'completed' }), status: 200, says: /not an envelope/ },
    { name: 'a JSON array', reply: json(200, [success(full)]), status: 200, says: /not an envelope/ },
    { name: 'an empty body', reply: raw(500, ''), status: 500, says: /empty/ },
    { name: 'success with a 500 status', reply: json(500, success(full)), status: 500, says: /success but the status is not 2xx/ },
    { name: 'an error envelope with no code', reply: json(400, { success: false, message: 'no', errors: [] }), status: 400, says: /no "code"/ },
    { name: 'data and errors together', reply: json(200, { ...success(full), errors: [] }), status: 200, says: /both "data" and "errors"/ },
  ];
  for (const scenario of unreadable) {
    it(`turns ${scenario.name} into a bad-response naming HTTP ${scenario.status}`, async () => {
      server.reply(scenario.reply);
      const result = await client.retrievePayment('TE_1');
      expect(result).toMatchObject({ kind: 'bad-response', httpStatus: scenario.status });
      expect(result.kind === 'bad-response' && result.message).toMatch(new RegExp(`^HTTP ${scenario.status}: `));
      expect(result.kind === 'bad-response' && result.message).toMatch(scenario.says);
    });
  }

  it('names the first bad field of what decides money, and keeps the data as received', async () => {
    const answer = { ...full, amount: '2500' };
    server.reply(json(200, success(answer)));
    const result = await client.verifyPayment('TE_1');
    expect(result).toMatchObject({ kind: 'bad-response', httpStatus: 200, answer });
    expect(result.kind === 'bad-response' && result.message).toMatch(/^HTTP 200: .*data\.amount/);
  });

  it('says which field an answer left out', async () => {
    const { transaction_id: _left, ...answer } = initiated;
    server.reply(json(201, success(answer)));
    const result = await client.initiatePayout(paymentRequest);
    expect(result).toMatchObject({ kind: 'bad-response', httpStatus: 201, answer });
    expect(result.kind === 'bad-response' && result.message).toBe('HTTP 201: the response data does not have the expected shape: the answer has no data.transaction_id');
  });

  it('reads a 202 with extra envelope fields and a message that is not words as a success without a message', async () => {
    server.reply(json(202, { ...success(initiated), message: { text: 'queued' }, request_id: 'req-9', meta: { region: 'cm' } }));
    expect(await client.initiatePayout(paymentRequest)).toMatchObject({ kind: 'success', httpStatus: 202, message: null, data: { transaction_id: 'TE_8f2k1' } });
  });

  it('reads the initiate subset from retrieve too: the fee fields are null, not an unreadable answer', async () => {
    server.reply(json(200, success(initiated)));
    const result = await client.retrievePayment('TE_1');
    expect(result).toMatchObject({ kind: 'success', data: { transaction_id: 'TE_8f2k1', fee: null, net_amount: null, application: null } });
  });
});

describe('the secret key', () => {
  it('is fetched per call and never appears in any result', async () => {
    const results: unknown[] = [];
    server.reply(
      json(401, failure('INVALID_DIGITAL_SIGNATURE', `Signature mismatch for secret ${SECRETS[PAYMENT_PUBLIC]}`, { [SECRETS[PAYMENT_PUBLIC] as string]: [SECRETS[PAYMENT_PUBLIC] as string] })),
      raw(200, `oops ${SECRETS[PAYOUT_PUBLIC]}`),
      json(200, success({ ...full, amount: SECRETS[PAYMENT_PUBLIC], description: SECRETS[PAYMENT_PUBLIC] })),
      json(404, failure('PAYOUT_NOT_FOUND', 'Payout not found')),
    );
    results.push(await client.createPayment(paymentRequest));
    results.push(await client.getBalance());
    results.push(await client.verifyPayment('TE_1'));
    results.push(await client.retrievePayout('TE_2'));
    expect(secrets.calls).toEqual([PAYMENT_PUBLIC, PAYOUT_PUBLIC, PAYMENT_PUBLIC, PAYOUT_PUBLIC]);
    const failing = createClient(profileFor(server.url), async () => {
      throw new Error(`keychain locked; last value ${SECRETS[PAYMENT_PUBLIC]}`);
    });
    const refused = await failing.createPayment(paymentRequest);
    await failing.close();
    expect(refused).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'SECRET_UNAVAILABLE' });
    expect(refused.kind === 'transport' && refused.message).toMatch(/keychain locked/);
    results.push(refused);
    expect(server.requests).toHaveLength(4);
    const text = JSON.stringify(results);
    expect(results.map((result) => (result as { kind: string }).kind)).toEqual(['api-error', 'bad-response', 'bad-response', 'api-error', 'transport']);
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
    for (const request of server.requests) {
      const wire = JSON.stringify(request.headers) + request.target + request.body.toString('utf8');
      for (const secret of ALL_SECRETS) expect(wire).not.toContain(secret);
    }
  });

  it('an empty secret sends nothing', async () => {
    const empty = createClient(profileFor(server.url), async () => '');
    expect(await empty.getBalance()).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'SECRET_UNAVAILABLE' });
    await empty.close();
    expect(server.requests).toHaveLength(0);
  });
});

describe('buildSignedRequest (for crafting requests by hand)', () => {
  const profile = profileFor('https://api.example.com/gw', { headerWord: 'ACME' });
  const secretKey = SECRETS[PAYMENT_PUBLIC] as string;

  it('signs a GET over the prefixed path and the raw query', () => {
    const signed = buildSignedRequest({ profile, publicKey: PAYMENT_PUBLIC, secretKey, method: 'get', path: '/v1/payments/x', query: 'identifier_type=external_id', timestampSeconds: 1795305600 });
    expect(signed.canonical).toBe(`${PAYMENT_PUBLIC}.1795305600.GET./gw/v1/payments/x.identifier_type=external_id`);
    expect(signed.url).toBe('https://api.example.com/gw/v1/payments/x?identifier_type=external_id');
    expect(signed.body).toBeUndefined();
    expect(signed.headers).toMatchObject({ Authorization: PAYMENT_PUBLIC, 'X-ACME-Timestamp': '1795305600', 'X-ACME-Environment': 'sandbox' });
    expect(signed.headers['Content-Type']).toBeUndefined();
  });

  it('returns the body bytes it signed', () => {
    const body = '{"amount":1,"note":"ü"}';
    const signed = buildSignedRequest({ profile, publicKey: PAYMENT_PUBLIC, secretKey, method: 'POST', path: '/v1/payments', body, timestampSeconds: 1 });
    expect(signed.body?.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(signed.canonical).toBe(`${PAYMENT_PUBLIC}.1.POST./gw/v1/payments.${body}`);
    const parts = { publicKey: PAYMENT_PUBLIC, timestamp: '1', method: 'POST', path: '/gw/v1/payments', payload: body };
    expect(verifySignature(secretKey, parts, signed.headers['X-ACME-Signature'] as string)).toBe(true);
    expect(signed.headers['Content-Type']).toBe('application/json');
  });

  it('knows the key type of each endpoint path', () => {
    expect(keyTypeForPath('/v1/payments')).toBe('payment');
    expect(keyTypeForPath('/v1/payments/TE_1/verify')).toBe('payment');
    expect(keyTypeForPath('/v1/payouts/initiate')).toBe('payout');
    expect(keyTypeForPath('/v1/balance')).toBe('payout');
    expect(() => keyTypeForPath('/v1/paymentsX')).toThrow(RangeError);
  });
});
