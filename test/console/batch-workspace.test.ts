/**
 * Bulk payouts on both stores (issue 24, item 1): the same console steps, through the handlers as
 * the screens call them, on this desktop's SQLite journal and on a team workspace (PostgreSQL,
 * `openStorage`), with the same answers: a draft imported, fixed and trimmed, its invalid rows as
 * a file, rehearsed, confirmed (the earlier-imports check included), sent to the end, its report,
 * a retry of its failed rows with derived ids, and a cancelled draft's remaining rows.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchState, PushEvent } from '../../shared/api';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { expectFail, expectOk, startRuntime } from './helpers';
import { BATCH_HEADER, withRows } from './batch-helpers';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const STORES = [
  { name: 'SQLite', openStorage: undefined },
  { name: 'PostgreSQL', openStorage: async () => workspaces.storeAs('fatou', await workspaces.create()) },
] as const;

/** Resolves once the batch's counters (read through the store) satisfy `check`, re-read after each push. */
function settled(runtime: ConsoleRuntime, batchId: string, state: BatchState): Promise<void> {
  return new Promise((resolve, reject) => {
    let checking = false;
    let again = false;
    const offs: (() => void)[] = [];
    const check = async (): Promise<void> => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        const summary = await runtime.storage.batches.summary(batchId);
        if (summary?.state === state && summary.counts.processing === 0 && summary.counts.unknown === 0 && summary.counts.pending === 0) {
          for (const off of offs) off();
          resolve();
          return;
        }
      } catch (error) {
        reject(error);
        return;
      } finally {
        checking = false;
      }
      if (again) {
        again = false;
        await check();
      }
    };
    for (const event of ['transaction:changed', 'batch:progress'] as PushEvent[]) offs.push(runtime.on(event, () => void check()));
    void check();
  });
}

