/**
 * Issue 25 item 7, the races left: a reject after the last approval, and a policy changed while a
 * request waits (docs/decisions/approval-races.md). Each ends in one state, read the same by the
 * maker (fatou) and the approvers (kofi, tester), in raw SQL where the rule is the database's and
 * through the approvals port for what each side's console is told. The lost connection during an
 * approve is test/storage/approval-lost-connection.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalRefusal } from '../../electron/console/storage/approvals-port';
import { APPROVAL_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { approvalFailure } from '../../electron/console/handlers/approvals';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { approve, askBatch, askPayout, insertPayoutEntry, requestRow, setPolicy } from './approval-helpers';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

/** One approval from 100,000 XAF in the sandbox. */
async function workspace() {
  const database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  const port = (person: Person) => workspaces.storeAs(person, database).approvals!;
  const as = (person: Person) => workspaces.connectAs(person, database);
  return { database, port, as };
}

async function refusal(promise: Promise<unknown>): Promise<ApprovalRefusal> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApprovalRefusal);
  return error as ApprovalRefusal;
}

describe('a reject after the last approval', () => {
  it('is refused in raw SQL: the request stays approved, no vote and no reject in the audit log', async () => {
    const { as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 150_000, 'R-raw'))!;
    expect(await approve(await as('kofi'), id)).toBe('approved');
    const tester = await as('tester');
    const late = await tester.query('SELECT paydesk_reject($1, $2)', [id, 'I disagree']).catch((e: unknown) => e as Error & { code: string; detail: string });
    expect(late).toMatchObject({ code: APPROVAL_SQLSTATE.notWaiting, message: expect.stringMatching(/is already approved: nothing more can be decided/) });
    expect(JSON.parse((late as { detail: string }).detail)).toEqual({ state: 'approved', decidedBy: 'kofi' });
    expect(await requestRow(fatou, id)).toMatchObject({ state: 'approved', approvals_given: 1 });
    expect((await fatou.query('SELECT voter, vote FROM approval_votes WHERE request_id = $1', [id])).rows).toEqual([{ voter: 'kofi', vote: 'approve' }]);
    expect((await fatou.query(`SELECT action FROM audit_log WHERE subject = $1 ORDER BY id`, [`approval:${id}`])).rows.map((r) => r.action)).toEqual(['request_approval', 'approve']);
    // The maker's desktop may send it, as approved.
    await expect(insertPayoutEntry(fatou, 'sent', 150_000, 'R-raw')).resolves.toMatchObject({ rowCount: 1 });
  });

  it('tells the late rejecter who approved it and who may still withdraw it; the maker reads approved and may send', async () => {
    const { port } = await workspace();
    const request = payoutRequest({ amount: 150_000, external_id: 'R-port' });
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', request))!;
    await port('kofi').approve(asked.id, asked.digest, 'checked the invoice');
    const late = await refusal(port('tester').reject(asked.id, 'wrong supplier'));
    expect(late.code).toBe('APPROVAL_NOT_WAITING');
    expect(late.decision).toEqual({ id: asked.id, state: 'approved', decidedBy: 'kofi', requestedBy: 'fatou' });
    // What the rejecter's screen receives over IPC: the code and the request as read again.
    const failure = approvalFailure(late)!;
    expect({ code: failure.code, decision: failure.extra.decision }).toEqual({ code: 'APPROVAL_NOT_WAITING', decision: late.decision });
    const mine = (await port('fatou').waiting('mine'))[0]!;
    expect(mine).toMatchObject({ id: asked.id, state: 'approved', decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve' }] });
    expect(await port('fatou').payoutGate('sandbox', 'XAF', request)).toBeNull();
    expect(await port('tester').waiting('forMe')).toEqual([]);
  });

  it('ends an approve and a reject pressed at the same moment in the one that came first, the other told who decided', async () => {
    const { port } = await workspace();
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 150_000, external_id: 'R-race' })))!;
    const [approved, rejected] = await Promise.allSettled([port('kofi').approve(asked.id, asked.digest), port('tester').reject(asked.id, 'no')]);
    const final = (await port('fatou').get(asked.id))!;
    expect(['approved', 'rejected']).toContain(final.state);
    expect(final.votes).toHaveLength(1);
    const winner = final.state === 'approved' ? approved : rejected;
    const loser = final.state === 'approved' ? rejected : approved;
    expect(winner).toMatchObject({ status: 'fulfilled', value: { state: final.state } });
    expect(loser).toMatchObject({ status: 'rejected', reason: { code: 'APPROVAL_NOT_WAITING', decision: { state: final.state, decidedBy: final.decidedBy } } });
    expect(final.decidedBy).toBe(final.state === 'approved' ? 'kofi' : 'tester');
  });
});

