/**
 * Issue 25 item 7: a lost connection during an approve (docs/decisions/approval-races.md). The
 * vote's COMMIT may or may not have happened; the approver's console (the approvals port) finds
 * out by reading again on a fresh connection, never votes twice, and answers one state: the
 * request as it is, or "not recorded" with its state, or "cannot be read yet". The cut is made at
 * an exact moment: after the server committed (a proxy holds its answer back, test/helpers/
 * pg-cut.ts), or before it could (the approver's backend ended while it waits for a row lock).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalRefusal } from '../../electron/console/storage/approvals-port';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { approvalFailure } from '../../electron/console/handlers/approvals';
import { startPgCut, type PgCut } from '../helpers/pg-cut';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from './approval-helpers';
import { payoutRequest, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let cable: PgCut;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  cable = await startPgCut(workspaces.server.cluster);
}, 60_000);
afterAll(async () => {
  await cable?.close();
  await workspaces?.stop();
});

async function workspace(approvals: 1 | 2 = 1) {
  const database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals }]);
  const port = (person: Person) => workspaces.storeAs(person, database).approvals!;
  // kofi's console reaches the workspace through the cable.
  const kofi = workspaceStore(openWorkspacePool({ ...workspaces.server.config('kofi', database), host: cable.host }));
  const asked = (await port('fatou').askPayout(PROFILE, 'XAF', payoutRequest({ amount: 150_000, external_id: `C-${database}` })))!;
  return { database, port, kofi, asked };
}

/** Ends kofi's backend (no deadline) once its statement waits for the request's row lock, which `holder` holds. */
async function endKofiWhileItWaits(database: string): Promise<void> {
  // Watched from another session: inside the holder's transaction the statistics are one frozen snapshot.
  const watcher = await workspaces.server.connect(undefined, database);
  let pid: number | undefined;
  while (pid === undefined) {
    const { rows } = await watcher.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE usename = 'kofi' AND datname = $1 AND wait_event_type = 'Lock'`, [database]);
    pid = rows[0]?.pid;
    if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await watcher.query('SELECT pg_terminate_backend($1)', [pid]);
  await watcher.end();
}

async function votesOn(database: string, id: number): Promise<{ voter: string; vote: string }[]> {
  const raw = await workspaces.connectAs('adele', database);
  const { rows } = await raw.query<{ voter: string; vote: string }>('SELECT voter, vote FROM approval_votes WHERE request_id = $1', [id]);
  await raw.end();
  return rows;
}

async function refusal(promise: Promise<unknown>): Promise<ApprovalRefusal> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApprovalRefusal);
  return error as ApprovalRefusal;
}

describe('a lost connection during an approve', () => {
  it('committed, its answer lost: the console reads again and shows approved; pressing again never votes twice', async () => {
    const { database, port, kofi, asked } = await workspace();
    const cut = cable.cutAfterCommit('paydesk_approve');
    const answer = await kofi.approvals!.approve(asked.id, asked.digest, 'checked');
    await cut;
    expect(answer).toMatchObject({ id: asked.id, state: 'approved', decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve', remark: 'checked' }] });
    expect(await port('fatou').get(asked.id)).toMatchObject({ state: 'approved', decidedBy: 'kofi' });
    const again = await refusal(kofi.approvals!.approve(asked.id, asked.digest));
    expect(again).toMatchObject({ code: 'APPROVAL_NOT_WAITING', decision: { state: 'approved', decidedBy: 'kofi' } });
    expect(await votesOn(database, asked.id)).toEqual([{ voter: 'kofi', vote: 'approve' }]);
    await kofi.close();
  });

  it('not committed (the approver’s backend ended while it waited for the request’s lock): "not recorded", awaiting, and the next press counts once', async () => {
    const { database, port, kofi, asked } = await workspace();
    const holder = await workspaces.server.connect(undefined, database);
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM approval_requests WHERE id = $1 FOR UPDATE', [asked.id]);
    const pressed = refusal(kofi.approvals!.approve(asked.id, asked.digest));
    await endKofiWhileItWaits(database);
    await holder.query('ROLLBACK');
    const lost = await pressed;
    expect(lost.code).toBe('APPROVAL_NOT_RECORDED');
    expect(lost.decision).toEqual({ id: asked.id, state: 'awaiting', decidedBy: null, requestedBy: 'fatou' });
    expect(approvalFailure(lost)!.extra.decision).toEqual(lost.decision);
    expect(await votesOn(database, asked.id)).toEqual([]);
    expect(await port('fatou').get(asked.id)).toMatchObject({ state: 'awaiting', approvalsGiven: 0 });
    expect((await kofi.approvals!.waiting('forMe')).map((r) => r.id)).toEqual([asked.id]);
    expect(await kofi.approvals!.approve(asked.id, asked.digest)).toMatchObject({ state: 'approved', approvalsGiven: 1 });
    expect(await votesOn(database, asked.id)).toEqual([{ voter: 'kofi', vote: 'approve' }]);
    await kofi.close();
  });

  it('committed, and the workspace cannot be read again yet: "not known yet", never re-sent; once back, the lists show it approved', async () => {
    const { database, port, kofi, asked } = await workspace();
    // The cut closes the connection; from then on no new one gets through.
    const cut = cable.cutAfterCommit('paydesk_approve', { thenRefuse: true });
    const unknown = await refusal(kofi.approvals!.approve(asked.id, asked.digest));
    await cut;
    cable.refuseNew = false;
    expect(unknown.code).toBe('APPROVAL_UNCONFIRMED');
    expect(unknown.decision).toBeNull();
    expect(await kofi.approvals!.get(asked.id)).toMatchObject({ state: 'approved', votes: [{ voter: 'kofi' }] });
    expect(await kofi.approvals!.waiting('forMe')).toEqual([]);
    expect(await port('fatou').get(asked.id)).toMatchObject({ state: 'approved' });
    expect(await votesOn(database, asked.id)).toHaveLength(1);
    await kofi.close();
  });
});

describe('a lost connection during an approve, on a request that needs two approvals and has a colleague\'s', () => {
  it('not committed: "not recorded" though the request carries an approve (the colleague\'s, not this login\'s)', async () => {
    const { database, port, kofi, asked } = await workspace(2);
    expect(await port('tester').approve(asked.id, asked.digest)).toMatchObject({ state: 'awaiting', approvalsRequired: 2, approvalsGiven: 1 });
    const holder = await workspaces.server.connect(undefined, database);
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM approval_requests WHERE id = $1 FOR UPDATE', [asked.id]);
    const pressed = refusal(kofi.approvals!.approve(asked.id, asked.digest));
    await endKofiWhileItWaits(database);
    await holder.query('ROLLBACK');
    await holder.end();
    const lost = await pressed;
    expect(lost.code).toBe('APPROVAL_NOT_RECORDED');
    expect(lost.decision).toEqual({ id: asked.id, state: 'awaiting', decidedBy: null, requestedBy: 'fatou' });
    expect(await votesOn(database, asked.id)).toEqual([{ voter: 'tester', vote: 'approve' }]);
    // Still kofi's to decide: the next press counts, once, and decides it.
    expect((await kofi.approvals!.waiting('forMe')).map((r) => r.id)).toEqual([asked.id]);
    expect(await kofi.approvals!.approve(asked.id, asked.digest)).toMatchObject({ state: 'approved', approvalsGiven: 2, decidedBy: 'kofi' });
    await kofi.close();
  });

  it('committed, its answer lost: recorded, the request read again carries both votes and is approved', async () => {
    const { database, kofi, asked, port } = await workspace(2);
    await port('tester').approve(asked.id, asked.digest);
    const cut = cable.cutAfterCommit('paydesk_approve');
    const answer = await kofi.approvals!.approve(asked.id, asked.digest);
    await cut;
    expect(answer).toMatchObject({ state: 'approved', approvalsGiven: 2, decidedBy: 'kofi' });
    expect(answer.votes.map((v) => [v.voter, v.vote]).sort()).toEqual([
      ['kofi', 'approve'],
      ['tester', 'approve'],
    ]);
    expect(await votesOn(database, asked.id)).toHaveLength(2);
    await kofi.close();
  });
});
