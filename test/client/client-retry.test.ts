/**
 * GET retries: 429 and 503 with and without Retry-After, backoff with jitter, and the limits.
 * Sleep is injected, so the waits are recorded rather than spent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backoffDelayMs, createClient, nextDelayMs, parseRetryAfter, type ClientOptions, type PaydeskClient } from '../../electron/client';
import { json, raw, startRecordingServer, type RecordingServer } from './recording-server';
import { FIXED_NOW_MS, PAYMENT_PUBLIC, countingSecrets, failure, full, paymentRequest, profileFor, success } from './sample-data';

let server: RecordingServer;
let sleeps: number[];
let secrets: ReturnType<typeof countingSecrets>;
let clock: number;
const openClients: PaydeskClient[] = [];

function clientWith(options: ClientOptions = {}): PaydeskClient {
  const client = createClient(profileFor(server.url), secrets.secretFor, {
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms; // the injected clock moves with the waits, so timestamps differ per try
    },
    random: () => 0.5,
    ...options,
  });
  openClients.push(client);
  return client;
}

const rateLimited = (retryAfter: string) => json(429, failure('RATE_LIMIT_EXCEEDED', 'Too many requests'), { 'Retry-After': retryAfter });
const maintenance = json(503, failure('MAINTENANCE_MODE', 'Down for maintenance'));

beforeEach(async () => {
  server = await startRecordingServer();
  sleeps = [];
  secrets = countingSecrets();
  clock = FIXED_NOW_MS;
});

afterEach(async () => {
  await Promise.all(openClients.splice(0).map((client) => client.close()));
  await server.close();
});

describe('GET retries', () => {
  it('waits exactly the Retry-After seconds of a 429, then succeeds', async () => {
    server.reply(rateLimited('2'), json(200, success(full)));
    const result = await clientWith().retrievePayment('TE_1');
    expect(result).toMatchObject({ kind: 'success', data: full });
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it('signs every try afresh: new timestamp, secret fetched again', async () => {
    server.reply(rateLimited('3'), json(200, success(full)));
    await clientWith().verifyPayment('TE_1');
    const [first, second] = server.requests;
    expect(Number(second?.headers['x-svc-timestamp']) - Number(first?.headers['x-svc-timestamp'])).toBe(3);
    expect(second?.headers['x-svc-signature']).not.toBe(first?.headers['x-svc-signature']);
    expect(secrets.calls).toEqual([PAYMENT_PUBLIC, PAYMENT_PUBLIC]);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const at = new Date(FIXED_NOW_MS - 500 + 4000).toUTCString(); // whole seconds: 3.5 s ahead, rounded up
    server.reply(rateLimited(at), json(200, success(full)));
    await clientWith().retrievePayment('TE_1');
    expect(sleeps).toEqual([4000]);
  });

  it('retries a 503 with exponential backoff and jitter', async () => {
    server.reply(maintenance, maintenance, json(200, success(full)));
    const result = await clientWith({ retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 } }).retrievePayout('TE_1');
    expect(result.kind).toBe('success');
    expect(server.requests).toHaveLength(3);
    // random() = 0.5: three quarters of 100, then of 200.
    expect(sleeps).toEqual([75, 150]);
  });

  it('retries a 503 whose body is a proxy page, honouring its Retry-After', async () => {
    server.reply(raw(503, '<h1>Service Unavailable</h1>', { 'Content-Type': 'text/html', 'Retry-After': '1' }), json(200, success(full)));
    expect((await clientWith().verifyPayout('TE_1')).kind).toBe('success');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('gives the last answer back when the tries run out', async () => {
    server.reply(maintenance, maintenance, maintenance, json(200, success(full)));
    const result = await clientWith({ retry: { attempts: 3 } }).getBalance();
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 503, code: 'MAINTENANCE_MODE' });
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('does not wait out a Retry-After longer than the cap: hands it back at once', async () => {
    server.reply(rateLimited('120'), json(200, success(full)));
    const result = await clientWith({ retry: { maxDelayMs: 10_000 } }).retrievePayment('TE_1');
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterSeconds: 120 });
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry other errors', async () => {
    server.reply(json(404, failure('PAYMENT_NOT_FOUND', 'Payment not found')), json(500, failure('INTERNAL_ERROR', 'Oops')));
    const client = clientWith();
    expect(await client.retrievePayment('TE_1')).toMatchObject({ kind: 'api-error', httpStatus: 404 });
    expect(await client.retrievePayment('TE_1')).toMatchObject({ kind: 'api-error', httpStatus: 500 });
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });

  it('retries a GET but never a POST', async () => {
    server.reply(maintenance, json(200, success({ environment: 'sandbox', currency: 'XAF', balance: 1 })), maintenance);
    const client = clientWith();
    expect((await client.getBalance()).kind).toBe('success');
    expect(await client.initiatePayout(paymentRequest)).toMatchObject({ httpStatus: 503 });
    expect(server.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'POST']);
  });
});

describe('delay arithmetic', () => {
  const policy = { attempts: 6, baseDelayMs: 300, maxDelayMs: 2000 };
  it('backoff doubles, stays within [half, all] of the ceiling, and is capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 0))).toEqual([150, 300, 600, 1000, 1000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 0.999999))).toEqual([300, 600, 1200, 2000, 2000]);
  });

  it('stops after the last attempt and on an over-long Retry-After', () => {
    expect(nextDelayMs(6, null, policy, () => 0)).toBeNull();
    expect(nextDelayMs(1, 3, policy, () => 0)).toBeNull();
    expect(nextDelayMs(1, 2, policy, () => 0)).toBe(2000);
    expect(nextDelayMs(1, 0, policy, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    const now = Date.UTC(2026, 10, 22, 0, 0, 0);
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Sat, 21 Nov 2026 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-1', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('2026-11-22', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('refuses nonsense options when the client is made', () => {
    expect(() => createClient(profileFor('http://127.0.0.1:1'), secrets.secretFor, { retry: { attempts: 0 } })).toThrow(/attempts/);
    expect(() => createClient(profileFor('http://127.0.0.1:1'), secrets.secretFor, { timeouts: { headersMs: -1 } })).toThrow(/headersMs/);
  });
});
