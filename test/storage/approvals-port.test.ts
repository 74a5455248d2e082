/**
 * The approvals port (electron/console/storage/approvals-port.ts) on a workspace, with two
 * logins at once: fatou (finance, the maker) and kofi (finance, the checker), plus adele (admin)
 * for the policy and tester (finance too) as a second approver. Every refusal comes back as its
 * code, mapped from the rules' SQLSTATE (migration 28); the raw-SQL refusals are shown beside.
 * The SQLite store has no approvals (docs/decisions/approvals-port.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalRefusal } from '../../electron/console/storage/approvals-port';
import { APPROVAL_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from './approval-helpers';
import { checkedRows, payoutRequest, PROFILE, storesUnderTest } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

/** One approval from 100,000 XAF in the sandbox, two from 1,000,000. */
async function workspace() {
  const database = await workspaces.create();
  await setPolicy(workspaces, database, [
    { minAmount: 100_000, approvals: 1 },
    { minAmount: 1_000_000, approvals: 2 },
  ]);
  const port = (person: Person) => workspaces.storeAs(person, database).approvals!;
  return { database, port };
}

async function refusal(promise: Promise<unknown>): Promise<ApprovalRefusal> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApprovalRefusal);
  return error as ApprovalRefusal;
}

describe('the policy through the port', () => {
  it('is read by everyone, replaced by the admin alone, and each change is in the audit log', async () => {
    const { database, port } = await workspace();
    expect((await refusal(port('fatou').setPolicy('sandbox', 'XAF', []))).code).toBe('APPROVAL_NOT_ALLOWED');
    const tiers = await port('adele').setPolicy('sandbox', 'XAF', [
      { minAmount: 100_000, approvals: 1, approverRole: 'finance' },
      { minAmount: 500_000, approvals: 2, approverRole: 'admin' },
    ]);
    expect(tiers.map((t) => [t.minAmount, t.approvals, t.approverRole])).toEqual([
      [100_000, 1, 'finance'],
      [500_000, 2, 'admin'],
    ]);
    expect(await port('fatou').policy()).toEqual(tiers);
    const raw = await workspaces.connectAs('adele', database);
    const { rows } = await raw.query(`SELECT actor, before->>'min_amount' AS before, after->>'min_amount' AS after FROM audit_log WHERE action = 'policy_change' ORDER BY id`);
    // Two tiers set by the test's setup, then: 1,000,000 removed, 500,000 added; 100,000 unchanged is not written again.
    expect(rows.slice(2)).toEqual([
      { actor: 'adele', before: '1000000', after: null },
      { actor: 'adele', before: null, after: '500000' },
    ]);
    await raw.end();
  });
});

