/**
 * A policy changed while a payout waits, seen from the maker's console (fatou: the real handlers
 * and local engine on a team workspace) and an approver's (docs/decisions/approval-races.md):
 * lowered, the waiting request still holds the send until it is withdrawn; raised after the
 * approval and before the send, the send is held again and the approver sees it waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { approvedPolicy, setPolicy } from '../storage/approval-helpers';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let runtime: Awaited<ReturnType<typeof startRuntime>>;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  runtime = await startRuntime({ openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config('fatou', database))) });
}, 120_000);
afterAll(async () => {
  await runtime?.close();
  await workspaces?.stop();
});

const as = (person: Person) => workspaces.storeAs(person, database).approvals!;

async function sendPayout(request: ReturnType<typeof paymentRequest>) {
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

async function sentExternalIds(): Promise<string[]> {
  const raw = await workspaces.connectAs('kofi', database);
  const { rows } = await raw.query<{ external_id: string }>(`SELECT external_id FROM entries WHERE kind = 'payout' ORDER BY external_id`);
  await raw.end();
  return rows.map((row) => row.external_id);
}

describe('a policy changed while a payout waits, both sides', () => {
  it('lowered: the maker’s send is still held by the waiting request (the approver still sees it) until she withdraws it', async () => {
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    const asked = expectOk(await runtime.handlers['approvals:askPayout']({ request: paymentRequest({ amount: 150_000 }) }));
    await approvedPolicy(workspaces, database, 'sandbox', 'XAF', []);
    const request = paymentRequest({ amount: 150_000, external_id: asked.externalId });
    const held = expectFail(await sendPayout(request), 'APPROVAL_REQUIRED');
    expect(held.approval).toMatchObject({ approvals: 1, request: { id: asked.request!.id, state: 'awaiting' } });
    expect(held.message).toMatch(/its request #\d+ is waiting for approval\. Nothing was sent\./);
    expect(await sentExternalIds()).toEqual([]);
    expect((await as('kofi').waiting('forMe')).map((r) => r.id)).toEqual([asked.request!.id]);
    expectOk(await runtime.handlers['approvals:withdraw']({ id: asked.request!.id, remark: 'the policy no longer asks it' }));
    expectOk(await sendPayout(request));
    expect(await sentExternalIds()).toEqual([asked.externalId]);
    expect(await as('kofi').waiting('forMe')).toEqual([]);
  });

  it('raised after the approval, before the send: held again; the approver sees it waiting for one more; sent once given', async () => {
    await approvedPolicy(workspaces, database, 'sandbox', 'XAF', [{ minAmount: 100_000, approvals: 1, approverRole: 'finance' }]);
    const asked = expectOk(await runtime.handlers['approvals:askPayout']({ request: paymentRequest({ amount: 200_000 }) }));
    await as('kofi').approve(asked.request!.id, asked.request!.digest);
    await approvedPolicy(workspaces, database, 'sandbox', 'XAF', [{ minAmount: 100_000, approvals: 2, approverRole: 'finance' }]);
    const request = paymentRequest({ amount: 200_000, external_id: asked.externalId });
    const held = expectFail(await sendPayout(request), 'APPROVAL_REQUIRED');
    expect(held.approval).toMatchObject({ approvals: 2, request: { id: asked.request!.id, state: 'awaiting' } });
    const mine = expectOk(await runtime.handlers['approvals:get']({ id: asked.request!.id }));
    expect(mine).toMatchObject({ state: 'awaiting', approvalsGiven: 1, approvalsRequired: 2, votes: [{ voter: 'kofi' }] });
    expect((await as('tester').waiting('forMe')).map((r) => [r.id, r.approvalsGiven, r.approvalsRequired])).toEqual([[asked.request!.id, 1, 2]]);
    await as('tester').approve(asked.request!.id, asked.request!.digest);
    expectOk(await sendPayout(request));
    expect(await sentExternalIds()).toContain(asked.externalId);
  });
});
