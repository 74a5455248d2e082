/**
 * Approval is a state of the payout (issue 37 item 1), through fatou's console (the real handlers,
 * the local engine, a real PostgreSQL workspace; one approval from 100,000 XAF): the confirmation
 * says the payout needs approval instead of refusing it after Send; asked, the request binds the
 * whole payout with the console's profile; approved by kofi, it is sent from its card with one
 * action and nothing retyped (the bound request, its external id); a second press sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { requestRow, setPolicy } from '../storage/approval-helpers';
import { checkedRows } from '../storage/fixtures';
import { batchReaches } from './batch-helpers';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let runtime: Awaited<ReturnType<typeof startRuntime>>;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  runtime = await startRuntime({ openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config('fatou', database))) });
}, 120_000);
afterAll(async () => {
  await runtime?.close();
  await workspaces?.stop();
});

async function payoutsInWorkspace(): Promise<{ external_id: string; profile_id: string; request: unknown }[]> {
  const raw = await workspaces.connectAs('kofi', database);
  const { rows } = await raw.query(`SELECT external_id, profile_id, request::jsonb AS request FROM entries WHERE kind = 'payout' ORDER BY external_id`);
  await raw.end();
  return rows;
}

describe('an approved payout sent from its card', () => {
  it('is told as needing approval at the confirmation, asked, approved by another login, then sent with one action as it was approved, once', async () => {
    const request = paymentRequest({ amount: 400_000, description: 'Supplier invoice 42' });
    // The confirmation: a state of the payout, with what it needs; no refusal, nothing written.
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    expect(quote.approval).toMatchObject({ subject: 'payout', amount: 400_000, approvals: 1, approverRole: 'finance', currency: 'XAF' });
    const small = expectOk(await runtime.handlers['payouts:prepare']({ request: { ...request, amount: 5_000 } }));
    expect(small.approval ?? null).toBeNull();

    const asked = expectOk(await runtime.handlers['approvals:askPayout']({ request }));
    const id = asked.request!.id;
    expect(asked.request).toMatchObject({ state: 'awaiting', profileId: LOCAL_SANDBOX_ID, request: { ...request, external_id: asked.externalId } });
    // Not approved yet: the card's Send is refused for what it is, nothing written.
    expectFail(await runtime.handlers['approvals:send']({ id }), 'APPROVAL_NOT_WAITING');
    expect(await payoutsInWorkspace()).toEqual([]);

    await workspaces.storeAs('kofi', database).approvals!.approve(id, asked.request!.digest, 'invoice checked');
    const sent = expectOk(await runtime.handlers['approvals:send']({ id }));
    expect(sent.externalId).toBe(asked.externalId);
    expect(await payoutsInWorkspace()).toEqual([{ external_id: asked.externalId, profile_id: LOCAL_SANDBOX_ID, request: { ...request, external_id: asked.externalId } }]);
    const card = expectOk(await runtime.handlers['approvals:get']({ id }));
    expect(card).toMatchObject({ state: 'approved', sent: true, spentByEntry: sent.id });

    // Pressed again (a second window, a stale card): the same payout is never sent twice.
    const again = expectFail(await runtime.handlers['approvals:send']({ id }), 'ALREADY_SENT');
    expect(again.journalId).toBe(sent.id);
    expect((await payoutsInWorkspace()).length).toBe(1);
    // The maker decided nothing; kofi's decided list keeps it after it was sent.
    expect((await workspaces.storeAs('kofi', database).approvals!.waiting('decided')).map((r) => [r.id, r.state, r.sent])).toEqual([[id, 'approved', true]]);
  });
});

const SANDBOX = { id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' as const };

/** A draft batch of fatou's (20 rows, 210,000 XAF), bound to the console's profile as a confirmed draft is. */
async function draftBatch(id: string): Promise<void> {
  await workspaces.storeAs('fatou', database).batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: SANDBOX, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
}

