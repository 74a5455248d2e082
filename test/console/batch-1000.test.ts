/**
 * A 1,000-row batch against the real engine over HTTP, with rows on every sandbox outcome
 * number: the engine's transactions equal the batch's rows one to one, every row ends in the
 * outcome table's status, and the wallet balance is before − Σ(amount + fee) + refunds.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sandboxOutcomeFor } from '../../shared/contract';
import { countRows } from '../../electron/console/batch/store';
import { systemClock } from '../../electron/console/deps';
import { expectOk, startRuntime } from './helpers';
import { OUTCOME_PHONES, batchCsv, batchReaches, until } from './batch-helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  // Real time here: a thousand watches on a virtual clock would spin instead of waiting.
  runtime = await startRuntime({ clock: systemClock, engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } }, watch: { initialDelayMs: 200, maxDelayMs: 1000, limitMs: 5000 } });
});

afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

it('sends 1,000 rows on every outcome number: one engine transaction per row, final statuses as the outcome table says, and the wallet adds up', async () => {
  const engine = runtime.engine!;
  const appId = engine.api.applications()[0]!.id;
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'thousand.csv', text: batchCsv(1000), paymentMethod: 'momo_cm' }));
  expect(batch.counts).toMatchObject({ rows: 1000, valid: 1000, invalid: 0 });
  const confirmation = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const before = engine.control.walletBalance(appId, 'sandbox');
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted', 'cancelled']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken: confirmation.confirmationToken }));
  const finished = await done;
  expect(finished).toMatchObject({ state: 'done', sent: 1000, remaining: 0, unknown: 0 });

  // Settled rows arrive from the engine; the never-answering ones (04) need the expiry window.
  const per = (_phone: string) => 1000 / OUTCOME_PHONES.length;
  await until(runtime, ['transaction:changed'], () => countRows(runtime.journal, batch.id).counts.processing === per('04') + per('08'));
  expectOk(await runtime.handlers['sandbox:advanceClock']({ seconds: 121 }));
  await until(runtime, ['transaction:changed'], () => countRows(runtime.journal, batch.id).counts.processing === per('08'));
  // The provider completed the 08 rows without telling the service: Verify learns it.
  const detail = expectOk(await runtime.handlers['batches:get']({ batchId: batch.id }));
  for (const row of detail.rows.filter((candidate) => candidate.status === 'processing')) {
    expectOk(await runtime.handlers['transactions:verify']({ journalId: row.journalId! }));
  }
  const settled = expectOk(await runtime.handlers['batches:get']({ batchId: batch.id }));
  expect(settled.batch.counts).toMatchObject({ accepted: 1000, processing: 0, rejected: 0, unknown: 0, notSent: 0 });
  for (const row of settled.rows) {
    const outcome = sandboxOutcomeFor(row.request!.phone_number);
    expect({ row: row.rowNumber, status: row.status, failedCode: row.failedCode }).toEqual({ row: row.rowNumber, status: outcome.finalStatus, failedCode: outcome.failedCode });
  }

  // One to one: the engine holds exactly the batch's rows, each once, as sent.
  const engineRows = engineInternals(engine).db
    .prepare(`SELECT external_id, amount, fee, phone_number, status FROM transactions WHERE kind = 'payout' AND external_id LIKE ? ORDER BY external_id`)
    .all(`${batch.id}-%`) as { external_id: string; amount: number; fee: number; phone_number: string; status: string }[];
  expect(engineRows).toHaveLength(1000);
  const byExternalId = new Map(engineRows.map((row) => [row.external_id, row]));
  expect(byExternalId.size).toBe(1000);
  for (const row of settled.rows) {
    expect(byExternalId.get(row.externalId)).toMatchObject({ amount: row.request!.amount, phone_number: row.request!.phone_number, status: row.status });
  }

  // The wallet: before − Σ(amount + fee) + refunds of the failed and cancelled payouts.
  const debited = engineRows.reduce((sum, row) => sum + row.amount + row.fee, 0);
  const refunded = engineRows.filter((row) => row.status === 'failed' || row.status === 'cancelled').reduce((sum, row) => sum + row.amount + row.fee, 0);
  expect(refunded).toBeGreaterThan(0);
  expect(engine.control.walletBalance(appId, 'sandbox')).toBe(before - debited + refunded);
}, 240_000);
