/**
 * "Send them as new payouts" (issue 35 item 2, the batch half): a file sent, the same file
 * imported again, its rows sent earlier renewed (`batches:renewSentIds`: a new external id derived
 * from each, the first the journal does not hold), confirmed and sent. On both stores, through
 * the handlers as the screens call them, against the real engine: each row is then paid exactly
 * twice, once under its old id and once under its new one, and the first batch is left as it was.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchState, PushEvent } from '../../shared/api';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { engineInternals } from '../../packages/sandbox/src/internals';
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

/** Resolves once the batch, read through the store, is in `state` with no row in flight or unknown (read again after each push). */
function settled(runtime: ConsoleRuntime, batchId: string, state: BatchState): Promise<void> {
  return new Promise((resolve, reject) => {
    const events: PushEvent[] = ['transaction:changed', 'batch:progress'];
    const offs: (() => void)[] = [];
    const check = () =>
      runtime.storage.batches.summary(batchId).then((summary) => {
        if (summary?.state !== state || summary.counts.processing > 0 || summary.counts.unknown > 0 || summary.counts.pending > 0) return;
        for (const off of offs) off();
        resolve();
      }, reject);
    for (const event of events) offs.push(runtime.on(event, () => void check()));
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
  const engineCount = (externalId: string) => (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;
  const send = async (batchId: string, extra: { acceptDuplicateFile?: true } = {}) => {
    const { confirmationToken } = expectOk(await h()['batches:prepare']({ batchId, ...extra }));
    const done = settled(runtime, batchId, 'done');
    expectOk(await h()['batches:start']({ batchId, confirmationToken, concurrency: 2 }));
    await done;
  };

  it('gives each row sent earlier a new id the journal does not hold; sent, each row is paid under its old id and its new one', async () => {
    const p = `RN${name[0]}`;
    // Another batch holds the first id row 3 would derive, the journal only (not in the file).
    const other = expectOk(await h()['batches:import']({ fileName: 'other.csv', text: [BATCH_HEADER, `+237670000019,900,Eve,O,eve@example.com,Other,${p}-1-n1`].join('\n'), paymentMethod: 'momo_cm' }));
    await send(other.batch.id);
    // Row 4's own id is the first id row 2 would derive: the journal and the draft hold it.
    const text = [
      BATCH_HEADER,
      `+237670000011,1100,Awa,N,awa@example.com,October,${p}-0`,
      `+237670000012,1200,Jean,M,jean@example.com,October,${p}-1`,
      `+237670000013,1300,Paul,B,paul@example.com,October,${p}-0-n1`,
      `+237670000014,1400,Ada,K,ada@example.com,October,`,
    ].join('\n');
    const first = expectOk(await h()['batches:import']({ fileName: 'renew.csv', text, paymentMethod: 'momo_cm' }));
    await send(first.batch.id);
    const sentFirst = await withRows(h(), first.batch.id);
    const oldIds = [`${p}-0`, `${p}-1`, `${p}-0-n1`, `${first.batch.id}-5`];
    expect(sentFirst.rows.map((row) => [row.externalId, row.status])).toEqual(oldIds.map((id) => [id, 'completed']));

    // The same file again: its rows take the ids they were sent under, all four held by the journal.
    const again = expectOk(await h()['batches:import']({ fileName: 'renew.csv', text, paymentMethod: 'momo_cm' }));
    const batchId = again.batch.id;
    expect(again.sentEarlier).toMatchObject({ count: 4, neverLeft: 0 });

    // Asked first without writing (the dialog's list): the new ids, the draft unchanged.
    const newIds = [`${p}-0-n2`, `${p}-1-n2`, `${p}-0-n3`, `${first.batch.id}-5-n1`];
    const planned = expectOk(await h()['batches:renewSentIds']({ batchId, dryRun: true }));
    expect(planned).toMatchObject({ count: 4, applied: false });
    expect(planned.rows).toEqual([2, 3, 4, 5].map((rowNumber, index) => ({ rowNumber, from: oldIds[index], to: newIds[index] })));
    expect(planned.detail.sentEarlier?.count).toBe(4);
    expect((await withRows(h(), batchId)).rows.map((row) => row.externalId)).toEqual(oldIds);

    const renewed = expectOk(await h()['batches:renewSentIds']({ batchId }));
    expect(renewed).toMatchObject({ count: 4, applied: true, rows: planned.rows });
    expect(renewed.detail.sentEarlier).toBeUndefined();
    const draft = await withRows(h(), renewed.detail);
    expect(draft.batch).toMatchObject({ state: 'draft', counts: { valid: 4, invalid: 0 } });
    expect(draft.rows.map((row) => [row.externalId, row.request?.external_id, row.values.external_id])).toEqual(newIds.map((id) => [id, id, id]));
    for (const id of newIds) expect(await runtime.storage.batches.externalIdInJournal(id)).toBe(false);
    // Asked again: nothing is left to renew, nothing changes.
    expect(expectOk(await h()['batches:renewSentIds']({ batchId }))).toMatchObject({ count: 0, rows: [], applied: false });
    expect((await withRows(h(), batchId)).rows.map((row) => row.externalId)).toEqual(newIds);

    // The same file was sent before: the confirmation still asks for it knowingly, then binds the new ids.
    expectFail(await h()['batches:prepare']({ batchId }), 'CONFIRMATION_REQUIRED');
    await send(batchId, { acceptDuplicateFile: true });
    const sentAgain = await withRows(h(), batchId);
    expect(sentAgain.rows.map((row) => [row.externalId, row.state, row.status, row.alreadySent ?? false])).toEqual(newIds.map((id) => [id, 'accepted', 'completed', false]));
    expect(sentAgain.rows.map((row) => row.transactionId)).not.toContain(sentFirst.rows[0]!.transactionId);
    // Two payouts per row at the engine: the old id's and the new one's, each once.
    expect(oldIds.map(engineCount)).toEqual([1, 1, 1, 1]);
    expect(newIds.map(engineCount)).toEqual([1, 1, 1, 1]);
    const byAmount = engineInternals(runtime.engine!).db.prepare("SELECT COUNT(*) AS n FROM transactions WHERE amount IN (1100, 1200, 1300, 1400) AND kind = 'payout'").get() as { n: number };
    expect(byAmount.n).toBe(8);

    // The first batch is as it was, and neither batch can be renewed now (not a draft).
    const firstAfter = await withRows(h(), first.batch.id);
    expect(firstAfter.rows.map((row) => [row.externalId, row.transactionId, row.journalId, row.status])).toEqual(sentFirst.rows.map((row) => [row.externalId, row.transactionId, row.journalId, row.status]));
    expectFail(await h()['batches:renewSentIds']({ batchId: first.batch.id }), 'CONFLICT');
    expectFail(await h()['batches:renewSentIds']({ batchId }), 'CONFLICT');
    expectFail(await h()['batches:renewSentIds']({ batchId: 'B-none' }), 'NOT_FOUND');
  }, 60_000);
});
