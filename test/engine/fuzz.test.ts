/**
 * Property: whatever arrives over HTTP (random methods, paths, queries, headers, bodies, signed
 * or not), the engine answers an envelope, never a 500, and a refused request changes nothing.
 */
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedRequest } from '../../electron/client';
import { envelopeSchema } from '../../shared/contract';
import { keysOf, profileFor, startTestEngine, type TestEngine } from './helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

let t: TestEngine;

beforeAll(async () => {
  // Nothing settles during the run, so any change of state comes from the request itself.
  t = await startTestEngine({ settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
});
afterAll(async () => {
  await t.stop();
});

function snapshot() {
  const one = (sql: string) => engineInternals(t.engine).db.prepare(sql).pluck().get();
  return {
    transactions: one('SELECT COUNT(*) FROM transactions'),
    events: one('SELECT COUNT(*) FROM transaction_events'),
    ledger: one('SELECT COUNT(*) || \':\' || COALESCE(SUM(amount), 0) FROM ledger_entries'),
    provider: one('SELECT COUNT(*) FROM provider_requests'),
  };
}

const validCustomer = fc.record({
  first_name: fc.oneof(fc.constant('Ada'), fc.string({ maxLength: 120 })),
  last_name: fc.oneof(fc.constant('Ndiaye'), fc.string({ maxLength: 5 })),
  email: fc.oneof(fc.constant('ada@example.com'), fc.string({ maxLength: 20 })),
});

const transactionLike = fc.record(
  {
    payment_method: fc.oneof(fc.constantFrom('service_demo', 'MOMO_CM', 'momo_cm', 'paypal', ''), fc.jsonValue()),
    amount: fc.oneof(fc.integer({ min: -10, max: 20_000_000 }), fc.double(), fc.jsonValue()),
    phone_number: fc.oneof(fc.constantFrom('+237650000001', '+237650000004', '+2250700000001', '650000001'), fc.string({ maxLength: 20 })),
    customer: fc.oneof(validCustomer, fc.jsonValue()),
    external_id: fc.oneof(fc.constantFrom('dup-1', 'dup-2'), fc.string({ maxLength: 10 }), fc.jsonValue()),
    description: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue()),
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

/** Objects or arrays nested up to 30,000 levels (64 KiB holds about 32,000 `[]` pairs). */
const deepJsonText = fc
  .record({ levels: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 5_000, max: 30_000 })), shape: fc.constantFrom('object', 'array', 'mixed') })
  .map(({ levels, shape }) => {
    const open = (index: number) => (shape === 'array' || (shape === 'mixed' && index % 2 === 1) ? '[' : '{"k":');
    const close = (index: number) => (shape === 'array' || (shape === 'mixed' && index % 2 === 1) ? ']' : '}');
    let text = '1';
    for (let index = levels - 1; index >= 0; index -= 1) text = `${open(index)}${text}${close(index)}`;
    return text.startsWith('{') ? text : `{"k":${text}}`;
  });

/** A transaction-like body with deep JSON in one place: metadata, customer.metadata, or anywhere. */
const deeplyNested = fc
  .record({
    value: transactionLike,
    deep: deepJsonText,
    at: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('metadata', 'customer.metadata') },
      { weight: 1, arbitrary: fc.constantFrom('extra', 'customer', 'body') },
    ),
  })
  .map(({ value, deep, at }) => {
    if (at === 'body') return deep;
    const marker = '"__DEEP__"';
    const customer = typeof value.customer === 'object' && value.customer !== null && !Array.isArray(value.customer) ? value.customer : {};
    const shaped =
      at === 'customer.metadata' ? { ...value, customer: { ...customer, metadata: '__DEEP__' } }
      : { ...value, [at]: '__DEEP__' };
    return JSON.stringify(shaped).replace(marker, deep);
  });

const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: transactionLike.map((value) => JSON.stringify(value)) },
  { weight: 4, arbitrary: deeplyNested },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
);

const endpointArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      { method: 'POST', path: '/v1/payments', keyType: 'payment' as const },
      { method: 'POST', path: '/v1/payouts/initiate', keyType: 'payout' as const },
      { method: 'GET', path: '/v1/payments/TE_x', keyType: 'payment' as const },
      { method: 'GET', path: '/v1/payments/dup-1', keyType: 'payment' as const },
      { method: 'GET', path: '/v1/payments/TE_x/verify', keyType: 'payment' as const },
      { method: 'GET', path: '/v1/payouts/TE_x', keyType: 'payout' as const },
      { method: 'GET', path: '/v1/payouts/TE_x/verify', keyType: 'payout' as const },
      { method: 'GET', path: '/v1/balance', keyType: 'payout' as const },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: fc.stringMatching(/^\/(v1\/)?[A-Za-z0-9_.~%/-]{0,30}$/),
      keyType: fc.constantFrom('payment' as const, 'payout' as const),
    }),
  },
);

