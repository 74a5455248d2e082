/**
 * Engine migration 5 (an external id's sequence number, for duplicates-accepted) on a database file
 * written before it: the payout already there keeps its id, the default still refuses its external
 * id, and the variant adds one more that retrieve by external id answers.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../packages/sandbox/src/index';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { tempDir } from '../engine/helpers';
import { send, transactionBody } from './http';

const temp = tempDir();
afterAll(() => temp.cleanup());

/** Takes a file back to the schema before migration 5 (what an earlier version left on disk). */
function downgradeToVersion4(file: string): void {
  const db = new Database(file);
  try {
    db.exec(`
      DELETE FROM schema_migrations WHERE version = 5;
      DROP INDEX transactions_external_id;
      ALTER TABLE transactions DROP COLUMN external_id_seq;
      CREATE UNIQUE INDEX transactions_external_id ON transactions (app_id, environment, kind, external_id) WHERE external_id IS NOT NULL;
    `);
  } finally {
    db.close();
  }
}

describe('engine migration 5 (external id sequence)', () => {
  it('upgrades a file with a payout: the default refuses its external id, duplicates-accepted adds the latest', async () => {
    const file = join(temp.dir, 'before-5.db');
    const body = transactionBody();
    const first = await startSandbox({ db: file, settleMs: 60_000 });
    let firstId: string;
    try {
      const created = await send(first, 'POST', '/v1/payouts/initiate', body);
      expect(created.status).toBe(200);
      firstId = created.json<{ data: { transaction_id: string } }>().data.transaction_id;
    } finally {
      await first.stop();
    }
    downgradeToVersion4(file);

    const second = await startSandbox({ db: file, settleMs: 60_000 });
    try {
      const db = engineInternals(second.engine).db;
      expect(db.prepare('SELECT external_id_seq FROM transactions WHERE id = ?').pluck().get(firstId)).toBe(0);
      expect((await send(second, 'POST', '/v1/payouts/initiate', body)).status).toBe(422);

      second.setVariants(['duplicates-accepted']);
      const again = await send(second, 'POST', '/v1/payouts/initiate', body);
      expect(again.status).toBe(200);
      const againId = again.json<{ data: { transaction_id: string } }>().data.transaction_id;
      expect(db.prepare('SELECT external_id_seq FROM transactions WHERE id = ?').pluck().get(againId)).toBe(1);
      const latest = await send(second, 'GET', `/v1/payouts/${String(body.external_id)}?identifier_type=external_id`);
      expect(latest.json()).toMatchObject({ data: { transaction_id: againId } });
    } finally {
      await second.stop();
    }
  });
});
