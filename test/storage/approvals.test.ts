/**
 * Four eyes, as the database's rules (migrations 20-21, 46): an admin asks a policy edit and a
 * second admin applies it, each edit audited; the one who asked never approves, one person never counts twice,
 * nothing is decided once a request stopped waiting, and a policy lowered while a request waits
 * does not lower what it needs (a raised one raises it). Raw SQL as each person, what a modified
 * client could send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { approve, askPayout, digestOf, requestRow, setPolicy } from './approval-helpers';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

/** A fresh workspace whose sandbox XAF policy asks one approval from 100,000 and two from 1,000,000. */
async function workspace() {
  const database = await workspaces.create();
  await setPolicy(workspaces, database, [
    { minAmount: 100_000, approvals: 1 },
    { minAmount: 1_000_000, approvals: 2 },
  ]);
  const as = (person: 'fatou' | 'kofi' | 'samuel' | 'adele' | 'tester') => workspaces.connectAs(person, database);
  return { database, as };
}

describe('the approval policy', () => {
  it('is edited by two admins only (one asks, another applies), and every edit is audited with before and after', async () => {
    const { database, as } = await workspace();
    const fatou = await as('fatou');
    const samuel = await as('samuel');
    await expect(fatou.query(`UPDATE approval_tiers SET approvals = 0`)).rejects.toThrow(/permission denied/);
    await expect(samuel.query(`DELETE FROM approval_tiers`)).rejects.toThrow(/permission denied/);
    await expect(fatou.query(`INSERT INTO approval_tiers VALUES ('sandbox', 'XAF', 0, 0, 'paydesk_finance')`)).rejects.toThrow(/permission denied/);
    const adele = await as('adele');
    await expect(adele.query(`UPDATE approval_tiers SET approvals = 2 WHERE min_amount = 100000`)).rejects.toThrow(/permission denied/);
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 2 }]);
    const { rows } = await adele.query(`SELECT actor, subject, before->>'approvals' AS before, after->>'approvals' AS after, after->>'updated_by' AS by
      FROM audit_log WHERE action = 'policy_change' ORDER BY id`);
    expect(rows).toEqual([
      { actor: 'tester', subject: 'sandbox/XAF', before: null, after: '1', by: 'tester' },
      { actor: 'tester', subject: 'sandbox/XAF', before: null, after: '2', by: 'tester' },
      { actor: 'tester', subject: 'sandbox/XAF', before: '1', after: '2', by: 'tester' },
    ]);
  });

  it('asks what the amount’s tier says: nothing below the first tier, one, then two approvals', async () => {
    const { as } = await workspace();
    const fatou = await as('fatou');
    expect(await askPayout(fatou, 99_999, 'P-small')).toBeNull();
    const one = (await askPayout(fatou, 100_000, 'P-one'))!;
    const two = (await askPayout(fatou, 1_000_000, 'P-two'))!;
    expect((await requestRow(fatou, one)).approvals_required).toBe(1);
    expect((await requestRow(fatou, two)).approvals_required).toBe(2);
    // Another currency and the live environment have no policy here.
    const other = await fatou.query(`SELECT paydesk_request_payout_approval('p-live', 'live', 'XAF', '{"amount": 5000000, "phone_number": "+237", "external_id": "L"}') AS id`);
    expect(other.rows[0].id).toBeNull();
  });
});