/** Mostly right, sometimes wrong: so that requests reach every layer. */
function mostly<T, U>(right: T, wrong: fc.Arbitrary<U>): fc.Arbitrary<T | U> {
  return fc.oneof({ weight: 5, arbitrary: fc.constant(right) }, { weight: 1, arbitrary: wrong });
}

const requestArb = fc.record({
  endpoint: endpointArb,
  query: mostly('', fc.oneof(fc.constantFrom('identifier_type=external_id', 'identifier_type=bogus', 'identifier_type='), fc.stringMatching(/^[A-Za-z0-9=&%_.-]{0,30}$/))),
  environment: mostly('sandbox', fc.constantFrom('live', 'Sandbox', '')),
  timestamp: mostly('now', fc.oneof(fc.constantFrom('-1', '0', 'abc', '99999999999999999999'), fc.integer({ min: -1000, max: 1000 }).map(String))),
  signature: mostly('valid', fc.constantFrom('garbage', 'other-secret')),
  drop: mostly([] as string[], fc.subarray(['Authorization', 'X-SVC-Timestamp', 'X-SVC-Signature', 'X-SVC-Environment'], { minLength: 1, maxLength: 2 })),
  contentType: mostly('application/json', fc.constantFrom(undefined, 'text/plain', 'application/json; charset=utf-8', 'application/json; charset=iso-8859-1', '*/*', ';;;')),
  extraHeaders: fc.dictionary(fc.constantFrom('X-Forwarded-For', 'X-SVC-Extra', 'Accept', 'Origin'), fc.stringMatching(/^[\x20-\x7e]{0,20}$/)),
  body,
});

describe('random requests', () => {
  it('never produce a 500 or a non-envelope, and never change state when refused', async () => {
    const keys = keysOf(t.engine);
    const profile = profileFor(t.engine);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (input) => {
        const { method, path, keyType } = input.endpoint;
        const key = keyType === 'payment' ? keys.payment : keys.payout;
        const now = t.engine.clock.wallSeconds();
        const timestampSeconds = input.timestamp === 'now' ? now : /^-?\d+$/.test(input.timestamp) && Math.abs(Number(input.timestamp)) <= 1000 ? now + Number(input.timestamp) : now;
        const signed = buildSignedRequest({
          profile: { ...profile, environment: input.environment === 'live' ? 'live' : 'sandbox' },
          publicKey: key.publicKey,
          secretKey: input.signature === 'other-secret' ? 'sk_some_other_secret_value' : key.secretKey,
          method,
          path,
          query: input.query,
          body: input.body,
          timestampSeconds,
        });
        const headers: Record<string, string> = { ...input.extraHeaders, ...signed.headers };
        headers['X-SVC-Environment'] = input.environment;
        if (input.timestamp !== 'now' && !/^-?\d+$/.test(input.timestamp)) headers['X-SVC-Timestamp'] = input.timestamp;
        if (input.signature === 'garbage') headers['X-SVC-Signature'] = 'zz';
        delete headers['Content-Type'];
        if (input.contentType !== undefined) headers['Content-Type'] = input.contentType;
        for (const name of input.drop) delete headers[name];
        const before = snapshot();
        const response = await request(signed.url, {
          method: method as 'GET',
          headers,
          body: method === 'GET' || method === 'HEAD' ? undefined : signed.body,
        });
        const text = await response.body.text();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        expect(response.statusCode, text).toBeLessThan(500);
        if (method !== 'HEAD') {
          const envelope = envelopeSchema.parse(JSON.parse(text));
          expect(envelope.success).toBe(response.statusCode < 300);
          expect(typeof envelope.message).toBe('string');
        }
        if (response.statusCode >= 400) expect(snapshot()).toEqual(before);
      }),
      { numRuns: 200 },
    );
    if (process.env.FUZZ_STATS) console.log(Object.fromEntries(statuses));
    // The generator reaches several layers (auth, routing, media type, validation...), not one.
    expect(statuses.size).toBeGreaterThanOrEqual(4);
  });
});

describe('deeply nested bodies, correctly signed', () => {
  it('never produce a 500, whatever is nested where, and never change state', async () => {
    const keys = keysOf(t.engine);
    const profile = profileFor(t.engine);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/payments', '/v1/payouts/initiate'), deeplyNested, async (path, body) => {
        const key = path === '/v1/payments' ? keys.payment : keys.payout;
        const signed = buildSignedRequest({ profile, publicKey: key.publicKey, secretKey: key.secretKey, method: 'POST', path, body, timestampSeconds: t.engine.clock.wallSeconds() });
        const before = snapshot();
        const response = await request(signed.url, { method: 'POST', headers: signed.headers, body: signed.body });
        const text = await response.body.text();
        expect(response.statusCode, text.slice(0, 300)).toBeLessThan(500);
        expect(envelopeSchema.parse(JSON.parse(text)).success).toBe(response.statusCode < 300);
        if (response.statusCode >= 400) expect(snapshot()).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });
});
