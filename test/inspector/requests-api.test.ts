/**
 * `GET /_sandbox/requests` (paging, filters, parameter checks), the `request` server-sent event,
 * what is and is not recorded, the inspector size, and that no secret key ever appears in any
 * inspector output (issue 12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parseSeed, type SeededApplication } from '../../packages/sandbox/src/engine';
import { parseCliArgs } from '../../packages/sandbox/src/cli';
import type { InspectedRequest } from '../../shared/contract';
import { control, data } from '../engine-control/control';
import { startTestEngine, type TestEngine } from '../engine/helpers';
import { FIXTURE_SECRETS, nextRecord, requestsPage, SANDBOX_PAYMENT, SANDBOX_PAYOUT, sendRaw } from './helpers';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ inspectorSize: 8 });
});
afterAll(async () => {
  await t.stop();
});

describe('GET /_sandbox/requests', () => {
  it('pages newest first, filters by status and key, and keeps only the last N', async () => {
    const sent: InspectedRequest[] = [];
    for (let index = 0; index < 6; index += 1) {
      sent.push((await sendRaw(t.engine, { method: 'GET', path: `/v1/payments/TE_page${index}`, ...SANDBOX_PAYMENT })).record);
    }
    sent.push((await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_x', ...SANDBOX_PAYOUT })).record);
    sent.push((await sendRaw(t.engine, { method: 'GET', path: '/v1/balance', ...SANDBOX_PAYOUT })).record);
    sent.push((await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_y', ...SANDBOX_PAYMENT, sign: { secret: 'sk_sandbox_payment_wrong_one' } })).record);

    const first = await requestsPage(t.engine, '?limit=3');
    expect(first.capacity).toBe(8);
    expect(first.requests.map((r) => r.id)).toEqual(sent.slice(-3).reverse().map((r) => r.id));
    const second = await requestsPage(t.engine, `?limit=3&cursor=${first.nextCursor}`);
    expect(second.requests.map((r) => r.id)).toEqual(sent.slice(-6, -3).reverse().map((r) => r.id));
    const third = await requestsPage(t.engine, `?limit=3&cursor=${second.nextCursor}`);
    // 9 sent, 8 kept: the oldest is gone.
    expect(third.requests.map((r) => r.id)).toEqual(sent.slice(-8, -6).reverse().map((r) => r.id));
    expect(third.nextCursor).toBeNull();

    const failures = await requestsPage(t.engine, '?status=401');
    expect(failures.requests.map((r) => r.code)).toEqual(['INVALID_DIGITAL_SIGNATURE', 'INVALID_API_KEY']);
    expect((await requestsPage(t.engine, '?status=2xx')).requests.map((r) => r.path)).toEqual(['/v1/balance']);
    const byKey = await requestsPage(t.engine, `?key=${SANDBOX_PAYOUT.publicKey}`);
    expect(byKey.requests.map((r) => r.path)).toEqual(['/v1/balance', '/v1/payments/TE_x']);

    const one = data(await control<InspectedRequest>(t.engine, 'GET', `/requests/${sent.at(-1)?.id}`));
    expect(one.diagnosis).toMatchObject({ check: 'signature', likelyCause: 'unknown' });
    const gone = await control(t.engine, 'GET', `/requests/${sent[0]?.id}`);
    expect(gone).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('refuses bad parameters with 422 naming each one', async () => {
    const bad = await control(t.engine, 'GET', '/requests?limit=0&cursor=abc&status=4x&key=&colour=red');
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const errors = bad.body.errors as Record<string, string[]>;
    expect(errors.limit).toEqual(['must be a whole number from 1 to 500']);
    expect(errors.cursor).toEqual(['must be the nextCursor of an earlier page']);
    expect(errors.status).toEqual(['must be an HTTP status (401) or a class (4xx)']);
    expect(errors.key).toEqual(['must not be empty']);
    expect(Object.keys(errors)).toContain('colour');
    expect((await control(t.engine, 'GET', '/requests?limit=501')).status).toBe(422);
    expect((await control(t.engine, 'GET', '/requests', undefined, {})).status).toBe(401);
  });

  it('records 404s on unknown paths but not the control API or the OpenAPI document', async () => {
    const unknown = nextRecord(t.engine);
    const response = await fetch(`${t.engine.api.url}/v2/payments`);
    expect(response.status).toBe(404);
    expect(await unknown).toMatchObject({ path: '/v2/payments', status: 404, code: 'ROUTE_NOT_FOUND', publicKey: null, diagnosis: null });
    await (await fetch(`${t.engine.api.url}/openapi.json`)).text();
    await requestsPage(t.engine);
    const page = await requestsPage(t.engine, '?limit=500');
    expect(page.requests[0]?.path).toBe('/v2/payments');
    expect(page.requests.some((r) => r.path.startsWith('/_sandbox') || r.path === '/openapi.json')).toBe(false);
  });
});

describe('refusals before authentication', () => {
  it('records a 413 and a 503 with their codes and no diagnosis', async () => {
    const tooLarge = nextRecord(t.engine);
    const response = await fetch(`${t.engine.api.url}/v1/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70 * 1024) });
    await response.text();
    expect(response.status).toBe(413);
    expect(await tooLarge).toMatchObject({ path: '/v1/payments', status: 413, code: 'PAYLOAD_TOO_LARGE', diagnosis: null });

    data(await control(t.engine, 'PUT', '/maintenance', { enabled: true }));
    try {
      const { status, code, record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_m', ...SANDBOX_PAYMENT });
      expect([status, code]).toEqual([503, 'MAINTENANCE_MODE']);
      expect(record).toMatchObject({ status: 503, code: 'MAINTENANCE_MODE', publicKey: SANDBOX_PAYMENT.publicKey, diagnosis: null });
    } finally {
      data(await control(t.engine, 'PUT', '/maintenance', { enabled: false }));
    }
  });
});

describe('reset', () => {
  it('keeps the recorded requests after POST /_sandbox/reset', async () => {
    const { record } = await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_before_reset', ...SANDBOX_PAYMENT });
    data(await control(t.engine, 'POST', '/reset'));
    expect((await requestsPage(t.engine)).requests.map((r) => r.id)).toContain(record.id);
  });
});

describe('the request event', () => {
  it('arrives on /_sandbox/events as event: request with the diagnosis', async () => {
    const response = await request(`${t.engine.api.url}/_sandbox/events`, { headers: { authorization: `Bearer ${t.engine.control.adminToken}` } });
    expect(response.statusCode).toBe(200);
    let buffer = '';
    const frame = (async () => {
      for await (const chunk of response.body) {
        buffer += (chunk as Buffer).toString('utf8');
        const match = /event: request\ndata: (.+)\n\n/.exec(buffer);
        if (match?.[1]) return (JSON.parse(match[1]) as { topic: string; data: InspectedRequest }).data;
      }
      throw new Error('the stream ended without a request event');
    })();
    await sendRaw(t.engine, { method: 'GET', path: '/v1/payments/TE_sse', ...SANDBOX_PAYMENT, environment: 'live' });
    const event = await frame;
    response.body.destroy();
    expect(event).toMatchObject({ path: '/v1/payments/TE_sse', status: 401, code: 'API_KEY_ENV_MISMATCH', diagnosis: { check: 'key-environment' } });
  });
});

describe('secrets', () => {
  it('never shows a secret key in any inspector output, fixture or created', async () => {
    const big = await startTestEngine();
    try {
      const app = data(await control<SeededApplication>(big.engine, 'POST', '/applications', { name: 'Secret Shop' }));
      const created = app.keys.find((key) => key.environment === 'sandbox' && key.type === 'payment');
      if (!created) throw new Error('no created key');
      const secrets = [...FIXTURE_SECRETS, ...app.keys.map((key) => key.secretKey)];
      const own = { publicKey: created.publicKey, secret: created.secretKey };
      let stream = '';
      const sse = await request(`${big.engine.api.url}/_sandbox/events`, { headers: { authorization: `Bearer ${big.engine.control.adminToken}` } });
      const reading = (async () => {
        for await (const chunk of sse.body) stream += (chunk as Buffer).toString('utf8');
      })();
      const body = JSON.stringify({ payment_method: 'service_demo', amount: 100, phone_number: '+237650000001', external_id: 'sec-1', metadata: { note: created.secretKey } });
      const attempts = [
        // One at a time (each waits for its own record). Secret in the Authorization header, in the signature header, in the query, in the body, in the path.
        () => sendRaw(big.engine, { method: 'GET', path: '/v1/payments/TE_a', publicKey: created.secretKey, secret: created.secretKey }),
        () => sendRaw(big.engine, { method: 'GET', path: '/v1/payments/TE_b', ...own, signature: created.secretKey }),
        () => sendRaw(big.engine, { method: 'GET', path: '/v1/payments/TE_c', query: `secret=${created.secretKey}`, ...own, sign: { payload: '' } }),
        () => sendRaw(big.engine, { method: 'POST', path: '/v1/payments', body, ...own, sign: { secret: SANDBOX_PAYMENT.secret } }),
        () => sendRaw(big.engine, { method: 'GET', path: `/v1/payments/${SANDBOX_PAYOUT.secret}`, ...SANDBOX_PAYMENT }),
        () => sendRaw(big.engine, { method: 'POST', path: '/v1/payments', body, ...own }),
      ];
      const records = [];
      for (const attempt of attempts) records.push((await attempt()).record);
      const page = JSON.stringify(await requestsPage(big.engine, '?limit=500'));
      const one = JSON.stringify(await control(big.engine, 'GET', `/requests/${records[0]?.id}`));
      await big.stop();
      await reading;
      expect(records[0]?.diagnosis).toMatchObject({ check: 'api-key', reason: 'secret-sent' });
      expect(records[3]?.diagnosis).toMatchObject({ likelyCause: 'other-key', otherPublicKey: SANDBOX_PAYMENT.publicKey });
      expect(stream).toContain('event: request');
      for (const output of [page, one, stream, JSON.stringify(records)]) {
        for (const secret of secrets) expect(output).not.toContain(secret);
      }
      expect(page).toContain('[secret key hidden]');
    } finally {
      await big.stop();
    }
  });
});

describe('public keys that look like secrets inside', () => {
  it('keeps a public key whose name contains "sk_live_" as it is', async () => {
    const seeded = await startTestEngine({
      seed: parseSeed({
        applications: [
          {
            id: 'app_desk',
            name: 'Desk',
            keys: [
              { environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_desk_live_shop1', secretKey: 'sk_sandbox_payment_desk_live_shop1_secret' },
              { environment: 'sandbox', type: 'payout', publicKey: 'pk_sandbox_payout_desk_live_shop1', secretKey: 'sk_sandbox_payout_desk_live_shop1_secret' },
            ],
          },
        ],
      }),
    });
    try {
      const { record } = await sendRaw(seeded.engine, { method: 'GET', path: '/v1/payments/TE_x', publicKey: 'pk_sandbox_payment_desk_live_shop1', secret: 'sk_sandbox_payment_wrong_secret' });
      expect(record.publicKey).toBe('pk_sandbox_payment_desk_live_shop1');
      expect(record.diagnosis).toMatchObject({ check: 'signature', likelyCause: 'unknown' });
      expect(JSON.stringify(record)).not.toContain('shop1_secret');
    } finally {
      await seeded.stop();
    }
  });
});

describe('inspector size', () => {
  it('records nothing with size 0 and says so', async () => {
    const off = await startTestEngine({ inspectorSize: 0 });
    try {
      await (await fetch(`${off.engine.api.url}/v1/payments`)).text();
      const answer = await control<{ requests: unknown[]; capacity: number }>(off.engine, 'GET', '/requests');
      expect(answer.body.message).toBe('The request inspector is off (inspector size 0).');
      expect(data(answer)).toEqual({ requests: [], nextCursor: null, capacity: 0 });
    } finally {
      await off.stop();
    }
  });

  it('refuses a bad size in startEngine and on the command line', async () => {
    await expect(startTestEngine({ inspectorSize: -1 })).rejects.toThrow('inspectorSize must be a whole number from 0 to 100000, got -1');
    expect(parseCliArgs(['--inspector-size', '0']).inspectorSize).toBe(0);
    expect(parseCliArgs(['--inspector-size=2000']).inspectorSize).toBe(2000);
    expect(() => parseCliArgs(['--inspector-size', 'lots'])).toThrow('--inspector-size must be a whole number from 0 to 100000, got "lots"');
    expect(() => parseCliArgs(['--inspector-size', '100001'])).toThrow('--inspector-size must be a whole number from 0 to 100000');
  });
});
