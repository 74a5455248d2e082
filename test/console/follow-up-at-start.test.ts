/**
 * Status changes while the console is stopped (issue 15): a batch's rows are still `processing`
 * when the console stops; the local engine settles them while the console is not there to hear it. The follow-up at start reads every open entry again, so the batch and its report show
 * them final without anyone pressing Verify.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startEngine } from '../../packages/sandbox/src/engine';
import { countRows } from '../../electron/console/batch/store';
import { expectOk, startRuntime, tempDir } from './helpers';
import { batchCsv, batchReaches, until } from './batch-helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

it('shows the rows that settled while the console was stopped as final soon after it starts again', async () => {
  const dir = tempDir('paydesk-follow-up-');
  // Transactions stay processing for an hour in the first run.
  const first = await startRuntime({ userDataDir: dir, engine: { settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } } });
  let batchId = '';
  try {
    const { batch } = expectOk(await first.handlers['batches:import']({ fileName: 'stop.csv', text: batchCsv(20, { phone: () => '+237670000010', tag: 'stop' }), paymentMethod: 'service_demo' }));
    batchId = batch.id;
    const { confirmationToken } = expectOk(await first.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(first, batchId, ['done', 'interrupted']);
    expectOk(await first.handlers['batches:start']({ batchId, confirmationToken, concurrency: 4 }));
    expect((await done).state).toBe('done');
    expect(countRows(first.journal, batchId).counts).toMatchObject({ accepted: 20, processing: 20 });
  } finally {
    await first.close();
  }

  // While the console is stopped, the sandbox moves on: its hour passes and every payout settles.
  const alone = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'sandbox.db') });
  alone.clock.advance(3_600);
  const settled = engineInternals(alone).db.prepare(`SELECT COUNT(*) AS n FROM transactions WHERE external_id LIKE ? AND status = 'completed'`).get(`${batchId}-%`) as { n: number };
  await alone.stop();
  expect(settled.n).toBe(20);

  const second = await startRuntime({ userDataDir: dir, engine: { settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } } });
  try {
    await until(second, ['batch:progress', 'transaction:changed'], () => countRows(second.journal, batchId).counts.processing === 0);
    await second.followUpsIdle();
    const detail = expectOk(await second.handlers['batches:get']({ batchId }));
    expect(detail.batch.counts).toMatchObject({ accepted: 20, completed: 20, processing: 0 });
    const report = expectOk(await second.handlers['batches:report']({ batchId, language: 'en' }));
    expect(JSON.stringify(report)).not.toMatch(/processing/);
  } finally {
    await second.close();
  }
}, 60_000);
