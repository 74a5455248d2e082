/**
 * The Sandbox screen's rate limit and webhook chaos controls (issue 26 item 11), through the
 * console's handlers on the in-process engine: each setting shows in `sandbox:status`, bad input
 * names its field, and a delivery chaos dropped carries why in `sandbox:deliveries`.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let runtime: Awaited<ReturnType<typeof startRuntime>>;
beforeAll(async () => {
  runtime = await startRuntime();
});
afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

it('sets and shows the engine’s rate limit, and refuses a bad value at its field', async () => {
  expect(expectOk(await runtime.handlers['sandbox:setRateLimit']({ perMinute: 30 }))).toEqual({ rateLimitPerKeyPerMinute: 30 });
  expect(expectOk(await runtime.handlers['sandbox:status']({})).rateLimitPerKeyPerMinute).toBe(30);
  const refused = expectFail(await runtime.handlers['sandbox:setRateLimit']({ perMinute: 2.5 }), 'INVALID_INPUT');
  expect(refused.fields).toEqual({ perMinute: ['must be a whole number of requests per minute'] });
  expectOk(await runtime.handlers['sandbox:setRateLimit']({ perMinute: 0 }));
  expect(expectOk(await runtime.handlers['sandbox:status']({})).rateLimitPerKeyPerMinute).toBe(0);
});

it('turns webhook chaos on and off, and a dropped delivery says chaos dropped it', async () => {
  const refused = expectFail(await runtime.handlers['sandbox:setChaos']({ drop: 0 }), 'INVALID_INPUT');
  expect(Object.keys(refused.fields ?? {})).toEqual(['drop']);
  expectFail(await runtime.handlers['sandbox:setChaos']({ drop: 1.5 }), 'INVALID_INPUT');

  const { chaos } = expectOk(await runtime.handlers['sandbox:setChaos']({ drop: 1 }));
  expect(chaos).toMatchObject({ drop: { rate: 1 }, late: null, duplicate: null, out_of_order: null });
  expect(expectOk(await runtime.handlers['sandbox:status']({})).chaos).toMatchObject({ drop: { rate: 1 } });

  expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url: 'http://127.0.0.1:9/hooks' }));
  const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-chaos-1' }) }));
  expectOk(await runtime.handlers['sandbox:settle']({ transactionId: created.transactionId! }));
  // Chaos decides when the delivery is queued, inside the status change's write: settled, it is already dropped.
  const { deliveries } = expectOk(await runtime.handlers['sandbox:deliveries']({}));
  const mine = deliveries.filter((delivery) => delivery.transactionId === created.transactionId);
  expect(mine.length).toBeGreaterThan(0);
  expect(mine.every((delivery) => delivery.state === 'failed')).toBe(true);
  expect(mine[0]!.chaos).toEqual([expect.objectContaining({ effect: 'drop', source: 'chaos' })]);

  expect(expectOk(await runtime.handlers['sandbox:clearChaos']({}))).toEqual({ chaos: null });
  expect(expectOk(await runtime.handlers['sandbox:status']({})).chaos).toBeNull();
});
