/**
 * A batch's rows page by page (`batches:rows`, what the Bulk payouts table asks for) and the rows
 * that changed pushed with each progress event while sending (`changedRows`, a delta), on the
 * real runtime, engine and journal.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_DELTA_MAX, batchFigures, type BatchProgress, type BatchRow } from '../../shared/api';
import { expectFail, expectOk, startRuntime } from './helpers';
import { BATCH_HEADER, batchCsv, batchReaches, withRows } from './batch-helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime({ engine: { settleMs: 0 } });
});

afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const handlers = () => runtime.handlers;

/** 1,200 rows; every 100th has a bad amount, rows 2 and 3 are duplicates of each other. */
function mixedCsv(): string {
  const lines = [BATCH_HEADER];
  for (let index = 0; index < 1200; index += 1) {
    const amount = index % 100 === 50 ? 'abc' : String(1000 + (index === 1 ? 0 : index));
    const phone = `+2376700${String(index === 1 ? 0 : index).padStart(5, '0')}`;
    lines.push(`${phone},${amount},Person${index},Rows,p${index}@example.com,Paged ${index},`);
  }
  return `${lines.join('\n')}\n`;
}

describe('batches:rows', () => {
  it('answers one page in row order with the total the filter keeps, an empty page past the end, and each list', async () => {
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'paged.csv', text: mixedCsv(), paymentMethod: 'momo_cm' }));
    expect(batch.counts).toMatchObject({ rows: 1200, invalid: 12, duplicates: 2 });

    const page = expectOk(await handlers()['batches:rows']({ batchId: batch.id, offset: 500, limit: 100 }));
    expect(page).toMatchObject({ batchId: batch.id, filter: 'all', total: 1200, offset: 500 });
    expect(page.rows.map((row) => row.rowNumber)).toEqual(Array.from({ length: 100 }, (_, i) => 502 + i));
    expect(page.rows[0]).toMatchObject({ state: 'not_sent', externalId: `${batch.id}-502`, values: { first_name: 'Person500' } });

    const first = expectOk(await handlers()['batches:rows']({ batchId: batch.id }));
    expect(first.rows).toHaveLength(100);
    expect(first.rows[0]!.rowNumber).toBe(2);

    const past = expectOk(await handlers()['batches:rows']({ batchId: batch.id, offset: 5000, limit: 10 }));
    expect(past).toMatchObject({ total: 1200, rows: [] });

    const invalid = expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'invalid', limit: 500 }));
    expect(invalid.total).toBe(12);
    expect(invalid.rows.map((row) => row.rowNumber)).toEqual(Array.from({ length: 12 }, (_, i) => 52 + i * 100));
    expect(invalid.rows.every((row) => row.request === null && row.errors.amount !== undefined)).toBe(true);

    const duplicates = expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'duplicates' }));
    expect(duplicates.rows.map((row) => row.rowNumber)).toEqual([2, 3]);
    expect(expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'wouldFail' })).total).toBe(0);
    expect(expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'failed' })).total).toBe(0);

    // The same rows as the whole batch read page by page.
    const all = await withRows(handlers(), batch.id);
    expect(all.rows).toHaveLength(1200);
    expect(all.rows.slice(500, 600)).toEqual(page.rows);
  });

  it('refuses bad input precisely, and an unknown batch by its id', async () => {
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'bad-input.csv', text: batchCsv(3), paymentMethod: 'momo_cm' }));
    const tooMany = expectFail(await handlers()['batches:rows']({ batchId: batch.id, limit: 501 }), 'INVALID_INPUT');
    expect(tooMany.fields).toEqual({ limit: ['must be at most 500'] });
    const negative = expectFail(await handlers()['batches:rows']({ batchId: batch.id, offset: -1 }), 'INVALID_INPUT');
    expect(Object.keys(negative.fields ?? {})).toEqual(['offset']);
    const filter = expectFail(await handlers()['batches:rows']({ batchId: batch.id, filter: 'late' as 'all' }), 'INVALID_INPUT');
    expect(Object.keys(filter.fields ?? {})).toEqual(['filter']);
    const unknown = expectFail(await handlers()['batches:rows']({ batchId: 'B-nope' }), 'NOT_FOUND');
    expect(unknown.message).toBe('No batch B-nope.');
  });

  it('drops every row with errors at once (`invalid: true`), and needs exactly one of rowNumbers and invalid', async () => {
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'drop.csv', text: mixedCsv(), paymentMethod: 'momo_cm' }));
    expectFail(await handlers()['batches:dropRows']({ batchId: batch.id }), 'INVALID_INPUT');
    expectFail(await handlers()['batches:dropRows']({ batchId: batch.id, rowNumbers: [2], invalid: true }), 'INVALID_INPUT');
    const dropped = expectOk(await handlers()['batches:dropRows']({ batchId: batch.id, invalid: true }));
    expect(dropped.batch.counts).toMatchObject({ rows: 1188, invalid: 0 });
    expect(dropped).not.toHaveProperty('rows');
    const again = expectFail(await handlers()['batches:dropRows']({ batchId: batch.id, invalid: true }), 'CONFLICT');
    expect(again.message).toBe(`Batch ${batch.id} has no row with errors to drop.`);
  });
});

