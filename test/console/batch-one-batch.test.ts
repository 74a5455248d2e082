/**
 * A row belongs to one batch (issue 37 item 3; docs/decisions/a-row-belongs-to-one-batch.md),
 * over the real engine behind a proxy and a real SQLite journal: a batch cancelled mid-way, its
 * remaining rows sent as a new batch. The rows MOVE there: the old batch keeps its sent rows and
 * names the moved ones; the two batches' counters and reports add up to the file's payouts
 * exactly, each row paid once at the engine.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchFigures } from '../../shared/api';
import { readCsv } from '../../shared/csv/read';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { sendAndCancel, sendConfirmed, withRows } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, startRuntime, virtualClock } from './helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
let proxy: GateProxy;

beforeAll(async () => {
  runtime = await startRuntime({ clock: virtualClock(), engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  proxy = await startGateProxy(runtime.engineUrl!);
  await activateEngineProfile(runtime, proxy.url, 'Finance, one batch');
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const engineCount = (externalId: string) =>
  (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

function file(count: number): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 0; index < count; index += 1) lines.push(`+23767${String(index + 1).padStart(7, '0')},${100 + index},Person${index},Move,p${index}@example.com,move ${index},`);
  return `${lines.join('\n')}\n`;
}

/** The report's rows by column name (its English header). */
async function report(batchId: string): Promise<Record<string, string>[]> {
  const { csv } = expectOk(await runtime.handlers['batches:report']({ batchId, language: 'en' }));
  const read = readCsv(csv);
  if (!read.ok) throw new Error('the report is not a CSV file');
  const [header, ...records] = read.file.records.filter((record) => record.length > 1);
  return records.map((record) => Object.fromEntries(header!.map((name, index) => [name, record[index] ?? ''])));
}

describe('a cancelled batch\'s remaining rows sent as a new batch', () => {
  it('move there: both batches\' counters and reports add up to the file\'s payouts exactly, each paid once', async () => {
    const draft = expectOk(await runtime.handlers['batches:import']({ fileName: 'october.csv', text: file(8), paymentMethod: 'momo_cm' }));
    const oldId = draft.batch.id;
    expect((await sendAndCancel(runtime, proxy, oldId, `${oldId}-4`)).state).toBe('cancelled');
    const cancelled = await withRows(runtime.handlers, oldId);
    const sentBefore = batchFigures(cancelled.batch.counts);
    expect(sentBefore.sent + sentBefore.remaining).toBe(8);
    expect(sentBefore.remaining).toBeGreaterThan(0);

    const made = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:sendRemaining']({ batchId: oldId })));
    const newId = made.batch.id;
    expect(made.batch).toMatchObject({ state: 'draft', retryOf: oldId, fileName: 'october (remaining).csv' });
    expect(made.rows.map((row) => row.externalId)).toEqual(cancelled.rows.filter((row) => row.state === 'not_sent').map((row) => row.externalId));

    // The old batch at once: its sent rows, the others moved (a link to the new batch), nothing remaining.
    const old = await withRows(runtime.handlers, oldId);
    expect(batchFigures(old.batch.counts)).toMatchObject({ sent: sentBefore.sent, remaining: 0, moved: sentBefore.remaining, elsewhere: 0 });
    expect(old.remainingBatch).toMatchObject({ batchId: newId, rows: sentBefore.remaining });
    expect(old.rows.filter((row) => row.movedTo).map((row) => row.movedTo)).toEqual(Array(sentBefore.remaining).fill({ batchId: newId, fileName: 'october (remaining).csv' }));
    // Asked again: the rows are the new batch's, named.
    expect(expectFail(await runtime.handlers['batches:sendRemaining']({ batchId: oldId }), 'CONFLICT').reason).toEqual({ key: 'movedAlready', params: { name: 'october (remaining).csv', batchId: newId } });

    expect(await sendConfirmed(runtime, newId)).toMatchObject({ state: 'done' });
    const oldFigures = batchFigures((await withRows(runtime.handlers, oldId)).batch.counts);
    const newFigures = batchFigures((await withRows(runtime.handlers, newId)).batch.counts);
    expect(oldFigures).toMatchObject({ sent: sentBefore.sent, remaining: 0, moved: sentBefore.remaining });
    expect(newFigures).toMatchObject({ sent: sentBefore.remaining, remaining: 0, moved: 0, elsewhere: 0, completed: sentBefore.remaining });
    // The counters: each payout once, in one batch.
    expect(oldFigures.sent + newFigures.sent).toBe(8);

    // The reports: a transaction id on each payout's line, in one report only; the moved lines say where they went.
    const [oldReport, newReport] = [await report(oldId), await report(newId)];
    const paidLines = [...oldReport, ...newReport].filter((line) => line.transaction_id !== '');
    expect(paidLines).toHaveLength(8);
    expect(new Set(paidLines.map((line) => line.external_id)).size).toBe(8);
    const movedLines = oldReport.filter((line) => line.state!.startsWith('moved to batch'));
    expect(movedLines.map((line) => line.state)).toEqual(Array(sentBefore.remaining).fill(`moved to batch “october (remaining).csv” (${newId}): sent and reported there`));
    expect(movedLines.every((line) => line.transaction_id === '' && line.status === '' && line.journal_id === '')).toBe(true);

    // At the engine: each of the file's rows paid once.
    expect(cancelled.rows.map((row) => engineCount(row.externalId))).toEqual(Array(8).fill(1));
  });
});