describe('makers and checkers', () => {
  it('never lets the one who asked approve or reject, and records who approved from session_user', async () => {
    const { as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 200_000, 'P-self'))!;
    await expect(approve(fatou, id)).rejects.toThrow(/cannot approve or reject their own request/);
    await expect(fatou.query(`SELECT paydesk_reject($1, 'no')`, [id])).rejects.toThrow(/cannot approve or reject their own request/);
    // Writing a vote directly is not granted to anyone.
    await expect(fatou.query(`INSERT INTO approval_votes (request_id, voter, vote) VALUES ($1, 'kofi', 'approve')`, [id])).rejects.toThrow(/permission denied/);
    const kofi = await as('kofi');
    expect(await approve(kofi, id, 'checked the invoice')).toBe('approved');
    const { rows } = await kofi.query(`SELECT voter, vote, remark FROM approval_votes WHERE request_id = $1`, [id]);
    expect(rows).toEqual([{ voter: 'kofi', vote: 'approve', remark: 'checked the invoice' }]);
    expect((await kofi.query(`SELECT requested_by, decided_by FROM approval_requests WHERE id = $1`, [id])).rows[0]).toEqual({ requested_by: 'fatou', decided_by: 'kofi' });
  });

  it('counts one person once toward two approvals, and only people of the approving role', async () => {
    const { as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 2_000_000, 'P-two'))!;
    const kofi = await as('kofi');
    expect(await approve(kofi, id)).toBe('awaiting');
    await expect(approve(kofi, id)).rejects.toThrow(/duplicate key|approval_votes_pkey|has voted on approval request/);
    expect(await requestRow(kofi, id)).toMatchObject({ state: 'awaiting', approvals_given: 1 });
    await expect(approve(await as('adele'), id)).rejects.toThrow(/decided by paydesk_finance: adele is not one/);
    await expect(approve(await as('samuel'), id)).rejects.toThrow(/permission denied/);
    expect(await approve(await as('tester'), id)).toBe('approved');
    expect(await requestRow(kofi, id)).toMatchObject({ state: 'approved', approvals_given: 2 });
  });

  it('refuses to mark a request approved without its approvals, or to reopen a decided one, even for the workspace’s owner', async () => {
    const { database, as } = await workspace();
    const id = (await askPayout(await as('fatou'), 2_000_000, 'P-owner'))!;
    await approve(await as('kofi'), id);
    const root = await workspaces.server.connect(undefined, database);
    await expect(root.query(`UPDATE approval_requests SET state = 'approved' WHERE id = $1`, [id])).rejects.toThrow(/needs 2 approvals/);
    await expect(root.query(`UPDATE approval_requests SET amount = 1 WHERE id = $1`, [id])).rejects.toThrow(/never changes/);
    // A decided request stays decided: not reopened, not withdrawn after a reject.
    const fatou = await as('fatou');
    const rejected = (await askPayout(fatou, 200_000, 'P-closed'))!;
    await (await as('kofi')).query(`SELECT paydesk_reject($1, 'duplicate invoice')`, [rejected]);
    await expect(root.query(`UPDATE approval_requests SET state = 'awaiting' WHERE id = $1`, [rejected])).rejects.toThrow(/is rejected and cannot become awaiting/);
    await expect(fatou.query('SELECT paydesk_withdraw($1)', [rejected])).rejects.toThrow(/is rejected and cannot become withdrawn/);
  });

  it('approves only what the approver saw: a digest that is not the request’s is refused', async () => {
    const { as } = await workspace();
    const id = (await askPayout(await as('fatou'), 300_000, 'P-seen'))!;
    const kofi = await as('kofi');
    const other = (await askPayout(await as('tester'), 300_001, 'P-other'))!;
    await expect(kofi.query('SELECT paydesk_approve($1, $2, null)', [id, await digestOf(kofi, other)])).rejects.toThrow(/not what you saw/);
    expect((await requestRow(kofi, id)).state).toBe('awaiting');
  });
});