describe('asking and deciding, two logins', () => {
  it('shows the maker’s request to the checker, never to the maker, and records who decided', async () => {
    const { port } = await workspace();
    const fatou = port('fatou');
    const kofi = port('kofi');
    expect(await fatou.askPayout('sandbox', 'XAF', payoutRequest({ amount: 99_999, external_id: 'A-small' }))).toBeNull();
    const asked = (await fatou.askPayout('sandbox', 'XAF', payoutRequest({ amount: 250_000, external_id: 'A-1' }), 'invoice 42'))!;
    expect(asked).toMatchObject({ subject: 'payout', state: 'awaiting', amount: 250_000, rows: 1, externalId: 'A-1', requestedBy: 'fatou', approvalsRequired: 1, approverRole: 'finance', remark: 'invoice 42' });
    expect((await kofi.waiting('forMe')).map((r) => r.id)).toEqual([asked.id]);
    expect(await fatou.waiting('forMe')).toEqual([]);
    expect((await fatou.waiting('mine')).map((r) => r.id)).toEqual([asked.id]);
    expect((await refusal(fatou.askPayout('sandbox', 'XAF', payoutRequest({ amount: 250_000, external_id: 'A-1' })))).code).toBe('APPROVAL_ALREADY_ASKED');

    const approved = await kofi.approve(asked.id, asked.digest, 'checked');
    expect(approved).toMatchObject({ state: 'approved', approvalsGiven: 1, decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve', remark: 'checked' }] });
    expect(await kofi.waiting('forMe')).toEqual([]);
    expect((await fatou.about({ environment: 'sandbox', externalId: 'A-1' })).map((r) => [r.id, r.state, r.decidedBy])).toEqual([[asked.id, 'approved', 'kofi']]);
  });

  it('refuses the maker approving or rejecting their own request, through the port and in raw SQL', async () => {
    const { database, port } = await workspace();
    const fatou = port('fatou');
    const asked = (await fatou.askPayout('sandbox', 'XAF', payoutRequest({ amount: 300_000, external_id: 'A-self' })))!;
    const own = await refusal(fatou.approve(asked.id, asked.digest));
    expect(own.code).toBe('APPROVAL_OWN_REQUEST');
    expect(own.message).toMatch(/the person who asked \(fatou\) cannot approve/);
    expect((await refusal(fatou.reject(asked.id, 'no'))).code).toBe('APPROVAL_OWN_REQUEST');
    const raw = await workspaces.connectAs('fatou', database);
    await expect(raw.query('SELECT paydesk_approve($1, $2)', [asked.id, asked.digest])).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.ownRequest });
    await expect(raw.query(`UPDATE approval_requests SET state = 'approved' WHERE id = $1`, [asked.id])).rejects.toThrow(/permission denied/);
    await raw.end();
    expect((await fatou.get(asked.id))).toMatchObject({ state: 'awaiting', approvalsGiven: 0, votes: [] });
  });

  it('ends two approvers pressing Approve at the same moment in one state, one vote counted', async () => {
    const { port } = await workspace();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 400_000, external_id: 'A-race' })))!;
    const results = await Promise.allSettled([port('kofi').approve(asked.id, asked.digest), port('tester').approve(asked.id, asked.digest)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'APPROVAL_NOT_WAITING', message: expect.stringMatching(/is already approved: nothing more can be decided/) });
    const final = (await port('fatou').get(asked.id))!;
    expect(final).toMatchObject({ state: 'approved', approvalsGiven: 1 });
    expect(final.votes).toHaveLength(1);
  });

  it('needs two different people for two approvals, the same one never counting twice', async () => {
    const { port } = await workspace();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 2_000_000, external_id: 'A-two' })))!;
    expect((await port('kofi').approve(asked.id, asked.digest)).state).toBe('awaiting');
    expect(await port('kofi').waiting('forMe')).toEqual([]);
    expect((await refusal(port('kofi').approve(asked.id, asked.digest))).code).toBe('APPROVAL_ALREADY_VOTED');
    expect((await port('tester').approve(asked.id, asked.digest))).toMatchObject({ state: 'approved', approvalsGiven: 2 });
  });

  it('refuses an approve after a withdraw clearly, and a withdraw by anyone but the maker', async () => {
    const { port } = await workspace();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 150_000, external_id: 'A-back' })))!;
    expect((await refusal(port('kofi').withdraw(asked.id))).code).toBe('APPROVAL_NOT_MAKER');
    expect(await port('fatou').withdraw(asked.id, 'wrong phone')).toMatchObject({ state: 'withdrawn', decidedBy: 'fatou', remark: 'wrong phone' });
    const late = await refusal(port('kofi').approve(asked.id, asked.digest));
    expect(late.code).toBe('APPROVAL_NOT_WAITING');
    expect(late.message).toMatch(/is already withdrawn/);
    expect((await refusal(port('kofi').reject(asked.id, 'late'))).code).toBe('APPROVAL_NOT_WAITING');
    expect((await refusal(port('kofi').approve(999_999, asked.digest))).code).toBe('APPROVAL_NOT_FOUND');
    // Withdrawn, it may be asked again.
    expect((await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 150_000, external_id: 'A-back' })))!.state).toBe('awaiting');
  });

  it('refuses an approval of something other than what the approver saw', async () => {
    const { port } = await workspace();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 150_000, external_id: 'A-seen' })))!;
    expect((await refusal(port('kofi').approve(asked.id, 'f'.repeat(64)))).code).toBe('APPROVAL_CHANGED');
    expect((await port('kofi').get(asked.id))!.state).toBe('awaiting');
  });
});

