import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { clientFor, ok, paymentBody, tempDir } from './helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

const temp = tempDir();
afterAll(() => temp.cleanup());

describe('restart with the same database file', () => {
  it('keeps transactions, timelines, wallets and external_id uniqueness, in WAL mode', async () => {
    const file = join(temp.dir, 'nested', 'sandbox.db');
    const first = await startEngine({ db: file, port: 0, settleMs: 0 });
    expect(engineInternals(first).db.pragma('journal_mode', { simple: true })).toBe('wal');
    const client = clientFor(first);
    const body = paymentBody();
    const payment = ok(await client.createPayment(body));
    first.control.settleNow(payment.transaction_id);
    const payout = ok(await client.initiatePayout(paymentBody({ amount: 20_000 })));
    first.control.settleNow(payout.transaction_id);
    const balance = first.control.walletBalance('app_paydesk_demo', 'sandbox');
    const timeline = first.control.timeline(payment.transaction_id);
    const keys = first.api.applications();
    await client.close();
    await first.stop();

    const second = await startEngine({ db: file, port: 0, settleMs: 0 });
    const again = clientFor(second);
    try {
      expect(second.api.applications()).toEqual(keys);
      expect(ok(await again.retrievePayment(payment.transaction_id))).toMatchObject({ status: 'completed', external_id: body.external_id });
      expect(ok(await again.retrievePayout(payout.transaction_id)).status).toBe('completed');
      expect(second.control.walletBalance('app_paydesk_demo', 'sandbox')).toBe(balance);
      expect(second.control.timeline(payment.transaction_id)).toEqual(timeline);
      expect(await again.createPayment(body)).toMatchObject({ kind: 'api-error', code: 'VALIDATION_ERROR', fields: { external_id: [expect.any(String)] } });
    } finally {
      await again.close();
      await second.stop();
    }
  });

  it('settles on restart what came due while the engine was stopped', async () => {
    const file = join(temp.dir, 'due.db');
    const first = await startEngine({ db: file, port: 0, settleMs: 60_000 });
    const client = clientFor(first);
    const pending = ok(await client.initiatePayout(paymentBody({ phone_number: '+237650000002' })));
    const balanceAfterDebit = first.control.walletBalance('app_paydesk_demo', 'sandbox');
    await client.close();
    await first.stop();

    // The clock offset is not persisted: a later wall time is simulated by a fresh engine advancing
    // its own clock, which runs the due work before answering.
    const second = await startEngine({ db: file, port: 0, settleMs: 0 });
    try {
      expect(second.control.transaction(pending.transaction_id)?.status).toBe('processing');
      second.clock.advance(61);
      expect(second.control.transaction(pending.transaction_id)).toMatchObject({ status: 'failed', failed_code: 'PAYER_NOT_FOUND' });
      expect(second.control.walletBalance('app_paydesk_demo', 'sandbox')).toBeGreaterThan(balanceAfterDebit);
    } finally {
      await second.stop();
    }
  });

  it('does not re-seed an existing database with a different seed', async () => {
    const file = join(temp.dir, 'seeded.db');
    const first = await startEngine({ db: file, port: 0 });
    first.control.topUp('app_paydesk_demo', 'sandbox', 5, 'kept');
    await first.stop();
    const second = await startEngine({ db: file, port: 0 });
    try {
      expect(second.control.walletBalance('app_paydesk_demo', 'sandbox')).toBe(10_000_005);
      expect(engineInternals(second).db.prepare('SELECT COUNT(*) FROM applications').pluck().get()).toBe(1);
    } finally {
      await second.stop();
    }
  });
});
