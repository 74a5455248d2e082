import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaydeskClient } from '../../electron/client';
import { parseSeed } from '../../packages/sandbox/src/engine';
import { computeFee } from '../../packages/sandbox/src/ledger/fees';
import { clientFor, ok, paymentBody, profileFor, startTestEngine, waitForStatus, type TestEngine } from './helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

const PAYOUT_AMOUNT = 10_000;
const PAYOUT_FEE = 150; // 1 % of 10 000 plus 50 fixed
const REMAINDER = 4_321;

const seed = parseSeed({
  applications: [
    {
      id: 'app_wallet',
      name: 'Wallet Shop',
      keys: [
        { environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_wallet', secretKey: 'sk_sandbox_payment_wallet_secret' },
        { environment: 'sandbox', type: 'payout', publicKey: 'pk_sandbox_payout_wallet', secretKey: 'sk_sandbox_payout_wallet_secret' },
      ],
      wallets: { sandbox: 1_000_000 },
    },
    {
      id: 'app_twenty',
      name: 'Twenty Payouts',
      keys: [
        { environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_twenty', secretKey: 'sk_sandbox_payment_twenty_secret' },
        { environment: 'sandbox', type: 'payout', publicKey: 'pk_sandbox_payout_twenty', secretKey: 'sk_sandbox_payout_twenty_secret' },
      ],
      wallets: { sandbox: 20 * (PAYOUT_AMOUNT + PAYOUT_FEE) + REMAINDER },
    },
  ],
  fees: { payment: { percentBps: 150, fixed: 0 }, payout: { percentBps: 100, fixed: 50 } },
});

let t: TestEngine;
let client: PaydeskClient;

beforeAll(async () => {
  t = await startTestEngine({ seed, rateLimit: { perKeyPerMinute: 0 } });
  client = t.client;
});
afterAll(async () => {
  await t.stop();
});

const balance = (app = 'app_wallet') => t.engine.control.walletBalance(app, 'sandbox');

describe('fees', () => {
  it('rounds the percentage part up to a whole minor unit and adds the fixed part', () => {
    expect(computeFee({ percentBps: 150, fixed: 0 }, 5000, 'payment')).toBe(75);
    expect(computeFee({ percentBps: 150, fixed: 0 }, 5001, 'payment')).toBe(76); // 75.015
    expect(computeFee({ percentBps: 100, fixed: 50 }, 1, 'payout')).toBe(51); // 0.01 -> 1
    expect(computeFee({ percentBps: 100, fixed: 50 }, 10_000, 'payout')).toBe(150);
    expect(computeFee({ percentBps: 0, fixed: 0 }, 10_000, 'payout')).toBe(0);
  });
  it('never charges a payment more than its amount', () => {
    expect(computeFee({ percentBps: 150, fixed: 500 }, 100, 'payment')).toBe(100);
  });
  it('stays exact for the largest amounts', () => {
    expect(computeFee({ percentBps: 150, fixed: 0 }, 1_000_000_000_000, 'payment')).toBe(15_000_000_000);
    expect(computeFee({ percentBps: 1, fixed: 0 }, 999_999_999_999, 'payout')).toBe(100_000_000);
  });
});

describe('wallet ledger', () => {
  it('a completed payment credits net_amount', async () => {
    const before = balance();
    const created = ok(await client.createPayment(paymentBody({ amount: 5001 })));
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    const full = ok(await client.retrievePayment(created.transaction_id));
    expect(full).toMatchObject({ fee: 76, net_amount: 4925 });
    expect(balance()).toBe(before + 4925);
    expect(t.engine.control.ledger('app_wallet', 'sandbox').at(-1)).toMatchObject({ amount: 4925, transactionId: created.transaction_id });
  });

  it('a failed payment credits nothing', async () => {
    const before = balance();
    const created = ok(await client.createPayment(paymentBody({ phone_number: '+237650000003' })));
    await waitForStatus(t.engine, created.transaction_id, 'failed');
    expect(balance()).toBe(before);
  });

  it('a payout debits amount + fee when it is created', async () => {
    t.engine.control.setSettleMs(600_000);
    try {
      const before = balance();
      const created = ok(await client.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT })));
      expect(balance()).toBe(before - PAYOUT_AMOUNT - PAYOUT_FEE);
      expect(ok(await client.getBalance()).balance).toBe(before - PAYOUT_AMOUNT - PAYOUT_FEE);
      t.engine.control.settleNow(created.transaction_id);
      expect(balance()).toBe(before - PAYOUT_AMOUNT - PAYOUT_FEE);
    } finally {
      t.engine.control.setSettleMs(0);
    }
  });

  it.each([
    ['failed', '+237650000006'],
    ['cancelled', '+237650000009'],
  ] as const)('a %s payout is refunded amount + fee', async (status, phone) => {
    const before = balance();
    const created = ok(await client.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT, phone_number: phone })));
    await waitForStatus(t.engine, created.transaction_id, status);
    expect(balance()).toBe(before);
    const entries = t.engine.control.ledger('app_wallet', 'sandbox').filter((entry) => entry.transactionId === created.transaction_id);
    expect(entries.map((entry) => entry.amount)).toEqual([-(PAYOUT_AMOUNT + PAYOUT_FEE), PAYOUT_AMOUNT + PAYOUT_FEE]);
  });

  it('an expired payout is refunded too', async () => {
    const before = balance();
    const created = ok(await client.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT, phone_number: '+237650000004' })));
    expect(balance()).toBe(before - PAYOUT_AMOUNT - PAYOUT_FEE);
    t.engine.clock.advance(121);
    expect(ok(await client.retrievePayout(created.transaction_id)).failed_code).toBe('EXPIRED');
    expect(balance()).toBe(before);
  });

  it('refuses a payout the wallet cannot cover with 422 INSUFFICIENT_FUNDS and changes nothing', async () => {
    const before = balance();
    const entries = t.engine.control.ledger('app_wallet', 'sandbox').length;
    const count = engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM transactions').pluck().get();
    const result = await client.initiatePayout(paymentBody({ amount: before - 49 })); // fee alone is > 49
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 422, code: 'INSUFFICIENT_FUNDS' });
    expect(balance()).toBe(before);
    expect(t.engine.control.ledger('app_wallet', 'sandbox')).toHaveLength(entries);
    expect(engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM transactions').pluck().get()).toBe(count);
  });

  it('accepts a payout whose amount plus fee equals the balance exactly, leaving 0; one minor unit more is refused', async () => {
    // Bring the wallet to exactly 10,150: amount 10,000 + fee 150.
    t.engine.control.topUp('app_wallet', 'sandbox', PAYOUT_AMOUNT + PAYOUT_FEE - balance(), 'exact balance for the test');
    expect(balance()).toBe(PAYOUT_AMOUNT + PAYOUT_FEE);
    const over = await client.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT + 1 }));
    expect(over).toMatchObject({ kind: 'api-error', code: 'INSUFFICIENT_FUNDS' });
    const exact = ok(await client.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT, phone_number: '+237650000001' })));
    expect(exact).toMatchObject({ status: 'processing', amount: PAYOUT_AMOUNT });
    expect(balance()).toBe(0);
    t.engine.control.topUp('app_wallet', 'sandbox', 1_000_000, 'back to the test float');
  });

  it('the balance is the sum of the ledger', () => {
    const sum = t.engine.control.ledger('app_wallet', 'sandbox').reduce((total, entry) => total + entry.amount, 0);
    expect(sum).toBe(balance());
  });

  it('topUp adds a ledger entry with its reason; a withdrawal cannot go below zero', () => {
    const before = balance();
    expect(t.engine.control.topUp('app_wallet', 'sandbox', 1234, 'manual top-up')).toBe(before + 1234);
    expect(t.engine.control.ledger('app_wallet', 'sandbox').at(-1)).toMatchObject({ amount: 1234, reason: 'manual top-up', transactionId: null });
    expect(() => t.engine.control.topUp('app_wallet', 'sandbox', -(before + 2000), 'too much')).toThrow(/below zero/);
    expect(() => t.engine.control.topUp('app_nobody', 'sandbox', 5, 'x')).toThrow(/no application/);
    expect(balance()).toBe(before + 1234);
  });
});

describe('concurrency', () => {
  it('accepts exactly 20 of 50 concurrent payouts against a wallet covering 20, leaving exactly the remainder', async () => {
    const twenty = clientFor(t.engine, profileFor(t.engine, 'app_twenty'));
    t.engine.control.setSettleMs(600_000);
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, () => twenty.initiatePayout(paymentBody({ amount: PAYOUT_AMOUNT }))),
      );
      const accepted = results.filter((result) => result.kind === 'success');
      const refused = results.filter((result) => result.kind === 'api-error' && result.code === 'INSUFFICIENT_FUNDS');
      expect(accepted).toHaveLength(20);
      expect(refused).toHaveLength(30);
      expect(t.engine.control.walletBalance('app_twenty', 'sandbox')).toBe(REMAINDER);
      expect(ok(await twenty.getBalance()).balance).toBe(REMAINDER);
    } finally {
      t.engine.control.setSettleMs(0);
      await twenty.close();
    }
  });
});
