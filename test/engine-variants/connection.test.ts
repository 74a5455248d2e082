/**
 * The variants about how an answer arrives, over real HTTP: bare-429 (no Retry-After, no code) and
 * reset-after-create (the payout is committed, the connection reset before any answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/index';
import { send, transactionBody } from './http';

describe('bare-429', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    // Real time pinned: the rate-limit minute moves only when the test moves the engine clock.
    const pinnedMicros = Date.now() * 1000;
    sandbox = await startSandbox({ rateLimit: { perKeyPerMinute: 1 }, wallMicros: () => pinnedMicros });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  /** Two requests of one key at the start of a fresh minute: the second is over the limit of 1. */
  async function overTheLimit() {
    sandbox.advanceClock(60 - (sandbox.engine.clock.nowSeconds() % 60));
    expect((await send(sandbox, 'GET', '/v1/payments/TE_none')).status).toBe(404);
    return send(sandbox, 'GET', '/v1/payments/TE_none');
  }

  it('answers the rate limit without Retry-After and with success:false and a message only', async () => {
    const plain = await overTheLimit();
    expect(plain.status).toBe(429);
    expect(plain.headers.get('retry-after')).toBe('60');
    expect(plain.json()).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED', errors: [] });

    sandbox.setVariants(['bare-429']);
    const bare = await overTheLimit();
    expect(bare.status).toBe(429);
    expect(bare.headers.get('retry-after')).toBeNull();
    expect(bare.headers.get('content-type')).toMatch(/^application\/json/);
    expect(bare.json()).toEqual({ success: false, message: 'Too Many Requests' });
  });
});

describe('reset-after-create', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ settleMs: 60_000 });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  /** Sends a payout; 'reset' when the connection was reset without an answer. */
  async function initiate(body: Record<string, unknown>): Promise<number | 'reset'> {
    try {
      return (await send(sandbox, 'POST', '/v1/payouts/initiate', body)).status;
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      expect(cause?.code).toMatch(/^(ECONNRESET|UND_ERR_SOCKET)$/);
      return 'reset';
    }
  }

  it('answers every create by default', async () => {
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push(await initiate(transactionBody()));
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('resets every Nth create after committing it: the payout exists, the wallet paid once', async () => {
    sandbox.setVariants({ enabled: ['reset-after-create'], resetEvery: 2 });
    const bodies = [1, 2, 3, 4].map((index) => transactionBody({ amount: 1000 * index }));
    const before = sandbox.engine.control.walletBalance(sandbox.appId, 'sandbox');
    const statuses = [];
    for (const body of bodies) statuses.push(await initiate(body));
    expect(statuses).toEqual([200, 'reset', 200, 'reset']);

    // The reset ones were created all the same, each once: found by their external id, and charged.
    for (const body of [bodies[1], bodies[3]]) {
      const found = await send(sandbox, 'GET', `/v1/payouts/${String(body?.external_id)}?identifier_type=external_id`);
      expect(found.status).toBe(200);
      expect(found.json()).toMatchObject({ data: { external_id: body?.external_id, amount: body?.amount } });
    }
    const charged = bodies.reduce((sum, body) => sum + Number(body.amount) + sandbox.engine.api.feeFor('payout', Number(body.amount)), 0);
    expect(sandbox.engine.control.walletBalance(sandbox.appId, 'sandbox')).toBe(before - charged);

    // A fifth create is answered; set again, the count starts again: the next create is answered too.
    expect(await initiate(transactionBody())).toBe(200);
    sandbox.setVariants({ enabled: ['reset-after-create'], resetEvery: 2 });
    expect(await initiate(transactionBody())).toBe(200);
    expect(await initiate(transactionBody())).toBe('reset');
  });

  it('with resetEvery 1 (the default) resets every create; a refusal is answered and not counted', async () => {
    sandbox.setVariants(['reset-after-create']);
    const body = transactionBody();
    expect(await initiate(body)).toBe('reset');
    // The same external id again: refused with the default's 422, answered.
    expect(await initiate(body)).toBe(422);
    expect(await initiate(transactionBody())).toBe('reset');
  });
});
