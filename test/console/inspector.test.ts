/**
 * The request inspector through the console runtime (the handler table, the real engine, the
 * real keychain: run inside `bash scripts/with-keyring.sh`): a failing request's diagnosis arrives
 * as a push event and in `sandbox:requests`; `sandbox:signRequest` gives headers the engine
 * accepts and curl and Node snippets that really work when run; a user's secret from the keychain
 * appears in none of it.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InspectedRequest, SignatureDiagnosis } from '../../shared/contract';
import { canonicalBytes, computeSignature } from '@paydesk/sandbox';
import { expectFail, expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';

const run = promisify(execFile);
type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
const USER_SECRET = 'userSecretFromKeychain_9f8e7d6c';

beforeAll(async () => {
  runtime = await startRuntime();
});
afterAll(async () => {
  await runtime?.close();
  if (runtime) rmSync(runtime.dir, { recursive: true, force: true });
});

describe('sandbox:requests and the sandbox:request push event', () => {
  it('delivers a re-serialised body diagnosis live and lists it under 4xx', async () => {
    const body = { payment_method: 'service_demo', amount: 700, phone_number: '+237650000001', external_id: 'insp-console-1' };
    const publicKey = 'pk_sandbox_payment_paydeskdemo01';
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = computeSignature(
      'sk_sandbox_payment_paydeskdemo01_secret',
      canonicalBytes({ publicKey, timestamp, method: 'POST', path: '/v1/payments', payload: JSON.stringify(body) }),
    );
    const pushed = nextEvent(runtime, 'sandbox:request', (record) => record.path === '/v1/payments' && record.status === 401);
    const response = await fetch(`${runtime.engineUrl}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: publicKey, 'X-SVC-Timestamp': timestamp, 'X-SVC-Signature': signature, 'X-SVC-Environment': 'sandbox', 'Content-Type': 'application/json' },
      body: JSON.stringify(body, null, 2),
    });
    expect(response.status).toBe(401);
    const record = await pushed;
    expect(record.diagnosis).toMatchObject({ check: 'signature', likelyCause: 'body-reserialised', bodyVariant: 'compact' });
    const page = expectOk(await runtime.handlers['sandbox:requests']({ status: '4xx', key: publicKey }));
    expect(page.requests[0]).toEqual(record);
    expect(expectOk(await runtime.handlers['sandbox:requests']({ status: '2xx', key: publicKey })).requests.some((r) => r.id === record.id)).toBe(false);
    expectFail(await runtime.handlers['sandbox:requests']({ status: '4x' }), 'INVALID_INPUT');
  });
});

describe('sandbox:signRequest', () => {
  it('signs with the fixture key the path needs; the engine accepts the headers', async () => {
    const body = JSON.stringify(paymentRequest({ external_id: 'insp-sign-1' }));
    const example = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'POST', path: '/v1/payments', body }));
    expect(example).toMatchObject({ keyType: 'payment', publicKey: 'pk_sandbox_payment_paydeskdemo01', url: `${runtime.engineUrl}/v1/payments` });
    expect(example.canonical).toBe(`pk_sandbox_payment_paydeskdemo01.${example.timestamp}.POST./v1/payments.${body}`);
    const headers = Object.fromEntries(example.headers.map((h) => [h.name, h.value]));
    const response = await fetch(example.url, { method: 'POST', headers, body });
    expect(response.status).toBe(200);
    expect(expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'GET', path: '/v1/balance' })).keyType).toBe('payout');
    const unknownPath = expectFail(await runtime.handlers['sandbox:signRequest']({ method: 'GET', path: '/v2/things' }), 'INVALID_INPUT');
    expect(unknownPath.fields).toEqual({ keyType: ['is required for this path'] });
    expectFail(await runtime.handlers['sandbox:signRequest']({ method: 'GET', path: 'v1/balance' }), 'INVALID_INPUT');
  });

  it('gives a curl snippet that works when run in bash (fresh timestamp, openssl HMAC), twice: a fresh external id each run', async () => {
    const body = JSON.stringify(paymentRequest({ external_id: 'insp-curl-1', description: "L'été à Douala / 2026" }));
    const example = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'POST', path: '/v1/payments', body }));
    const recorded = nextEvent(runtime, 'sandbox:request', (record) => record.method === 'POST' && record.body.includes('L\'été à Douala'));
    const first = JSON.parse((await run('bash', ['-c', example.snippets.curl])).stdout) as { success: boolean; data: { status: string; external_id: string } };
    expect(first).toMatchObject({ success: true, data: { status: 'processing' } });
    expect(first.data.external_id).toMatch(/^ex-\d+-\d+$/);
    expect((await recorded).status).toBe(200);
    // A second run is a new payment, not a DUPLICATE_EXTERNAL_ID.
    const second = JSON.parse((await run('bash', ['-c', example.snippets.curl])).stdout) as { success: boolean; data: { external_id: string } };
    expect(second.success).toBe(true);
    expect(second.data.external_id).not.toBe(first.data.external_id);

    const get = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'GET', path: `/v1/payments/${first.data.external_id}`, query: 'identifier_type=external_id' }));
    const found = await run('bash', ['-c', get.snippets.curl]);
    expect(JSON.parse(found.stdout)).toMatchObject({ success: true, data: { external_id: first.data.external_id, description: "L'été à Douala / 2026" } });
  });

  it('gives a Node snippet for a payment that works on every run, with a fresh external id', async () => {
    const body = JSON.stringify(paymentRequest({ external_id: 'insp-node-1' }));
    const example = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'POST', path: '/v1/payments', body }));
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', example.snippets.node]);
      expect(stdout).toMatch(/^200 \{/);
      ids.push(/external_id: '([^']+)'/.exec(stdout)?.[1] ?? '');
    }
    expect(ids[0]).toMatch(/^ex-/);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('gives a Node snippet that works when run', async () => {
    const example = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'GET', path: '/v1/balance' }));
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', example.snippets.node]);
    expect(stdout).toMatch(/^200 \{/);
    expect(example.snippets.php).toContain("hash_hmac('sha256'");
    expect(example.snippets.node).toContain('// the local sandbox’s test secret, never a real one');
    const french = expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'POST', path: '/v1/payments', body: '{}', language: 'fr' }));
    expect(french.snippets.node).toContain('// envoyez exactement ces octets : ne refaites pas JSON.stringify');
    expect(french.snippets.curl).toContain('# le secret de test du bac à sable local, jamais un vrai');
  });
});

describe('secrets', () => {
  it("never shows the user's keychain secret, only the sandbox's fixture ones", async () => {
    const profile = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Wrong secret',
        baseUrl: runtime.engineUrl!,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: 'pk_sandbox_payment_paydeskdemo01',
        payoutPublicKey: '',
      }),
    );
    expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: 'payment', secret: USER_SECRET }));
    const pushed: InspectedRequest[] = [];
    const off = runtime.on('sandbox:request', (record) => pushed.push(record));
    const recorded = nextEvent(runtime, 'sandbox:request', (record) => record.status === 401 && record.method === 'POST');
    try {
      expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
      expectFail(await runtime.handlers['payments:create']({ request: paymentRequest() }), 'INVALID_DIGITAL_SIGNATURE');
      const record = await recorded;
      expect((record.diagnosis as SignatureDiagnosis).likelyCause).toBe('unknown');
      const outputs = [
        JSON.stringify(pushed),
        JSON.stringify(expectOk(await runtime.handlers['sandbox:requests']({ limit: 500 }))),
        JSON.stringify(expectOk(await runtime.handlers['sandbox:signRequest']({ method: 'POST', path: '/v1/payments', body: '{}' }))),
      ];
      for (const output of outputs) expect(output).not.toContain(USER_SECRET);
    } finally {
      off();
      await runtime.handlers['secrets:delete']({ profileId: profile.id, keyType: 'payment' });
      await runtime.handlers['profiles:activate']({ id: 'local-sandbox' });
    }
  });
});