describe('one clear state after each decision', () => {
  it('refuses an approve after a withdraw, after a reject and after the last approval; a reject after the last approval', async () => {
    const { as } = await workspace();
    const fatou = await as('fatou');
    const kofi = await as('kofi');
    const withdrawn = (await askPayout(fatou, 200_000, 'P-w'))!;
    await expect(kofi.query('SELECT paydesk_withdraw($1)', [withdrawn])).rejects.toThrow(/only fatou \(who asked\) can withdraw/);
    await fatou.query(`SELECT paydesk_withdraw($1, 'wrong supplier')`, [withdrawn]);
    await expect(approve(kofi, withdrawn)).rejects.toThrow(/already withdrawn/);

    const rejected = (await askPayout(fatou, 200_000, 'P-r'))!;
    await expect(kofi.query(`SELECT paydesk_reject($1, '  ')`, [rejected])).rejects.toThrow(/says why/);
    await kofi.query(`SELECT paydesk_reject($1, 'no invoice')`, [rejected]);
    await expect(approve(await as('tester'), rejected)).rejects.toThrow(/already rejected/);

    const approved = (await askPayout(fatou, 200_000, 'P-a'))!;
    await approve(kofi, approved);
    await expect(approve(await as('tester'), approved)).rejects.toThrow(/already approved/);
    await expect((await as('tester')).query(`SELECT paydesk_reject($1, 'too late')`, [approved])).rejects.toThrow(/already approved/);
    expect([(await requestRow(kofi, withdrawn)).state, (await requestRow(kofi, rejected)).state, (await requestRow(kofi, approved)).state]).toEqual(['withdrawn', 'rejected', 'approved']);
  });

  it('keeps what a waiting request needs when the policy is lowered, and raises it when the policy is raised', async () => {
    const { database, as } = await workspace();
    const fatou = await as('fatou');
    const lowered = (await askPayout(fatou, 200_000, 'P-low'))!;
    // The workspace's owner edits the tiers directly (the bootstrap's way; admins ask and approve).
    const owner = await workspaces.server.connect(undefined, database);
    await owner.query(`UPDATE approval_tiers SET approvals = 2 WHERE min_amount = 100000`);
    expect(await requestRow(fatou, lowered)).toMatchObject({ approvals_required: 2, state: 'awaiting' });
    await owner.query(`DELETE FROM approval_tiers`);
    expect(await requestRow(fatou, lowered)).toMatchObject({ approvals_required: 2, state: 'awaiting' });
    // Not even the owner lowers it.
    const root = await workspaces.server.connect(undefined, database);
    await expect(root.query(`UPDATE approval_requests SET approvals_required = 1 WHERE id = $1`, [lowered])).rejects.toThrow(/never lowered/);
    expect(await approve(await as('kofi'), lowered)).toBe('awaiting');
    expect(await approve(await as('tester'), lowered)).toBe('approved');
  });

  it('ends two approvers pressing Approve at the same moment in one state: one approval, the other told it is already approved', async () => {
    const { database, as } = await workspace();
    const id = (await askPayout(await as('fatou'), 200_000, 'P-race'))!;
    const kofi = await as('kofi');
    const tester = await as('tester');
    const digest = await digestOf(kofi, id);
    await kofi.query('BEGIN');
    expect((await kofi.query('SELECT paydesk_approve($1, $2, null) AS state', [id, digest])).rows[0].state).toBe('approved');
    // tester's Approve arrives while kofi's is not committed: it waits on the request's lock.
    const second = tester.query('SELECT paydesk_approve($1, $2, null) AS state', [id, digest]).then(
      (result) => ({ ok: true as const, state: result.rows[0].state as string }),
      (error: Error) => ({ ok: false as const, message: error.message }),
    );
    // Only a superuser sees another login's wait.
    const watcher = await workspaces.server.connect(undefined, database);
    for (;;) {
      const { rows } = await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = 'tester' AND wait_event_type = 'Lock'`);
      if (rows[0].n === 1) break;
    }
    await kofi.query('COMMIT');
    expect(await second).toEqual({ ok: false, message: expect.stringMatching(/already approved/) });
    expect(await requestRow(kofi, id)).toMatchObject({ state: 'approved', approvals_given: 1 });
    expect((await kofi.query('SELECT voter FROM approval_votes WHERE request_id = $1', [id])).rows).toEqual([{ voter: 'kofi' }]);
  });

  it('counts both of two approvers at the same moment on a two-approval request, and ends approved', async () => {
    const { as } = await workspace();
    const id = (await askPayout(await as('fatou'), 2_000_000, 'P-race2'))!;
    const [kofi, tester] = [await as('kofi'), await as('tester')];
    const states = await Promise.all([approve(kofi, id), approve(tester, id)]);
    expect(states.sort()).toEqual(['approved', 'awaiting']);
    expect(await requestRow(kofi, id)).toMatchObject({ state: 'approved', approvals_given: 2 });
  });
});