describe('progress pushes carry the rows that changed', () => {
  it('every row reaches the screen through the deltas, each as the journal has it when the batch is done', async () => {
    const text = batchCsv(300, { tag: 'Delta' });
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'delta.csv', text, paymentMethod: 'momo_cm' }));
    const pushes: BatchProgress[] = [];
    const off = runtime.on('batch:progress', (progress) => progress.batchId === batch.id && pushes.push(progress));
    const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
    const confirmation = expectOk(await handlers()['batches:prepare']({ batchId: batch.id }));
    expectOk(await handlers()['batches:start']({ batchId: batch.id, confirmationToken: confirmation.confirmationToken, concurrency: 4 }));
    expect((await done).state).toBe('done');
    off();

    // What a screen holding every row would show after patching them in push order.
    const seen = new Map<number, BatchRow>();
    for (const push of pushes) {
      expect(push.changedRows).not.toBeNull();
      expect((push.changedRows ?? []).length).toBeLessThanOrEqual(BATCH_DELTA_MAX);
      for (const row of push.changedRows ?? []) seen.set(row.rowNumber, row);
    }
    const carried = pushes.filter((push) => (push.changedRows ?? []).length > 0).length;
    expect(carried).toBeGreaterThan(0);
    // No push sends the whole batch again: together they carry each row about once or twice (in flight, answered).
    expect(pushes.reduce((n, push) => n + (push.changedRows?.length ?? 0), 0)).toBeLessThan(300 * 3);
    const journal = await withRows(handlers(), batch.id);
    expect(seen.size).toBe(300);
    for (const row of journal.rows) {
      const pushed = seen.get(row.rowNumber)!;
      expect({ row: row.rowNumber, state: pushed.state, journalId: pushed.journalId, transactionId: pushed.transactionId }).toEqual({
        row: row.rowNumber,
        state: row.state,
        journalId: row.journalId,
        transactionId: row.transactionId,
      });
    }
  });

  it('the failed list holds the rows the service refused or that ended failed or cancelled (what the Failed counter counts)', async () => {
    const text = batchCsv(20, { tag: 'Failed list' });
    const { batch } = expectOk(await handlers()['batches:import']({ fileName: 'failed.csv', text, paymentMethod: 'momo_cm' }));
    const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
    const confirmation = expectOk(await handlers()['batches:prepare']({ batchId: batch.id }));
    expectOk(await handlers()['batches:start']({ batchId: batch.id, confirmationToken: confirmation.confirmationToken }));
    await done;
    const all = await withRows(handlers(), batch.id);
    const failed = expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'failed' }));
    const expected = all.rows.filter((row) => row.state === 'rejected' || (row.state === 'accepted' && (row.status === 'failed' || row.status === 'cancelled')));
    expect(expected.length).toBeGreaterThan(0);
    expect(failed.rows.map((row) => row.rowNumber)).toEqual(expected.map((row) => row.rowNumber));
    expect(failed.total).toBe(batchFigures(all.batch.counts).failed);
    const unknown = expectOk(await handlers()['batches:rows']({ batchId: batch.id, filter: 'unknown' }));
    expect(unknown.total).toBe(batchFigures(all.batch.counts).unknown);
  });
});