describe('the gate asked before sending', () => {
  it('says what a payout needs and which request is open, and nothing once approved', async () => {
    const { port } = await workspace();
    const request = payoutRequest({ amount: 120_000, external_id: 'G-1' });
    const before = (await port('fatou').payoutGate('sandbox', 'XAF', request))!;
    expect(before.code).toBe('APPROVAL_REQUIRED');
    expect(before.need).toEqual({ subject: 'payout', environment: 'sandbox', currency: 'XAF', amount: 120_000, rows: 1, approvals: 1, approverRole: 'finance', externalId: 'G-1' });
    expect(await port('fatou').payoutGate('sandbox', 'XAF', { ...request, amount: 99_000 })).toBeNull();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', request))!;
    expect((await port('fatou').payoutGate('sandbox', 'XAF', request))!.need!.request).toEqual({ id: asked.id, state: 'awaiting' });
    await port('kofi').approve(asked.id, asked.digest);
    expect(await port('fatou').payoutGate('sandbox', 'XAF', request)).toBeNull();
    // Approved for exactly this: another amount under the same external id still needs approval.
    expect((await port('fatou').payoutGate('sandbox', 'XAF', { ...request, amount: 120_001 }))!.code).toBe('APPROVAL_REQUIRED');
  });

  it('says what a batch needs (its total, its rows), approves it as one file, and refuses it again once a row changed', async () => {
    const { database, port } = await workspace();
    const store = workspaces.storeAs('fatou', database);
    // 1,000 + … + 20,000 × 20 rows = 210,000 XAF: one approval.
    await store.batches.create({ id: 'b-gate', fileName: 'suppliers.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
    const need = (await port('fatou').batchGate('b-gate'))!;
    expect(need.code).toBe('APPROVAL_REQUIRED');
    expect(need.need).toMatchObject({ subject: 'batch', batchId: 'b-gate', amount: 210_000, rows: 20, approvals: 1, approverRole: 'finance' });
    const asked = (await port('fatou').askBatch('b-gate', 'XAF'))!;
    expect(asked).toMatchObject({ subject: 'batch', batchId: 'b-gate', amount: 210_000, rows: 20 });
    expect((await port('kofi').approve(asked.id, asked.digest)).state).toBe('approved');
    expect(await port('fatou').batchGate('b-gate')).toBeNull();
    expect(await port('fatou').batchGate('not-in-this-workspace')).toBeNull();
    const raw = await workspaces.connectAs('fatou', database);
    await raw.query(`UPDATE batch_rows SET request = jsonb_set(request::jsonb, '{amount}', '999999')::text WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-gate') AND row_number = 2`);
    await raw.end();
    // The change voided the approval: the batch needs one again.
    expect((await port('fatou').batchGate('b-gate'))!.code).toBe('APPROVAL_REQUIRED');
    expect((await port('fatou').get(asked.id))!.state).toBe('void');
  });
});

describe('one desktop', () => {
  it('has no approvals: the SQLite store leaves the field absent, a workspace has them', async () => {
    const [sqlite, postgres] = storesUnderTest(() => workspaces);
    const local = await sqlite!.open();
    expect(local.approvals).toBeUndefined();
    await local.close();
    expect((await postgres!.open()).approvals).toBeDefined();
  });
});

describe('a request whose money has left', () => {
  it('says so once its payout is sent (and refuses a withdraw); a batch halfway sent is not sent, all of it is', async () => {
    const { database, port } = await workspace();
    const fatou = port('fatou');
    const kofi = port('kofi');
    const store = workspaces.storeAs('fatou', database);
    const request = payoutRequest({ amount: 250_000, external_id: 'S-1' });
    const asked = (await fatou.askPayout('sandbox', 'XAF', request))!;
    expect(asked.sent).toBe(false);
    expect(await kofi.approve(asked.id, asked.digest)).toMatchObject({ state: 'approved', sent: false });
    // Sent as the console sends it: its pending entry (its POST may have left from here on).
    await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1 });
    expect(await fatou.get(asked.id)).toMatchObject({ state: 'approved', sent: true });
    expect((await fatou.waiting('mine')).find((r) => r.id === asked.id)?.sent).toBe(true);
    expect((await refusal(fatou.withdraw(asked.id, 'too late'))).code).toBe('APPROVAL_ALREADY_SENT');

    const rows = checkedRows(3, { amount: 50_000 });
    await store.batches.create({ id: 'b-sent', fileName: 's.csv', fileHash: 'hs', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1 });
    const batch = (await fatou.askBatch('b-sent', 'XAF'))!;
    await kofi.approve(batch.id, batch.digest);
    await store.batches.setState('b-sent', 'sending', 1);
    expect((await store.batches.claimRows('b-sent', 'desk-1', 3, 60_000, 1)).rows).toHaveLength(3);
    const send = (row: number) => store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: rows[row - 2]!.request!, currency: 'XAF', at: 1, batch: { id: 'b-sent', row } });
    await send(2);
    await send(3);
    // Two rows of three: withdrawing it would still stop the third.
    expect(await fatou.get(batch.id)).toMatchObject({ state: 'approved', sent: false });
    await send(4);
    expect(await fatou.get(batch.id)).toMatchObject({ state: 'approved', sent: true });
    // Never `sent` unless approved: a request still waiting for a batch that was cancelled says false.
    await store.batches.create({ id: 'b-cancelled', fileName: 'c.csv', fileHash: 'hc', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(3, { amount: 50_000 }), at: 1 });
    const waiting = (await fatou.askBatch('b-cancelled', 'XAF'))!;
    await store.batches.setState('b-cancelled', 'cancelled', 2);
    expect(await fatou.get(waiting.id)).toMatchObject({ state: 'awaiting', sent: false });
  });
});
