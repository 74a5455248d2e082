/**
 * Transport failures against real sockets: whether a request may have reached the server decides
 * whether the console may send a payout again, so each case is produced for real, not mocked.
 */
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyFailure, createClient, type ClientOptions, type PaydeskClient } from '../../electron/client';
import {
  closeConnection,
  closedPort,
  json,
  neverAnswer,
  raw,
  resetConnection,
  stallBody,
  startRecordingServer,
  type RecordingServer,
} from './recording-server';
import { ALL_SECRETS, PAYOUT_PUBLIC, SECRETS, countingSecrets, failure, full, paymentRequest, profileFor, success } from './sample-data';

let server: RecordingServer;
let sleeps: number[];
const openClients: PaydeskClient[] = [];

function clientFor(baseUrl: string, options: ClientOptions = {}): PaydeskClient {
  const client = createClient(profileFor(baseUrl), countingSecrets().secretFor, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    ...options,
  });
  openClients.push(client);
  return client;
}

beforeEach(async () => {
  server = await startRecordingServer();
  sleeps = [];
});

afterEach(async () => {
  await Promise.all(openClients.splice(0).map((client) => client.close()));
  await server.close();
});

function expectNoSecret(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
}

describe('not sent: nothing reached the server', () => {
  it('a refused connection is not-sent', async () => {
    const port = await closedPort();
    const result = await clientFor(`http://127.0.0.1:${port}`).createPayment(paymentRequest);
    expect(result).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'ECONNREFUSED' });
    expect(result.kind === 'transport' && result.message).toMatch(/connection was refused.*not sent/);
    expectNoSecret(result);
  });

  it('a host name that does not resolve is not-sent', async () => {
    const lookupFails = new Agent({
      connect: {
        lookup: (hostname, _options, callback) =>
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4),
      },
    });
    const result = await clientFor('http://api.paydesk.invalid', { dispatcher: lookupFails }).initiatePayout(paymentRequest);
    await lookupFails.close();
    expect(result).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'ENOTFOUND' });
  });

  it('a connect timeout (TLS handshake never answered) is not-sent and no HTTP request arrives', async () => {
    // A TCP listener that accepts and stays silent: the TLS handshake never completes.
    const sockets: Socket[] = [];
    const received: Buffer[] = [];
    const silent = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on('data', (chunk: Buffer) => received.push(chunk));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const result = await clientFor(`https://127.0.0.1:${port}`, { timeouts: { connectMs: 200 } }).createPayment(paymentRequest);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    expect(result).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(Buffer.concat(received).toString('latin1')).not.toContain('/v1/payments');
  });

  it('a closed client is not-sent', async () => {
    const client = clientFor(server.url);
    await client.close();
    expect(await client.getBalance()).toMatchObject({ kind: 'transport', outcome: 'not-sent' });
    expect(server.requests).toHaveLength(0);
    expect(sleeps).toEqual([]);
  });

  it('a header value that cannot be sent is not-sent', async () => {
    // A public key pasted with a line break: it goes out in the Authorization header, which undici refuses to build.
    const broken = `${PAYOUT_PUBLIC}\r\nX-Injected: 1`;
    const client = createClient(profileFor(server.url, { payoutPublicKey: broken }), async () => SECRETS[PAYOUT_PUBLIC] as string, {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    openClients.push(client);
    const result = await client.getBalance();
    expect(result).toMatchObject({ kind: 'transport', outcome: 'not-sent', cause: 'UND_ERR_INVALID_ARG' });
    expect(server.requests).toHaveLength(0);
    expect(sleeps).toEqual([]); // the same request would fail the same way: no retry
  });
});

