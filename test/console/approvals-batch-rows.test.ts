/**
 * The approver reads the batch they approve (issue 37 item 1): kofi's console (finance, another
 * login) reads fatou's draft batch, its rows with their flags and the earlier imports of the same
 * file, through the handlers the approval card uses; samuel (support) reads them too, in raw SQL
 * under the workspace's row security and grants, and cannot change them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from '../storage/approval-helpers';
import { checkedRows } from '../storage/fixtures';
import { expectOk, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let approver: Awaited<ReturnType<typeof startRuntime>>;
const SANDBOX = { id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' as const };

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  const maker = workspaces.storeAs('fatou', database);
  // The same file imported twice: the second is the one asked for approval.
  for (const [id, at] of [['b-first', 1], ['b-again', 2]] as const) {
    await maker.batches.create({ id, fileName: 'june.csv', fileHash: 'same-file', profile: SANDBOX, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at });
  }
  await maker.approvals!.askBatch('b-again', 'XAF');
  approver = await startRuntime({ openStorage: async () => workspaces.storeAs('kofi', database) });
}, 120_000);
afterAll(async () => {
  await approver?.close();
  await workspaces?.stop();
});

describe('the batch an approver is asked to approve', () => {
  it('is read by the approver’s console: its rows page by page, and the earlier import of the same file', async () => {
    const [asked] = expectOk(await approver.handlers['approvals:list']({ scope: 'forMe' })).requests;
    expect(asked).toMatchObject({ subject: 'batch', batchId: 'b-again', rows: 20 });
    const page = expectOk(await approver.handlers['batches:rows']({ batchId: 'b-again', filter: 'all', offset: 0, limit: 10 }));
    expect(page.total).toBe(20);
    expect(page.rows.map((row) => row.rowNumber)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(page.rows[0]!.request).toMatchObject({ amount: expect.any(Number), phone_number: expect.any(String) });
    const detail = expectOk(await approver.handlers['batches:get']({ batchId: 'b-again' }));
    expect(detail.importedBefore.map((earlier) => earlier.batchId)).toEqual(['b-first']);
  });

  it('is readable, not writable, by an approver and a support login in raw SQL (row security and grants)', async () => {
    for (const person of ['kofi', 'samuel'] as const) {
      const raw = await workspaces.connectAs(person, database);
      try {
        const { rows } = await raw.query(`SELECT count(*)::int AS n FROM batch_rows WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-again')`);
        expect(rows[0].n, person).toBe(20);
        if (person === 'samuel') {
          await expect(raw.query(`UPDATE batch_rows SET request = request WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-again')`)).rejects.toMatchObject({ code: '42501' });
        }
      } finally {
        await raw.end();
      }
    }
  });
});
