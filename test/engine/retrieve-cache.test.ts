/**
 * Retrieve answers from its cache of answer texts (storage/retrieve-cache.ts) and is never stale:
 * a status change, a write to the application's row, another connection's commit to the same file,
 * and a read made inside an open transaction each leave the next retrieve answering what the table
 * holds. Each test retrieves first (so the text is kept), changes something, then retrieves again.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { retrieveText } from '../../packages/sandbox/src/storage/retrieve-cache';
import { DEMO_APP, ok, paymentBody, startTestEngine, tempDir, type TestEngine } from './helpers';

let t: TestEngine;
const temp = tempDir();

beforeAll(async () => {
  // A file database, so that a second connection can write to it; settlement only when asked.
  t = await startTestEngine({ db: join(temp.dir, 'sandbox.db'), settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
});
afterAll(async () => {
  await t.stop();
  temp.cleanup();
});

async function processingPayment(): Promise<string> {
  const created = ok(await t.client.createPayment(paymentBody()));
  expect(ok(await t.client.retrievePayment(created.transaction_id)).status).toBe('processing');
  return created.transaction_id;
}

describe('retrieve after a change', () => {
  it('answers the new status once the payment settles', async () => {
    const id = await processingPayment();
    t.engine.control.settleNow(id);
    const after = ok(await t.client.retrievePayment(id));
    expect(after.status).toBe('completed');
    expect(after.completed_at).not.toBeNull();
  });

  it("answers the application's new name once its row is written", async () => {
    const id = await processingPayment();
    const { db } = engineInternals(t.engine);
    const name = db.prepare('SELECT name FROM applications WHERE id = ?').pluck().get(DEMO_APP) as string;
    db.prepare('UPDATE applications SET name = ? WHERE id = ?').run('Renamed Shop', DEMO_APP);
    try {
      expect(ok(await t.client.retrievePayment(id)).application?.name).toBe('Renamed Shop');
    } finally {
      db.prepare('UPDATE applications SET name = ? WHERE id = ?').run(name, DEMO_APP);
    }
  });

  it('answers what another connection committed to the same file', async () => {
    const id = await processingPayment();
    const other = new Database(join(temp.dir, 'sandbox.db'));
    try {
      other.prepare("UPDATE transactions SET description = 'changed elsewhere' WHERE id = ?").run(id);
    } finally {
      other.close();
    }
    // The engine notices another connection's commit on its next event-loop turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(ok(await t.client.retrievePayment(id)).description).toBe('changed elsewhere');
  });

  it('does not keep an answer read inside an open transaction (it may yet roll back)', async () => {
    const id = await processingPayment();
    const { db } = engineInternals(t.engine);
    const scope = { appId: DEMO_APP, environment: 'sandbox' as const, kind: 'payment' as const };
    // A new event-loop turn: the retrieve above kept its text; drop it by writing the row, as a change would.
    db.prepare('UPDATE transactions SET updated_at = updated_at WHERE id = ?').run(id);
    db.exec('BEGIN');
    try {
      expect(retrieveText(db, scope, id, () => 'uncommitted')).toBe('uncommitted');
    } finally {
      db.exec('ROLLBACK');
    }
    expect(retrieveText(db, scope, id, () => 'committed')).toBe('committed');
    // And outside a transaction the text is kept: the next read does not build it again.
    expect(retrieveText(db, scope, id, () => 'built again')).toBe('committed');
  });
});