async function batchEntries(batchId: string): Promise<{ profile_id: string; n: number }[]> {
  const raw = await workspaces.connectAs('kofi', database);
  const { rows } = await raw.query(`SELECT profile_id, count(*)::int AS n FROM entries WHERE batch_id = $1 GROUP BY profile_id`, [batchId]);
  await raw.end();
  return rows;
}

describe('an approved batch sent from its card', () => {
  it('is refused before it is approved, then sent with one action as the approval bound it (its profile, its rows), once', async () => {
    await draftBatch('b-card');
    const asked = expectOk(await runtime.handlers['approvals:askBatch']({ batchId: 'b-card' })).request!;
    expect(asked).toMatchObject({ subject: 'batch', batchId: 'b-card', rows: 20, state: 'awaiting', profileId: LOCAL_SANDBOX_ID });
    // Not approved yet: the workspace's gate answers first, with the request already open.
    expect(expectFail(await runtime.handlers['approvals:sendBatch']({ id: asked.id }), 'APPROVAL_REQUIRED').approval!.request).toEqual({ id: asked.id, state: 'awaiting' });
    expect(await batchEntries('b-card')).toEqual([]);
    expect((await workspaces.storeAs('fatou', database).batches.summary('b-card'))!.state).toBe('draft');

    await workspaces.storeAs('kofi', database).approvals!.approve(asked.id, asked.digest, 'file checked');
    const ended = batchReaches(runtime, 'b-card', ['done', 'interrupted', 'paused', 'cancelled']);
    const started = expectOk(await runtime.handlers['approvals:sendBatch']({ id: asked.id }));
    expect(started).toMatchObject({ id: 'b-card', profileId: LOCAL_SANDBOX_ID, environment: 'sandbox' });
    expect((await ended).state).toBe('done');
    expect(await batchEntries('b-card')).toEqual([{ profile_id: LOCAL_SANDBOX_ID, n: 20 }]);
    expect(expectOk(await runtime.handlers['approvals:get']({ id: asked.id }))).toMatchObject({ state: 'approved', sent: true });

    // Pressed again: the approval paid once, nothing is sent again.
    expectFail(await runtime.handlers['approvals:sendBatch']({ id: asked.id }), 'ALREADY_SENT');
    expect(await batchEntries('b-card')).toEqual([{ profile_id: LOCAL_SANDBOX_ID, n: 20 }]);
    // A payout's request is not a batch: the batch path refuses it (and the payout path refuses a batch).
    expectFail(await runtime.handlers['approvals:send']({ id: asked.id }), 'CONFLICT');
  }, 60_000);

  it('leaves the decision to the workspace gate: a batch changed behind its approval is refused, nothing claimed', async () => {
    await draftBatch('b-card-owner');
    const asked = (await workspaces.storeAs('fatou', database).approvals!.askBatch('b-card-owner', 'XAF'))!;
    await workspaces.storeAs('kofi', database).approvals!.approve(asked.id, asked.digest);
    const owner = await workspaces.server.connect(undefined, database);
    await owner.query('ALTER TABLE batch_rows DISABLE TRIGGER batch_rows_void_approval');
    await owner.query(`UPDATE batch_rows SET request = jsonb_set(request::jsonb, '{amount}', '90000')::text WHERE batch_seq = (SELECT seq FROM batches WHERE id = $1) AND row_number = 2`, ['b-card-owner']);
    await owner.query('ALTER TABLE batch_rows ENABLE TRIGGER batch_rows_void_approval');
    expect((await requestRow(owner, asked.id)).state).toBe('approved');
    await owner.end();

    expectFail(await runtime.handlers['approvals:sendBatch']({ id: asked.id }), 'APPROVAL_STALE');
    expect((await workspaces.storeAs('fatou', database).batches.summary('b-card-owner'))!.state).toBe('draft');
    expect(await batchEntries('b-card-owner')).toEqual([]);
  }, 60_000);
});