describe('unknown: the server may have the request', () => {
  it('a POST whose connection is reset after the server read it is unknown, and is not retried', async () => {
    server.reply(resetConnection, json(200, success(full)));
    const result = await clientFor(server.url).createPayment(paymentRequest);
    expect(result).toMatchObject({ kind: 'transport', outcome: 'unknown' });
    expect(result.kind === 'transport' && result.message).toMatch(/after the request was sent.*may have received it/);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expectNoSecret(result);
  });

  it('a POST whose connection is closed without an answer is unknown', async () => {
    server.reply(closeConnection);
    const result = await clientFor(server.url).initiatePayout(paymentRequest);
    expect(result).toMatchObject({ kind: 'transport', outcome: 'unknown', cause: 'UND_ERR_SOCKET' });
    expect(server.requests).toHaveLength(1);
  });

  it('a server that never answers gives a headers timeout: unknown', async () => {
    server.reply(neverAnswer);
    const result = await clientFor(server.url, { timeouts: { headersMs: 150 } }).createPayment(paymentRequest);
    expect(result).toMatchObject({ kind: 'transport', outcome: 'unknown', cause: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(result.kind === 'transport' && result.message).toMatch(/150 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it('a response body that stops part way gives a body timeout: unknown', async () => {
    server.reply(stallBody(200));
    const result = await clientFor(server.url, { timeouts: { bodyMs: 150 }, retry: { attempts: 1 } }).retrievePayment('TE_1');
    expect(result).toMatchObject({ kind: 'transport', outcome: 'unknown', cause: 'UND_ERR_BODY_TIMEOUT' });
  });

  it('a started request is unknown whatever the error code; a header timeout is unknown even unstarted', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyFailure(false, refused).outcome).toBe('not-sent');
    expect(classifyFailure(true, refused).outcome).toBe('unknown');
    expect(classifyFailure(false, Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' })).outcome).toBe('unknown');
    expect(classifyFailure(true, new Error('boom'))).toEqual({ outcome: 'unknown', reason: 'boom', cause: 'Error' });
  });
});

describe('POST is never retried', () => {
  it('a 503 on POST comes back as is, after one request', async () => {
    server.reply(json(503, failure('MAINTENANCE_MODE', 'Down for maintenance'), { 'Retry-After': '1' }), json(200, success(full)));
    const result = await clientFor(server.url).initiatePayout(paymentRequest);
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 503, code: 'MAINTENANCE_MODE', retryAfterSeconds: 1 });
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a 429 on POST comes back as is, after one request', async () => {
    server.reply(json(429, failure('RATE_LIMIT_EXCEEDED', 'Slow down'), { 'Retry-After': '2' }));
    const result = await clientFor(server.url).createPayment(paymentRequest);
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 429, retryAfterSeconds: 2 });
    expect(server.requests).toHaveLength(1);
  });

  it('a 429 that names no code (a bare envelope, a gateway\'s HTML page) is still a refusal to wait for, never an unreadable answer', async () => {
    server.reply(json(429, { success: false, message: 'Too Many Requests' }), raw(429, '<html><body>Too Many Requests</body></html>', { 'Content-Type': 'text/html', 'Retry-After': '7' }));
    const bare = await clientFor(server.url).initiatePayout(paymentRequest);
    expect(bare).toMatchObject({ kind: 'api-error', httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterSeconds: null });
    const page = await clientFor(server.url).initiatePayout(paymentRequest);
    expect(page).toMatchObject({ kind: 'api-error', httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterSeconds: 7 });
    expect(server.requests).toHaveLength(2);
  });
});

describe('GET survives network errors', () => {
  it('a GET whose connection is reset is tried again and succeeds', async () => {
    server.reply(resetConnection, json(200, success(full)));
    const result = await clientFor(server.url).verifyPayment('TE_1');
    expect(result).toMatchObject({ kind: 'success', data: full });
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it('a GET that never gets headers is tried the configured number of times, then unknown', async () => {
    server.reply(neverAnswer, neverAnswer);
    const result = await clientFor(server.url, { timeouts: { headersMs: 100 }, retry: { attempts: 2 } }).retrievePayout('TE_1');
    expect(result).toMatchObject({ kind: 'transport', outcome: 'unknown', cause: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('oversized answers', () => {
  it('a body larger than the limit is a bad-response naming the status', async () => {
    server.reply(raw(200, 'x'.repeat(5000), { 'Content-Type': 'application/json' }));
    const result = await clientFor(server.url, { maxResponseBytes: 1000 }).getBalance();
    expect(result).toEqual({ kind: 'bad-response', httpStatus: 200, message: 'HTTP 200: the response body is larger than 1000 bytes' });
  });
});
