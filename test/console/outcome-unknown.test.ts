/**
 * Money safety when a POST gets no answer: a proxy in front of the real engine resets the
 * connection after reading the request (either dropping it, or after the engine created it).
 * The console marks the entry outcome unknown, looks it up by external id, and sends again only
 * when the service says it does not exist, with the same external id.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournal, recordRequest } from '../../electron/console/journal/entries';
import { expectFail, expectOk, paymentRequest, startRuntime, tempDir } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
type Mode = 'forward' | 'drop-then-reset' | 'forward-then-reset' | 'forward-then-500' | 'forward-then-garbage';

let runtime: Runtime;
let proxy: Server;
let proxyUrl: string;
let mode: Mode = 'forward';
const posts: string[] = [];

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function forward(request: IncomingMessage, body: Buffer): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, value);
  }
  return fetch(`${runtime.engineUrl}${request.url}`, { method: request.method, headers, body: request.method === 'GET' ? undefined : new Uint8Array(body) });
}

beforeAll(async () => {
  runtime = await startRuntime();
  proxy = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (request.method === 'POST') posts.push(body.toString('utf8'));
      if (request.method === 'POST' && mode !== 'forward') {
        if (mode !== 'drop-then-reset') await (await forward(request, body)).arrayBuffer();
        if (mode === 'forward-then-500') {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ success: false, message: 'Internal error', code: 'INTERNAL_ERROR', errors: [] }));
        } else if (mode === 'forward-then-garbage') {
          response.writeHead(200, { 'content-type': 'text/html' });
          response.end('<html>502 from a proxy</html>');
        } else {
          request.socket.destroy();
        }
        return;
      }
      const answer = await forward(request, body);
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name: 'Through a flaky network',
      baseUrl: proxyUrl,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
});

afterAll(async () => {
  await runtime?.close();
  await new Promise((resolve) => proxy?.close(resolve));
});

describe('a POST that gets no answer', () => {
  it('becomes outcome unknown; resend is refused until the lookup says it does not exist, then goes with the same external id', async () => {
    mode = 'drop-then-reset';
    const request = paymentRequest({ external_id: 'ORDER-lost-1' });
    const failure = expectFail(await runtime.handlers['payments:create']({ request }), 'OUTCOME_UNKNOWN');
    expect(failure.journalId).toBeDefined();
    const journalId = failure.journalId!;
    const unknown = expectOk(await runtime.handlers['transactions:get']({ journalId }));
    expect(unknown.transaction).toMatchObject({ state: 'outcome_unknown', externalId: 'ORDER-lost-1', transactionId: null });
    expect(unknown.timeline[0]).toMatchObject({ type: 'transport_failure', outcome: 'unknown' });

    mode = 'forward';
    expectFail(await runtime.handlers['transactions:resend']({ journalId }), 'CONFLICT');
    expectFail(await runtime.handlers['transactions:verify']({ journalId }), 'CONFLICT');
    const resolved = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId }));
    expect(resolved.exists).toBe(false);

    const before = posts.length;
    const resent = expectOk(await runtime.handlers['transactions:resend']({ journalId }));
    expect(resent).toMatchObject({ id: journalId, state: 'known', externalId: 'ORDER-lost-1' });
    expect(posts.length).toBe(before + 1);
    expect(JSON.parse(posts.at(-1)!)).toEqual(JSON.parse(posts.at(-2)!));
    // Once known, it cannot be sent a third time.
    expectFail(await runtime.handlers['transactions:resend']({ journalId }), 'CONFLICT');
    expectFail(await runtime.handlers['transactions:resolveUnknown']({ journalId }), 'CONFLICT');
  });

  it('is found by its external id when the server did create it, and is never sent again', async () => {
    mode = 'forward-then-reset';
    const failure = expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-lost-2' }) }), 'OUTCOME_UNKNOWN');
    mode = 'forward';
    const resolved = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId: failure.journalId! }));
    expect(resolved.exists).toBe(true);
    expect(resolved.transaction).toMatchObject({ state: 'known', externalId: 'ORDER-lost-2' });
    expect(resolved.transaction.transactionId).toMatch(/^TE_/);
    const before = posts.length;
    expectFail(await runtime.handlers['transactions:resend']({ journalId: failure.journalId! }), 'CONFLICT');
    expect(posts.length).toBe(before);
  });

  it.each([
    ['a 500 error envelope', 'forward-then-500'],
    ['a 200 that is not an envelope', 'forward-then-garbage'],
  ] as const)('treats %s after a POST as outcome unknown, not as a refusal', async (_label, failingMode) => {
    mode = failingMode;
    const externalId = `ORDER-${failingMode}`;
    const failure = expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: externalId }) }), 'OUTCOME_UNKNOWN');
    mode = 'forward';
    expect(expectOk(await runtime.handlers['transactions:get']({ journalId: failure.journalId! })).transaction.state).toBe('outcome_unknown');
    // The engine did create it: the lookup finds it and a resend is refused.
    const resolved = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId: failure.journalId! }));
    expect(resolved).toMatchObject({ exists: true, transaction: { externalId, state: 'known' } });
    expectFail(await runtime.handlers['transactions:resend']({ journalId: failure.journalId! }), 'CONFLICT');
  });

  it('fills in an external id when the request has none, so the lookup is always possible', async () => {
    mode = 'drop-then-reset';
    const request = paymentRequest();
    delete request.external_id;
    const failure = expectFail(await runtime.handlers['payments:create']({ request }), 'OUTCOME_UNKNOWN');
    const sent = JSON.parse(posts.at(-1)!) as { external_id?: string };
    expect(sent.external_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(expectOk(await runtime.handlers['transactions:get']({ journalId: failure.journalId! })).transaction.externalId).toBe(sent.external_id);
    mode = 'forward';
  });

  it('answers NOT_SENT when nothing could reach the server, and creates nothing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const keys = runtime.engine!.api.applications()[0]!.keys;
    const profile = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Nobody home',
        baseUrl: `http://127.0.0.1:${port}`,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: keys.find((key) => key.environment === 'sandbox' && key.type === 'payment')!.publicKey,
        payoutPublicKey: '',
      }),
    );
    expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
    const failure = expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-refused-1' }) }), 'NOT_SENT');
    const entry = expectOk(await runtime.handlers['transactions:get']({ journalId: failure.journalId! }));
    expect(entry.transaction).toMatchObject({ state: 'rejected', lastError: { code: 'NOT_SENT' } });
    expect(entry.timeline[0]).toMatchObject({ type: 'transport_failure', outcome: 'not-sent' });
  });
});

describe('a crash between writing and sending', () => {
  it('leaves a pending entry that the next start shows as outcome unknown', async () => {
    const dir = tempDir();
    const db = openJournal(`${dir}/journal.db`);
    const pending = recordRequest(db, {
      profile: { id: 'local-sandbox', name: 'Local sandbox', environment: 'sandbox' },
      kind: 'payout',
      request: paymentRequest({ external_id: 'PAYOUT-crashed-1' }),
      currency: 'XAF',
      at: Date.now(),
    });
    db.close();
    const restarted = await startRuntime({ userDataDir: dir });
    try {
      const info = expectOk(await restarted.handlers['app:info']({}));
      expect(info.notices?.map((notice) => notice.code)).toContain('OUTCOME_UNKNOWN');
      // The window words it in its own language from the code and the count.
      expect(info.notices?.find((notice) => notice.code === 'OUTCOME_UNKNOWN')?.params).toEqual({ count: 1 });
      const entry = expectOk(await restarted.handlers['transactions:get']({ journalId: pending.id }));
      expect(entry.transaction.state).toBe('outcome_unknown');
      const resolved = expectOk(await restarted.handlers['transactions:resolveUnknown']({ journalId: pending.id }));
      expect(resolved.exists).toBe(false);
    } finally {
      await restarted.close();
    }
  });
});
