/**
 * A second desktop resuming a batch that was approved and then changed (issue 25's done-check, "a
 * second desktop"; docs/decisions/approvals-port.md, the table of paths). fatou's batch (20 rows,
 * 210,000 XAF; one approval from 100,000) is approved by kofi, started and paused before a row was
 * sent; then a row changes. kofi's own console (finance, the payout key on his desktop) presses
 * Resume: refused (APPROVAL_REQUIRED, or APPROVAL_STALE when the approval still stands for other rows), nothing claimed, no entry written, whether the change
 * voided the approval (the trigger) or slipped past it (the owner turned the trigger off: the
 * digest still differs). Approved again as it now is, the same Resume sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { requestRow, setPolicy } from '../storage/approval-helpers';
import { checkedRows } from '../storage/fixtures';
import { batchReaches } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let maker: StoragePort;
let desktopB: Awaited<ReturnType<typeof startRuntime>>;
/** A sandbox profile both desktops could send (a Local sandbox batch is sent from its own desktop only: decisions/local-sandbox-batch-stays-on-its-desktop.md). */
let sandbox: { id: string; name: string; environment: 'sandbox' };

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  maker = workspaces.storeAs('fatou', database);
  desktopB = await startRuntime({ openStorage: async () => workspaces.storeAs('kofi', database) });
  sandbox = { id: await activateEngineProfile(desktopB, desktopB.engine!.api.url, 'Team sandbox'), name: 'Team sandbox', environment: 'sandbox' };
}, 120_000);
afterAll(async () => {
  await desktopB?.close();
  await workspaces?.stop();
});

/** fatou's batch, approved by kofi as it is, started and paused before any row was sent; the request's id. */
async function approvedAndPaused(id: string): Promise<number> {
  await maker.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: sandbox, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
  const asked = (await maker.approvals!.askBatch(id, 'XAF'))!;
  await workspaces.storeAs('kofi', database).approvals!.approve(asked.id, asked.digest);
  await maker.batches.setState(id, 'sending', 2, { started: true });
  await maker.batches.setState(id, 'paused', 3);
  return asked.id;
}

const ROW_2_AMOUNT = `jsonb_set(request::jsonb, '{amount}', '90000')::text`;
const BATCH_ROW_2 = `batch_seq = (SELECT seq FROM batches WHERE id = $1) AND row_number = 2`;

/** What B's refused Resume must leave: the batch paused, every row not sent and unclaimed, no payout entry of it. */
async function nothingMoved(batchId: string): Promise<void> {
  expect((await maker.batches.summary(batchId))!.state).toBe('paused');
  expect(await maker.batches.rowsInState(batchId, ['not_sent'])).toHaveLength(20);
  const sql = await workspaces.connectAs('tester', database);
  try {
    const claimed = await sql.query(`SELECT count(*)::int AS n FROM batch_rows WHERE batch_seq = (SELECT seq FROM batches WHERE id = $1) AND claimed_by IS NOT NULL`, [batchId]);
    expect(claimed.rows[0].n).toBe(0);
    expect((await sql.query(`SELECT count(*)::int AS n FROM entries WHERE batch_id = $1`, [batchId])).rows[0].n).toBe(0);
  } finally {
    await sql.end();
  }
}

describe('a second desktop resuming an approved batch changed after its approval', () => {
  it('is refused when the change voided the approval, and sends once the batch as it now is is approved', async () => {
    const first = await approvedAndPaused('b-changed');
    // fatou (finance, raw SQL) raises row 2 after the approval.
    const fatou = await workspaces.connectAs('fatou', database);
    await fatou.query(`UPDATE batch_rows SET request = ${ROW_2_AMOUNT} WHERE ${BATCH_ROW_2}`, ['b-changed']);
    await fatou.end();
    const raw = await workspaces.connectAs('kofi', database);
    expect((await requestRow(raw, first)).state).toBe('void');
    await raw.end();

    const refused = expectFail(await desktopB.handlers['batches:resume']({ batchId: 'b-changed' }), 'APPROVAL_REQUIRED');
    expect(refused.approval).toMatchObject({ subject: 'batch', batchId: 'b-changed', approvals: 1 });
    await nothingMoved('b-changed');

    // Asked again and approved as it now is: the same Resume on B sends every row.
    const again = (await maker.approvals!.askBatch('b-changed', 'XAF'))!;
    await workspaces.storeAs('kofi', database).approvals!.approve(again.id, again.digest);
    const ended = batchReaches(desktopB, 'b-changed', ['done', 'interrupted', 'paused', 'cancelled']);
    expectOk(await desktopB.handlers['batches:resume']({ batchId: 'b-changed' }));
    expect((await ended).state).toBe('done');
    expect((await maker.batches.summary('b-changed'))!.counts.notSent).toBe(0);
  }, 60_000);

  it('is refused when the change slipped past the void trigger: the digest at the gate is not the approved one', async () => {
    const asked = await approvedAndPaused('b-owner');
    const owner = await workspaces.server.connect(undefined, database);
    await owner.query('ALTER TABLE batch_rows DISABLE TRIGGER batch_rows_void_approval');
    await owner.query(`UPDATE batch_rows SET request = ${ROW_2_AMOUNT} WHERE ${BATCH_ROW_2}`, ['b-owner']);
    await owner.query('ALTER TABLE batch_rows ENABLE TRIGGER batch_rows_void_approval');
    expect((await requestRow(owner, asked)).state).toBe('approved');
    await owner.end();

    const refused = expectFail(await desktopB.handlers['batches:resume']({ batchId: 'b-owner' }), 'APPROVAL_STALE');
    expect(refused.message).toBe('This batch changed after it was approved: nothing is sent until it is approved again. Ask for approval again.');
    await nothingMoved('b-owner');
  }, 60_000);
});
