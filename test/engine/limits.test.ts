import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientResult } from '../../electron/client';
import { paymentBody, startTestEngine, type TestEngine } from './helpers';
import { sendRaw } from '../helpers/raw-request';

let t: TestEngine;
const LIMIT = 5;

beforeAll(async () => {
  // Real time pinned: the rate-limit minute moves only when the test moves the engine clock, so
  // a burst never straddles a minute however slow the machine (the client signs with this time).
  const pinnedMicros = Date.now() * 1000;
  t = await startTestEngine({ rateLimit: { perKeyPerMinute: LIMIT }, wallMicros: () => pinnedMicros });
});
afterAll(async () => {
  await t.stop();
});

function expectError(result: ClientResult<unknown>, httpStatus: number, code: string) {
  expect(result, JSON.stringify(result)).toMatchObject({ kind: 'api-error', httpStatus, code });
}

/** Sends raw bytes and returns the raw response text. */
function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(request);
  });
}

describe('rate limit, per key', () => {
  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once a key passes its limit; other keys are unaffected', async () => {
    // Start at the beginning of a fresh minute on the engine clock.
    t.engine.clock.advance(60 - (t.engine.clock.nowSeconds() % 60));
    const results = [];
    for (let index = 0; index < LIMIT + 1; index += 1) results.push(await t.client.retrievePayment('TE_none'));
    expect(results.slice(0, LIMIT).every((result) => result.kind === 'api-error' && result.code === 'PAYMENT_NOT_FOUND')).toBe(true);
    const limited = results[LIMIT] as ClientResult<unknown>;
    expectError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    expect(limited.kind === 'api-error' && limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(limited.kind === 'api-error' && limited.retryAfterSeconds).toBeLessThanOrEqual(60);
    // The payout key has its own budget.
    expect((await t.client.getBalance()).kind).toBe('success');
    // Refused requests (bad signature) do not spend the key's budget, and a new minute resets it.
    t.engine.clock.advance(60);
    for (let index = 0; index < LIMIT * 2; index += 1) {
      const forged = await sendRaw(t.signer, { method: 'GET', path: '/v1/payments/TE_none', keyType: 'payment', headers: { 'X-SVC-Signature': '0'.repeat(64) } });
      expectError(forged, 401, 'INVALID_DIGITAL_SIGNATURE');
    }
    expect(await t.client.createPayment(paymentBody())).toMatchObject({ kind: 'success' });
  });
});

describe('maintenance switch', () => {
  it('answers 503 MAINTENANCE_MODE before authentication, and recovers when switched off', async () => {
    t.engine.control.setMaintenance(true);
    try {
      expectError(await t.client.createPayment(paymentBody()), 503, 'MAINTENANCE_MODE');
      expectError(await sendRaw(t.signer, { method: 'GET', path: '/v1/balance', keyType: 'payout', omitHeaders: ['Authorization'] }), 503, 'MAINTENANCE_MODE');
    } finally {
      t.engine.control.setMaintenance(false);
    }
    expect((await t.client.getBalance()).kind).toBe('success');
  });
});

describe('body limit', () => {
  it('answers 413 before authentication for an oversized body', async () => {
    const rawBody = 'x'.repeat(65 * 1024);
    expectError(await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody, omitHeaders: ['Authorization'] }), 413, 'PAYLOAD_TOO_LARGE');
  });
  it('accepts a body just under 64 KiB (then validates it)', async () => {
    const body = JSON.stringify({ ...paymentBody(), pad: 'x'.repeat(60 * 1024) });
    const result = await sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody: body });
    expectError(result, 422, 'VALIDATION_ERROR');
  });
});

describe('malformed HTTP', () => {
  it('answers a broken request line with a 400 envelope', async () => {
    const text = await rawHttp(t.engine.api.port, 'GARBAGE\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, code: 'MALFORMED_REQUEST' });
  });
  it('answers a bad percent-encoding in the path with an envelope, never a 500', async () => {
    const response = await fetch(`${t.engine.api.url}/v1/payments/%E0%A4%A`);
    expect(response.status).toBeLessThan(500);
    expect(await response.json()).toMatchObject({ success: false, message: expect.any(String) });
  });
  it('answers an invalid Content-Length with an envelope', async () => {
    const text = await rawHttp(t.engine.api.port, 'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain('"success":false');
  });
});
