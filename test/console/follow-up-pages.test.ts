/**
 * A follow-up round reads every open entry, a page at a time (electron/console/sweeper.ts): found by
 * the two-senders benchmark (docs/benchmarks.md), where a round read the oldest 2,000 open payouts and
 * ended, leaving 8,000 "processing" until the next burst five minutes later, and where 2,000 open
 * entries of a profile the console cannot follow (another sender's, no keys) hid every other one.
 * Here the page is 10: 12 entries of a profile this console does not know come first, 25 of a batch
 * after them. The start-up burst makes all 25 final.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { countRows } from '../../electron/console/batch/store';
import { expectOk, startRuntime, tempDir } from './helpers';
import { batchCsv, batchReaches } from './batch-helpers';

it('reads every page of open entries in one round: a first page it cannot follow hides nothing', async () => {
  const dir = tempDir('paydesk-follow-up-pages-');
  const first = await startRuntime({ userDataDir: dir, engine: { settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } } });
  let batchId: string;
  try {
    const { batch } = expectOk(await first.handlers['batches:import']({ fileName: 'pages.csv', text: batchCsv(25, { phone: () => '+237670000010', tag: 'pages' }), paymentMethod: 'service_demo' }));
    batchId = batch.id;
    const { confirmationToken } = expectOk(await first.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(first, batchId, ['done', 'interrupted']);
    expectOk(await first.handlers['batches:start']({ batchId, confirmationToken, concurrency: 4 }));
    expect((await done).state).toBe('done');
    expect(countRows(first.journal, batchId).counts).toMatchObject({ accepted: 25, processing: 25 });
  } finally {
    await first.close();
  }

  // 12 processing entries of a profile this console does not have, older than every row of the batch.
  const journal = new Database(join(dir, 'journal.db'));
  try {
    const model = journal.prepare('SELECT * FROM entries WHERE batch_id = ? LIMIT 1').get(batchId) as Record<string, unknown>;
    const insert = journal.prepare(`INSERT INTO entries (${Object.keys(model).join(', ')}) VALUES (${Object.keys(model).map((key) => `@${key}`).join(', ')})`);
    for (let i = 0; i < 12; i += 1) {
      insert.run({ ...model, seq: null, id: `gone-${i}`, profile_id: 'gone-profile', external_id: `GONE-${i}`, transaction_id: `tx-gone-${i}`, batch_id: null, batch_row: null, updated_at: 1 + i, created_at: 1 + i });
    }
  } finally {
    journal.close();
  }

  // While the console is stopped, the sandbox's hour passes and every payout settles.
  const alone = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'sandbox.db') });
  alone.clock.advance(3_600);
  await alone.stop();

  const second = await startRuntime({ userDataDir: dir, followUpPage: 10, engine: { settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } } });
  try {
    // The start-up burst: one round of three pages and a last short one.
    await second.followUpsIdle();
    expect(countRows(second.journal, batchId).counts).toMatchObject({ accepted: 25, completed: 25, processing: 0 });
    const left = new Database(join(dir, 'journal.db'), { readonly: true });
    try {
      expect(left.prepare(`SELECT COUNT(*) AS n FROM entries WHERE profile_id = 'gone-profile' AND status = 'processing'`).get()).toEqual({ n: 12 });
    } finally {
      left.close();
    }
    expect(engineInternals(second.engine!).db.prepare(`SELECT COUNT(*) AS n FROM transactions WHERE external_id LIKE ? AND status = 'completed'`).get(`${batchId}-%`)).toEqual({ n: 25 });
  } finally {
    await second.close();
  }
}, 60_000);
