/**
 * Raw SQL as a finance login trying to move a covered payout alone (issue 25's done-check, "raw SQL
 * as a finance role"; the table of paths in docs/decisions/approvals-port.md). fatou holds finance
 * and a psql prompt; the policy asks one approval from 100,000 XAF. Every way around the gate that
 * the grants would let her type is refused by the database, and nothing covered becomes sendable:
 * writing votes or requests by hand, borrowing a colleague's identity, switching the rules off,
 * growing a small payout (or an approved one) after the fact, adding a row to an approved batch,
 * loosening the policy. The paths through the console and the store are in approval-gate.test.ts,
 * approvals-port.test.ts and test/console/approvals-send.test.ts.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { approve, askBatch, askPayout, digestOf, insertPayoutEntry, requestRow, setPolicy } from './approval-helpers';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
let kofi: pg.Client;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  fatou = await workspaces.connectAs('fatou', database);
  kofi = await workspaces.connectAs('kofi', database);
}, 60_000);
afterAll(async () => {
  await fatou?.end();
  await kofi?.end();
  await workspaces?.stop();
});

const NEEDS = /needs 1 approval\(s\) by paydesk_finance before it is sent/;
const refusedAs = (code: string) => expect.objectContaining({ code });

describe('raw SQL as a finance login', () => {
  it('cannot approve its own request: no vote or request written by hand, no borrowed identity, no rule switched off', async () => {
    const id = (await askPayout(fatou, 250_000, 'RAW-1'))!;
    await expect(fatou.query(`INSERT INTO approval_votes (request_id, voter, vote) VALUES ($1, 'kofi', 'approve')`, [id])).rejects.toEqual(refusedAs('42501'));
    await expect(fatou.query(`UPDATE approval_requests SET state = 'approved', approvals_given = 1 WHERE id = $1`, [id])).rejects.toEqual(refusedAs('42501'));
    await expect(
      fatou.query(`INSERT INTO approval_requests (subject, environment, currency, amount, external_id, digest, state, approvals_required, approvals_given, approver_role, requested_by)
                   VALUES ('payout', 'sandbox', 'XAF', 250000, 'RAW-2', 'x', 'approved', 1, 1, 'paydesk_finance', 'kofi')`),
    ).rejects.toEqual(refusedAs('42501'));
    // Another person's name: neither a role switch nor a session switch is allowed to her.
    await expect(fatou.query('SET ROLE kofi')).rejects.toEqual(refusedAs('42501'));
    await expect(fatou.query('SET SESSION AUTHORIZATION kofi')).rejects.toEqual(refusedAs('42501'));
    // A role she holds changes current_user, never session_user: still her own request.
    await fatou.query('SET ROLE paydesk_finance');
    await expect(fatou.query('SELECT paydesk_approve($1, $2, NULL)', [id, await digestOf(fatou, id)])).rejects.toEqual(refusedAs('PD010'));
    await fatou.query('RESET ROLE');
    // The rules themselves: triggers belong to the owner, replication mode to a superuser.
    await expect(fatou.query('ALTER TABLE entries DISABLE TRIGGER ALL')).rejects.toEqual(refusedAs('42501'));
    await expect(fatou.query('SET session_replication_role = replica')).rejects.toEqual(refusedAs('42501'));
    // The policy is the admin's.
    await expect(fatou.query(`DELETE FROM approval_tiers`)).rejects.toEqual(refusedAs('42501'));
    await expect(fatou.query(`UPDATE approval_tiers SET min_amount = 999999999`)).rejects.toEqual(refusedAs('42501'));

    expect(await requestRow(fatou, id)).toMatchObject({ state: 'awaiting', approvals_given: 0 });
    await expect(insertPayoutEntry(fatou, 'raw-1', 250_000, 'RAW-1')).rejects.toThrow(NEEDS);
  });

  it('cannot grow a payout past the policy after it was written, nor an approved one past what was approved', async () => {
    await insertPayoutEntry(fatou, 'small', 5_000, 'RAW-SMALL');
    const grown = JSON.stringify(payoutRequest({ amount: 500_000, external_id: 'RAW-SMALL' }));
    await expect(fatou.query(`UPDATE entries SET request = $1, amount = 500000 WHERE id = 'small'`, [grown])).rejects.toThrow(NEEDS);
    // The request alone (what would be sent): its columns no longer agree with it, refused too.
    await expect(fatou.query(`UPDATE entries SET request = $1 WHERE id = 'small'`, [grown])).rejects.toThrow(/needs 1 approval|columns and its request disagree/);

    const id = (await askPayout(fatou, 250_000, 'RAW-OK'))!;
    await approve(kofi, id);
    await insertPayoutEntry(fatou, 'approved', 250_000, 'RAW-OK');
    const more = JSON.stringify(payoutRequest({ amount: 900_000, external_id: 'RAW-OK' }));
    await expect(fatou.query(`UPDATE entries SET request = $1, amount = 900000 WHERE id = 'approved'`, [more])).rejects.toThrow(/needs 1 approval/);
    const { rows } = await fatou.query(`SELECT id, (request::jsonb->>'amount')::bigint AS amount FROM entries WHERE id IN ('small', 'approved') ORDER BY id`);
    expect(rows).toEqual([
      { id: 'approved', amount: '250000' },
      { id: 'small', amount: '5000' },
    ]);
  });

  it('cannot add a row to an approved batch and claim it: the approval is void and the claim refused', async () => {
    const store = workspaces.storeAs('fatou', database);
    const rows = checkedRows(3).map((row) => ({ ...row, request: { ...row.request!, amount: row.request!.amount * 50 } }));
    await store.batches.create({ id: 'raw-batch', fileName: 'raw.csv', fileHash: 'raw', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1 });
    await store.batches.setState('raw-batch', 'sending', 1);
    const id = (await askBatch(fatou, 'raw-batch'))!;
    await approve(kofi, id);
    await fatou.query(
      `INSERT INTO batch_rows (batch_seq, row_number, cells, request, errors, duplicates, external_id)
       SELECT batch_seq, 99, cells, jsonb_set(request::jsonb, '{external_id}', '"RAW-EXTRA"')::text, errors, duplicates, 'RAW-EXTRA'
       FROM batch_rows WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'raw-batch') AND row_number = 2`,
    );
    expect((await requestRow(fatou, id)).state).toBe('void');
    await expect(fatou.query(`UPDATE batch_rows SET claim_holder = 'desk-raw', lease_until = paydesk_now_ms() + 60000 WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'raw-batch')`)).rejects.toThrow(
      /needs 1 approval/,
    );
    // The server sends the refusal before it has released the refused UPDATE's row locks; the next
    // statement on that connection runs only once they are (a claim skips locked rows: it would find none).
    await fatou.query('SELECT 1');
    await expect(store.batches.claimRows('raw-batch', 'desk-1', 5, 60_000, 1)).rejects.toThrow(/needs 1 approval/);
  });
});