describe('a policy lowered while a request waits', () => {
  it('does not release a waiting payout: its request binds the send until it is approved or withdrawn', async () => {
    const { database, port, as } = await workspace();
    const request = payoutRequest({ amount: 150_000, external_id: 'L-pay' });
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', request))!;
    await port('adele').setPolicy('sandbox', 'XAF', []);
    const fatou = await as('fatou');
    const raw = await insertPayoutEntry(fatou, 'early', 150_000, 'L-pay').catch((e: unknown) => e as Error & { code: string; detail: string });
    expect(raw).toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired, message: expect.stringMatching(/needs 1 approval\(s\) by paydesk_finance before it is sent: request \d+ waits for them \(0 given\), whatever the policy says now/) });
    expect(JSON.parse((raw as { detail: string }).detail)).toMatchObject({ requestId: asked.id, approvals: 1, externalId: 'L-pay' });
    const gate = (await port('fatou').payoutGate('sandbox', 'XAF', request))!;
    expect(gate.code).toBe('APPROVAL_REQUIRED');
    expect(gate.need).toMatchObject({ approvals: 1, request: { id: asked.id, state: 'awaiting' } });
    // The approvers still see it, needing what it was asked with.
    expect((await port('kofi').waiting('forMe')).map((r) => [r.id, r.approvalsRequired])).toEqual([[asked.id, 1]]);
    // The maker takes it back (audited), then the new policy (none) applies.
    await port('fatou').withdraw(asked.id, 'policy lowered');
    await expect(insertPayoutEntry(fatou, 'after', 150_000, 'L-pay')).resolves.toMatchObject({ rowCount: 1 });
    expect((await (await as('adele')).query(`SELECT action FROM audit_log WHERE subject = $1 ORDER BY id`, [`approval:${asked.id}`])).rows.map((r) => r.action)).toEqual([
      'request_approval',
      'withdraw',
    ]);
    void database;
  });

  it('does not release a waiting batch either: its rows are not claimed, by the store or raw SQL', async () => {
    const { database, port, as } = await workspace();
    const store = workspaces.storeAs('fatou', database);
    await store.batches.create({ id: 'bl', fileName: 'l.csv', fileHash: 'bl', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
    await store.batches.setState('bl', 'sending', 1);
    const asked = (await port('fatou').askBatch('bl', 'XAF'))!;
    await port('adele').setPolicy('sandbox', 'XAF', [{ minAmount: 1_000_000, approvals: 1, approverRole: 'finance' }]);
    await expect(store.batches.claimRows('bl', 'desk-1', 2, 60_000, 1)).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired, message: expect.stringMatching(/batch bl \(total 210000\) needs 1 approval\(s\) by paydesk_finance before it is sent: request \d+ waits/) });
    const fatou = await as('fatou');
    await expect(fatou.query(`UPDATE batch_rows SET claim_holder = 'desk-raw', lease_until = paydesk_now_ms() + 60000`)).rejects.toThrow(/batch bl .* request \d+ waits for them/);
    expect((await port('fatou').batchGate('bl'))!.need).toMatchObject({ subject: 'batch', batchId: 'bl', approvals: 1, request: { id: asked.id, state: 'awaiting' } });
    await port('kofi').approve(asked.id, asked.digest);
    expect((await store.batches.claimRows('bl', 'desk-1', 2, 60_000, 1)).rows).toHaveLength(2);
  });

  it('does not let a row claimed before the request go while it waits, even with no tier left in the policy', async () => {
    // The entry's gate skips its checks only when nothing binds the batch (migration 35): a
    // request awaiting binds it even when no tier asks anything any more.
    const { database, port } = await workspace();
    const store = workspaces.storeAs('fatou', database);
    await port('adele').setPolicy('sandbox', 'XAF', []);
    await store.batches.create({ id: 'bw', fileName: 'w.csv', fileHash: 'bw', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
    await store.batches.setState('bw', 'sending', 1);
    const [row] = (await store.batches.claimRows('bw', 'desk-1', 1, 60_000, 1)).rows;
    await port('adele').setPolicy('sandbox', 'XAF', [{ minAmount: 100_000, approvals: 1, approverRole: 'finance' }]);
    const asked = (await port('fatou').askBatch('bw', 'XAF'))!;
    await port('adele').setPolicy('sandbox', 'XAF', []);
    const send = () => store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row!.request!, currency: 'XAF', at: 2, batch: { id: 'bw', row: row!.rowNumber } });
    await expect(send()).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired });
    await port('kofi').approve(asked.id, asked.digest);
    expect(await send()).toEqual(expect.any(String));
  });
});

