/**
 * Money-path edges pinned (issue 15): a confirmation token at exactly its time-to-live, and a
 * batch whose total equals the wallet balance exactly in the console's preview.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRMATION_TTL_MS, createConfirmations } from '../../electron/console/confirmations';
import { batchCsv } from './batch-helpers';
import { expectFail, expectOk, startRuntime } from './helpers';

describe('a confirmation token (README, Decisions: valid for strictly less than its time-to-live)', () => {
  function tokenAt(age: number) {
    let now = 1_000_000;
    const confirmations = createConfirmations(() => now);
    const { token, expiresAt } = confirmations.issue('binding');
    expect(expiresAt).toBe(1_000_000 + CONFIRMATION_TTL_MS);
    now += age;
    return confirmations.consume(token, 'binding');
  }

  it('is accepted 1 ms before its time-to-live (5 minutes)', () => {
    expect(CONFIRMATION_TTL_MS).toBe(5 * 60 * 1000);
    expect(tokenAt(CONFIRMATION_TTL_MS - 1)).toEqual({ ok: true });
  });

  it('is expired at exactly its time-to-live, and after', () => {
    expect(tokenAt(CONFIRMATION_TTL_MS)).toEqual({ ok: false, reason: 'expired' });
    expect(tokenAt(CONFIRMATION_TTL_MS + 1)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('a batch whose total equals the wallet balance', () => {
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  beforeAll(async () => {
    runtime = await startRuntime({ engine: { settleMs: 0 } });
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  });

  it('is accepted by the preview and the confirmation; one minor unit less in the wallet is over the balance', async () => {
    const engine = runtime.engine!;
    const appId = engine.api.applications()[0]!.id;
    const text = batchCsv(3, { phone: () => '+237650000001', amount: (index) => 10_000 + index, tag: 'Exact' });
    const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'exact.csv', text, paymentMethod: 'momo_cm' }));
    const first = expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id }));
    expect(first.feesKnown).toBe(true);
    // The wallet to exactly the batch's total debit (amounts plus fees).
    engine.control.topUp(appId, 'sandbox', first.totalDebit - engine.control.walletBalance(appId, 'sandbox'), 'exact balance for the test');
    const exact = expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id }));
    expect(exact).toMatchObject({ balance: first.totalDebit, totalDebit: first.totalDebit, overBalance: false });
    expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));

    engine.control.topUp(appId, 'sandbox', -1, 'one minor unit short');
    expect(expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id })).overBalance).toBe(true);
    expectFail(await runtime.handlers['batches:prepare']({ batchId: batch.id }), 'INSUFFICIENT_FUNDS');
  });
});
