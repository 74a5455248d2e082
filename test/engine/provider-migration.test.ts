/**
 * Engine migration 4: a provider request names its transaction (settlement joins by primary key,
 * and the index on transactions.provider_ref is gone). A database written before it, with a
 * payment still waiting for the provider, must settle that payment after the upgrade, with its
 * money, exactly as before.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { clientFor, DEMO_APP, ok, paymentBody, tempDir } from './helpers';

const temp = tempDir();
afterAll(() => temp.cleanup());

/** Takes a file back to the schema before migration 4 (what an earlier version left on disk). */
function downgradeToVersion3(file: string): void {
  const db = new Database(file);
  try {
    db.exec(`
      DELETE FROM schema_migrations WHERE version = 4;
      ALTER TABLE provider_requests DROP COLUMN transaction_id;
      CREATE INDEX transactions_provider_ref ON transactions (provider_ref);
      CREATE INDEX ledger_entries_wallet ON ledger_entries (app_id, environment);
    `);
  } finally {
    db.close();
  }
}

describe('engine migration 4 (provider request names its transaction)', () => {
  it('settles a payment created before the upgrade, and credits the wallet once', async () => {
    const file = join(temp.dir, 'upgrade.db');
    const first = await startEngine({ db: file, port: 0, settleMs: 60_000 });
    const client = clientFor(first);
    let transactionId: string;
    let balanceBefore: number;
    try {
      const created = ok(await client.createPayment(paymentBody({ amount: 10_000 })));
      transactionId = created.transaction_id;
      balanceBefore = first.control.walletBalance(DEMO_APP, 'sandbox');
    } finally {
      await client.close();
      await first.stop();
    }
    downgradeToVersion3(file);

    const second = await startEngine({ db: file, port: 0, settleMs: 60_000 });
    try {
      const indexes = engineInternals(second).db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('transactions_provider_ref', 'ledger_entries_wallet')").pluck().all();
      expect(indexes).toEqual([]);
      expect(second.control.transaction(transactionId)?.status).toBe('processing');
      second.clock.advance(120);
      const settled = second.control.transaction(transactionId);
      expect(settled?.status).toBe('completed');
      expect(second.control.walletBalance(DEMO_APP, 'sandbox')).toBe(balanceBefore + (settled?.net_amount ?? Number.NaN));
      expect(second.control.ledger(DEMO_APP, 'sandbox').filter((entry) => entry.transactionId === transactionId)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