describe('a policy raised while a request waits or before it is sent', () => {
  it('raises a waiting request, and opens again an approved payout not yet sent; the approval it had still counts', async () => {
    const { port, as } = await workspace();
    const request = payoutRequest({ amount: 150_000, external_id: 'T-pay' });
    const asked = (await port('fatou').askPayout('sandbox', 'XAF', request))!;
    await port('kofi').approve(asked.id, asked.digest);
    const waiting = (await port('fatou').askPayout('sandbox', 'XAF', payoutRequest({ amount: 200_000, external_id: 'T-wait' })))!;
    await port('adele').setPolicy('sandbox', 'XAF', [{ minAmount: 100_000, approvals: 2, approverRole: 'finance' }]);
    expect(await port('fatou').get(asked.id)).toMatchObject({ state: 'awaiting', approvalsRequired: 2, approvalsGiven: 1, decidedBy: null });
    expect(await port('fatou').get(waiting.id)).toMatchObject({ state: 'awaiting', approvalsRequired: 2, approvalsGiven: 0 });
    const fatou = await as('fatou');
    await expect(insertPayoutEntry(fatou, 'early', 150_000, 'T-pay')).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired });
    expect((await port('fatou').payoutGate('sandbox', 'XAF', request))!.need).toMatchObject({ approvals: 2, request: { id: asked.id, state: 'awaiting' } });
    // kofi has voted: it waits for another approver, not for him again.
    expect(await port('kofi').waiting('forMe')).toEqual([expect.objectContaining({ id: waiting.id })]);
    expect((await port('tester').waiting('forMe')).map((r) => r.id)).toEqual([asked.id, waiting.id]);
    const audit = await fatou.query(`SELECT actor, action, before->>'state' AS before, after->>'state' AS after FROM audit_log WHERE subject = $1 ORDER BY id`, [`approval:${asked.id}`]);
    expect(audit.rows.at(-1)).toEqual({ actor: 'adele', action: 'policy_change', before: 'approved', after: 'awaiting' });
    expect(await port('tester').approve(asked.id, asked.digest)).toMatchObject({ state: 'approved', approvalsGiven: 2 });
    await expect(insertPayoutEntry(fatou, 'sent', 150_000, 'T-pay')).resolves.toMatchObject({ rowCount: 1 });
  });

  it('leaves an approval whose money has left as it was: a payout sent, a batch whose rows all have their entries', async () => {
    const { database, port, as } = await workspace();
    const fatou = await as('fatou');
    const sent = (await askPayout(fatou, 150_000, 'T-sent'))!;
    await approve(await as('kofi'), sent);
    await insertPayoutEntry(fatou, 'sent', 150_000, 'T-sent');
    const store = workspaces.storeAs('fatou', database);
    for (const id of ['b-all', 'b-part']) {
      await store.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
      await store.batches.setState(id, 'sending', 1);
    }
    const all = (await askBatch(fatou, 'b-all'))!;
    const part = (await askBatch(fatou, 'b-part'))!;
    await approve(await as('kofi'), all);
    await approve(await as('kofi'), part);
    // Every row of b-all has its entry; b-part's last row has none yet.
    await fatou.query(`UPDATE batch_rows SET journal_id = 'e-' || row_number WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-all')`);
    await fatou.query(`UPDATE batch_rows SET journal_id = 'e-' || row_number WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-part') AND row_number < 21`);
    await port('adele').setPolicy('sandbox', 'XAF', [{ minAmount: 100_000, approvals: 2, approverRole: 'finance' }]);
    expect(await requestRow(fatou, sent)).toMatchObject({ state: 'approved', approvals_required: 1 });
    expect(await requestRow(fatou, all)).toMatchObject({ state: 'approved', approvals_required: 1 });
    expect(await requestRow(fatou, part)).toMatchObject({ state: 'awaiting', approvals_required: 2, approvals_given: 1 });
    // Its last row is not claimed until a second approver agrees.
    await expect(store.batches.claimRows('b-part', 'desk-1', 5, 60_000, 1)).rejects.toThrow(/batch b-part \(total 210000\) needs 2 approval\(s\) by paydesk_finance before it is sent: request \d+ waits for them \(1 given\)/);
  });

  /**
   * Waits (no deadline) until a session of `login` is blocked on a lock, the moment of the race made
   * exact, or until its statement is over without waiting (then what follows says it went wrong).
   */
  async function blockedOnLock(database: string, login: Person, statement: Promise<unknown>): Promise<void> {
    let over = false;
    void statement.then(
      () => (over = true),
      () => (over = true),
    );
    const watcher = await workspaces.server.connect(undefined, database);
    while (!over) {
      const { rows } = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND datname = $2 AND wait_event_type = 'Lock'`, [login, database]);
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await watcher.end();
  }

  it('takes turns with a send at the same moment: a send still committing is never reopened behind it', async () => {
    const { database, as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 150_000, 'T-turn'))!;
    await approve(await as('kofi'), id);
    await fatou.query('BEGIN');
    await insertPayoutEntry(fatou, 'sending', 150_000, 'T-turn');
    const raised = setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 2 }]);
    await blockedOnLock(database, 'adele', raised);
    await fatou.query('COMMIT');
    await raised;
    // The payout left under its approval: the raise found it sent and left it approved.
    expect(await requestRow(fatou, id)).toMatchObject({ state: 'approved', approvals_required: 1 });
  });

  it('takes turns with a send at the same moment: a send after the reopening waits for it and is refused', async () => {
    const { database, as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 150_000, 'T-turn2'))!;
    await approve(await as('kofi'), id);
    const adele = await as('adele');
    await adele.query('BEGIN');
    await adele.query(`UPDATE approval_tiers SET approvals = 2 WHERE environment = 'sandbox' AND currency = 'XAF' AND min_amount = 100000`);
    const sending = insertPayoutEntry(fatou, 'sending', 150_000, 'T-turn2').catch((e: unknown) => e);
    await blockedOnLock(database, 'fatou', sending);
    await adele.query('COMMIT');
    expect(await sending).toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired });
    expect(await requestRow(fatou, id)).toMatchObject({ state: 'awaiting', approvals_required: 2, approvals_given: 1 });
    expect((await fatou.query(`SELECT count(*)::int AS n FROM entries WHERE external_id = 'T-turn2'`)).rows[0].n).toBe(0);
  });

  it('takes turns with a batch row sent at the same moment: a batch whose last row is still committing is never reopened behind it', async () => {
    const { database, port, as } = await workspace();
    const store = workspaces.storeAs('fatou', database);
    await store.batches.create({ id: 'bt', fileName: 't.csv', fileHash: 'bt', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1, { amount: 150_000 }), at: 1 });
    const asked = (await port('fatou').askBatch('bt', 'XAF'))!;
    await port('kofi').approve(asked.id, asked.digest);
    await store.batches.setState('bt', 'sending', 1);
    const [row] = (await store.batches.claimRows('bt', 'desk-1', 1, 60_000, 1)).rows;
    const fatou = await as('fatou');
    await fatou.query('BEGIN');
    // The row's send, as the journal writes it (its entry and its link), not yet committed.
    await fatou.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, request, batch_id, batch_row, created_at, updated_at)
       VALUES ('bt-row', 'p1', 'Acme', 'sandbox', 'payout', 'pending', $1, 150000, 'XAF', $2, 'service_demo', 'Awa', 'Nkemdirim', 'awa@example.com', $3, 'bt', $4, 1, 1)`,
      [row!.externalId, row!.request!.phone_number, JSON.stringify(row!.request), row!.rowNumber],
    );
    await fatou.query(`UPDATE batch_rows SET journal_id = 'bt-row' WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'bt') AND row_number = $1`, [row!.rowNumber]);
    const raised = setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 2 }]);
    await blockedOnLock(database, 'adele', raised);
    await fatou.query('COMMIT');
    await raised;
    // Its only row left under its approval: the raise found it sent and left it approved.
    expect(await requestRow(fatou, asked.id)).toMatchObject({ state: 'approved', approvals_required: 1 });
  });

  it('refuses withdrawing an approved request whose money has left; a batch halfway sent may be withdrawn, its rest then refused', async () => {
    const { database, port, as } = await workspace();
    const fatou = await as('fatou');
    const sent = (await askPayout(fatou, 150_000, 'W-sent'))!;
    await approve(await as('kofi'), sent);
    await insertPayoutEntry(fatou, 'sent', 150_000, 'W-sent');
    await expect(fatou.query('SELECT paydesk_withdraw($1, $2)', [sent, 'too late'])).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.alreadySent });
    const refused = await refusal(port('fatou').withdraw(sent, 'too late'));
    expect(refused.code).toBe('APPROVAL_ALREADY_SENT');
    expect(await requestRow(fatou, sent)).toMatchObject({ state: 'approved' });
    const store = workspaces.storeAs('fatou', database);
    await store.batches.create({ id: 'b-half', fileName: 'h.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
    await store.batches.setState('b-half', 'sending', 1);
    const half = (await askBatch(fatou, 'b-half'))!;
    await approve(await as('kofi'), half);
    await fatou.query(`UPDATE batch_rows SET journal_id = 'e-' || row_number WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'b-half') AND row_number < 11`);
    expect(await port('fatou').withdraw(half, 'stop the rest')).toMatchObject({ state: 'withdrawn' });
    await expect(store.batches.claimRows('b-half', 'desk-1', 5, 60_000, 1)).rejects.toMatchObject({ code: APPROVAL_SQLSTATE.approvalRequired });
  });

  it('cannot be used to move a request back to awaiting by hand, nor once its money has left', async () => {
    const { as, database } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 150_000, 'T-hand'))!;
    await approve(await as('kofi'), id);
    await expect(fatou.query(`UPDATE approval_requests SET state = 'awaiting', approvals_required = 2 WHERE id = $1`, [id])).rejects.toThrow(/permission denied/);
    await insertPayoutEntry(fatou, 'sent', 150_000, 'T-hand');
    // Even the tables' owner (no grant stops it; the rule does) cannot reopen a request whose payout was sent.
    const owner = await workspaces.server.connect(undefined, database);
    await expect(owner.query(`UPDATE approval_requests SET state = 'awaiting', approvals_required = 2 WHERE id = $1`, [id])).rejects.toThrow(/is approved and cannot become awaiting/);
    await owner.end();
  });
});