describe.each(STORES)('on the $name store', ({ name, openStorage }) => {
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  beforeAll(async () => {
    runtime = await startRuntime({ engine: { settleMs: 0 }, watch: { initialDelayMs: 200, maxDelayMs: 200, limitMs: 1 }, ...(openStorage ? { openStorage } : {}) });
    expect(runtime.storage.kind).toBe(name === 'SQLite' ? 'sqlite' : 'postgres');
  }, 60_000);
  afterAll(async () => {
    await runtime?.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  });
  const h = () => runtime.handlers;
  const send = async (batchId: string, extra: { acceptDuplicateFile?: true } = {}) => {
    const { confirmationToken } = expectOk(await h()['batches:prepare']({ batchId, ...extra }));
    const done = settled(runtime, batchId, 'done');
    expectOk(await h()['batches:start']({ batchId, confirmationToken, concurrency: 2 }));
    await done;
  };

  it('imports, fixes, drops, exports the invalid rows, rehearses, confirms, sends, reports and retries the failed rows', async () => {
    const prefix = `WS${name[0]}`;
    const text = [
      BATCH_HEADER,
      `+237650000001,1000,Awa,Nkemdirim,awa@example.com,October,${prefix}-1`,
      `+237650000002,2000,Jean,Mbarga,jean@example.com,October,${prefix}-2`,
      `+237650000009,3000,Paul,Biya,not-an-email,October,${prefix}-3`,
      `+23765,abc,Bad,Row,bad@example.com,,${prefix}-4`,
    ].join('\n');
    const imported = expectOk(await h()['batches:import']({ fileName: 'october.csv', text, paymentMethod: 'momo_cm' }));
    expect(imported.batch.counts).toMatchObject({ rows: 4, valid: 2, invalid: 2 });
    const batchId = imported.batch.id;
    expect(expectOk(await h()['batches:invalidRows']({ batchId, language: 'en' })).rows).toBe(2);
    expectOk(await h()['batches:updateRow']({ batchId, rowNumber: 4, values: { email: 'paul@example.com' } }));
    const trimmed = await withRows(h(), expectOk(await h()['batches:dropRows']({ batchId, invalid: true })));
    expect(trimmed.rows.map((row) => [row.rowNumber, row.externalId])).toEqual([
      [2, `${prefix}-1`],
      [3, `${prefix}-2`],
      [4, `${prefix}-3`],
    ]);
    expect(trimmed.batch.counts).toMatchObject({ rows: 3, valid: 3, invalid: 0 });
    expect(trimmed.batch.totalAmount).toBe(6000);

    const rehearsal = expectOk(await h()['batches:rehearse']({ batchId }));
    expect(rehearsal).toMatchObject({ rows: 3, accepted: 3, wouldFail: 2 });
    expect(expectOk(await h()['batches:get']({ batchId })).rehearsal).toEqual(rehearsal);
    expect(expectOk(await h()['batches:rows']({ batchId, filter: 'wouldFail', offset: 0, limit: 10 })).rows.map((row) => row.rowNumber)).toEqual([3, 4]);

    await send(batchId);
    const sent = await withRows(h(), batchId);
    expect(sent.batch).toMatchObject({ state: 'done', counts: { accepted: 3, completed: 1, failed: 1, cancelled: 1 } });
    expect(sent.rows.map((row) => [row.state, row.status])).toEqual([['accepted', 'completed'], ['accepted', 'failed'], ['accepted', 'cancelled']]);
    expect(sent.retryLeft).toEqual({ failed: 2, rows: 2, retriedIn: null });
    const report = expectOk(await h()['batches:report']({ batchId, language: 'en' }));
    expect(report.csv.split('\n').filter((line) => line.includes(`${prefix}-`)).length).toBe(3);
    expect(expectOk(await h()['batches:list']({})).batches.map((batch) => batch.id)).toContain(batchId);

    // The same file again: the earlier import is named, and confirming it needs the override.
    const again = expectOk(await h()['batches:import']({ fileName: 'october.csv', text, paymentMethod: 'momo_cm' }));
    expect(again.importedBefore.map((earlier) => earlier.batchId)).toEqual([batchId]);
    expectOk(await h()['batches:dropRows']({ batchId: again.batch.id, invalid: true }));
    expect(expectOk(await h()['batches:get']({ batchId: again.batch.id })).sentEarlier).toMatchObject({ count: 2, completed: 1, failed: 1 });
    const refused = expectFail(await h()['batches:prepare']({ batchId: again.batch.id }), 'CONFIRMATION_REQUIRED');
    expect(refused.fields).toHaveProperty('acceptDuplicateFile');

    const retry = await withRows(h(), expectOk(await h()['batches:retryFailed']({ batchId })));
    expect(retry.batch).toMatchObject({ state: 'draft', fileName: 'october (retry 1).csv', retryOf: batchId });
    expect(retry.rows.map((row) => [row.externalId, row.retryOf])).toEqual([
      [`${prefix}-2-r1`, `${prefix}-2`],
      [`${prefix}-3-r1`, `${prefix}-3`],
    ]);
    expect(expectOk(await h()['batches:get']({ batchId })).retryLeft).toMatchObject({ failed: 2, rows: 2, retriedIn: { batchId: retry.batch.id } });
  });

  it('cancels a draft, sends its remaining rows as a new draft, and changes nothing of a batch no longer a draft', async () => {
    const text = [BATCH_HEADER, `+237650000001,500,Awa,N,awa@example.com,,CR${name[0]}-1`, `+237650000001,600,Awa,N,awa@example.com,,CR${name[0]}-2`].join('\n');
    const draft = expectOk(await h()['batches:import']({ fileName: 'rest.csv', text, paymentMethod: 'momo_cm' }));
    const cancelled = expectOk(await h()['batches:cancel']({ batchId: draft.batch.id }));
    expect(cancelled.state).toBe('cancelled');
    expectFail(await h()['batches:updateRow']({ batchId: draft.batch.id, rowNumber: 2, values: { amount: '1' } }), 'CONFLICT');
    expectFail(await h()['batches:dropRows']({ batchId: draft.batch.id, rowNumbers: [2] }), 'CONFLICT');
    const remaining = await withRows(h(), expectOk(await h()['batches:sendRemaining']({ batchId: draft.batch.id })));
    expect(remaining.batch).toMatchObject({ state: 'draft', fileName: 'rest (remaining).csv', retryOf: draft.batch.id });
    expect(remaining.rows.map((row) => row.externalId)).toEqual([`CR${name[0]}-1`, `CR${name[0]}-2`]);
    expect(expectOk(await h()['batches:get']({ batchId: draft.batch.id })).remainingBatch).toMatchObject({ batchId: remaining.batch.id, rows: 2 });
    expectFail(await h()['batches:pause']({ batchId: remaining.batch.id }), 'CONFLICT');
    expectFail(await h()['batches:get']({ batchId: 'B-none' }), 'NOT_FOUND');
  });

  it('starts a draft once for two confirmations sent at once: one sends, the other is told it is no longer a draft', async () => {
    const text = [BATCH_HEADER, `+237650000001,700,Awa,N,awa@example.com,,TT${name[0]}-1`, `+237650000001,800,Awa,N,awa@example.com,,TT${name[0]}-2`].join('\n');
    const { batch } = expectOk(await h()['batches:import']({ fileName: 'twice.csv', text, paymentMethod: 'momo_cm' }));
    const first = expectOk(await h()['batches:prepare']({ batchId: batch.id }));
    const second = expectOk(await h()['batches:prepare']({ batchId: batch.id }));
    const done = settled(runtime, batch.id, 'done');
    const results = await Promise.all([first, second].map((confirmation) => h()['batches:start']({ batchId: batch.id, confirmationToken: confirmation.confirmationToken, concurrency: 2 })));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.error.code === 'CONFLICT')).toHaveLength(1);
    await done;
    const sent = await withRows(h(), batch.id);
    expect(sent.rows.map((row) => [row.externalId, row.status])).toEqual([
      [`TT${name[0]}-1`, 'completed'],
      [`TT${name[0]}-2`, 'completed'],
    ]);
    // Each row's one entry: History holds each external id once.
    for (const externalId of [`TT${name[0]}-1`, `TT${name[0]}-2`]) expect((await runtime.storage.journal.search({ externalId }, 0, 10)).total).toBe(1);
  });
});
