/**
 * Sending refuses what the policy covers without its approvals, by every path the database sees:
 * a single payout's entry (through the store or raw SQL), a batch's row claim (through the store
 * or raw SQL), a resend; an approval binds the digest of exactly what was seen, and any change to
 * a batch's rows after it voids it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { afterRefusedClaims, approve, askBatch, askPayout, insertPayoutEntry, requestRow, setPolicy } from './approval-helpers';
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
  return { database, as: (person: 'fatou' | 'kofi' | 'adele') => workspaces.connectAs(person, database) };
}

const NEEDS = /needs 1 approval\(s\) by paydesk_finance before it is sent/;

describe('a single payout', () => {
  it('is refused to a finance login sending a covered payout alone, by the store or by raw SQL', async () => {
    const { database, as } = await workspace();
    const fatouStore = workspaces.storeAs('fatou', database);
    const write = (amount: number, externalId: string) =>
      fatouStore.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ amount, external_id: externalId }), currency: 'XAF', at: 1 });
    await expect(write(100_000, 'S-1')).rejects.toThrow(NEEDS);
    const fatou = await as('fatou');
    await expect(insertPayoutEntry(fatou, 'raw-1', 500_000, 'S-2')).rejects.toThrow(NEEDS);
    // Below the policy, nothing is asked.
    await expect(write(99_999, 'S-3')).resolves.toEqual(expect.any(String));
    // A payment (money in) is not a payout.
    await expect(fatouStore.journal.writeRequest({ profile: PROFILE, kind: 'payment', request: payoutRequest({ amount: 900_000, external_id: 'S-4' }), currency: 'XAF', at: 1 })).resolves.toEqual(expect.any(String));
    expect((await fatou.query(`SELECT external_id FROM entries WHERE kind = 'payout' ORDER BY external_id`)).rows).toEqual([{ external_id: 'S-3' }]);
  });

  it('is sent once approved, and only as approved: another amount, phone or environment under its external id is refused', async () => {
    const { database, as } = await workspace();
    const fatou = await as('fatou');
    const id = (await askPayout(fatou, 250_000, 'S-ok'))!;
    await expect(insertPayoutEntry(fatou, 'early', 250_000, 'S-ok')).rejects.toThrow(NEEDS);
    await approve(await as('kofi'), id);
    await expect(insertPayoutEntry(fatou, 'more', 250_001, 'S-ok')).rejects.toThrow(NEEDS);
    const other = payoutRequest({ amount: 250_000, external_id: 'S-ok', phone_number: '+237699999999' });
    await expect(workspaces.storeAs('fatou', database).journal.writeRequest({ profile: PROFILE, kind: 'payout', request: other, currency: 'XAF', at: 1 })).rejects.toThrow(NEEDS);
    // Columns that disagree with the request sent are refused outright.
    await expect(
      fatou.query(`INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
        customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
        VALUES ('mixed', 'p1', 'Acme', 'sandbox', 'payout', 'pending', 'S-ok', 250000, 'XAF', '+237650000001', 'm', 'A', 'B', 'c', $1, 1, 1)`, [
        JSON.stringify(payoutRequest({ amount: 9_000_000, external_id: 'S-ok' })),
      ]),
    ).rejects.toThrow(/disagree/);
    await expect(insertPayoutEntry(fatou, 'approved', 250_000, 'S-ok')).resolves.toMatchObject({ rowCount: 1 });
  });

  it('refuses a resend of a covered payout that has no approval (a policy set after it was first sent)', async () => {
    const database = await workspaces.create();
    const fatou = await workspaces.connectAs('fatou', database);
    await insertPayoutEntry(fatou, 'old', 400_000, 'S-old', 'outcome_unknown');
    // Looked up and not found: the console may send it again with the same external id.
    await fatou.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'old'`);
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    await expect(workspaces.storeAs('fatou', database).journal.writeResend('old', 2)).rejects.toThrow(NEEDS);
    await expect(fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 'old'`)).rejects.toThrow(NEEDS);
    expect((await fatou.query(`SELECT state FROM entries WHERE id = 'old'`)).rows[0].state).toBe('outcome_unknown');
  });
});

describe('a batch', () => {
  /** A 3-row batch (1,000 + 2,000 + 3,000 each × 50: total 300,000 XAF), confirmed and sending. */
  async function sendingBatch(database: string, id = 'bx') {
    const store = workspaces.storeAs('fatou', database);
    const rows = checkedRows(3).map((row) => ({ ...row, request: { ...row.request!, amount: row.request!.amount * 50 } }));
    await store.batches.create({ id, fileName: 'big.csv', fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1 });
    await store.batches.setState(id, 'sending', 1);
    return store;
  }

  it('is not claimed, by the store or by raw SQL, until approved; then it is', async () => {
    const { database, as } = await workspace();
    const store = await sendingBatch(database);
    await expect(store.batches.claimRows('bx', 'desk-1', 2, 60_000, 1)).rejects.toThrow(/batch bx \(total 300000\) needs 1 approval/);
    const fatou = await as('fatou');
    await expect(fatou.query(`UPDATE batch_rows SET claim_holder = 'desk-raw', lease_until = paydesk_now_ms() + 60000`)).rejects.toThrow(/needs 1 approval/);
    // Nor is a row's entry written past the claims (the entry's own gate: a tier binds the batch).
    await expect(
      fatou.query(`INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, request, batch_id, batch_row, created_at, updated_at)
        SELECT 'bx-raw', 'p1', 'Acme', 'sandbox', 'payout', 'pending', br.request::jsonb->>'external_id', (br.request::jsonb->>'amount')::bigint, 'XAF',
          br.request::jsonb->>'phone_number', br.request::text, 'bx', br.row_number, 1, 1
        FROM batch_rows br WHERE br.row_number = 2`),
    ).rejects.toThrow(/needs 1 approval/);
    const id = (await askBatch(fatou, 'bx'))!;
    expect(await requestRow(fatou, id)).toMatchObject({ state: 'awaiting', approvals_required: 1 });
    await expect(store.batches.claimRows('bx', 'desk-1', 2, 60_000, 1)).rejects.toThrow(/needs 1 approval/);
    await approve(await as('kofi'), id);
    // The refused claim just above may still hold rows 2 and 3 on its dropped connection.
    await afterRefusedClaims(fatou);
    const claim = await store.batches.claimRows('bx', 'desk-1', 2, 60_000, 1);
    expect(claim.rows.map((row) => row.rowNumber)).toEqual([2, 3]);
    const entry = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: claim.rows[0]!.request!, currency: 'XAF', at: 1, batch: { id: 'bx', row: 2 } });
    expect(entry).toEqual(expect.any(String));
  });

  it('voids its approval when a row changes after it was approved, and is then refused', async () => {
    const { database, as } = await workspace();
    const store = await sendingBatch(database);
    const fatou = await as('fatou');
    const id = (await askBatch(fatou, 'bx'))!;
    await approve(await as('kofi'), id);
    const changed = JSON.stringify(payoutRequest({ external_id: 'B-2', amount: 100_000, phone_number: '+237600000000' }));
    await fatou.query(`UPDATE batch_rows SET request = $1 WHERE row_number = 3`, [changed]);
    expect((await requestRow(fatou, id)).state).toBe('void');
    await expect(store.batches.claimRows('bx', 'desk-1', 2, 60_000, 1)).rejects.toThrow(/needs 1 approval/);
    const { rows } = await fatou.query(`SELECT actor FROM audit_log WHERE action = 'void_approval' AND subject = $1`, [`approval:${id}`]);
    expect(rows).toEqual([{ actor: 'fatou' }]);
  });

  it('compares the digest at the claim: rows changed past the void trigger are still refused', async () => {
    const { database, as } = await workspace();
    const store = await sendingBatch(database);
    const fatou = await as('fatou');
    const id = (await askBatch(fatou, 'bx'))!;
    await approve(await as('kofi'), id);
    const root = await workspaces.server.connect(undefined, database);
    await root.query('ALTER TABLE batch_rows DISABLE TRIGGER batch_rows_void_approval');
    await root.query(`UPDATE batch_rows SET request = jsonb_set(request::jsonb, '{amount}', '999999')::text WHERE row_number = 2`);
    await root.query('ALTER TABLE batch_rows ENABLE TRIGGER batch_rows_void_approval');
    expect((await requestRow(fatou, id)).state).toBe('approved');
    await expect(store.batches.claimRows('bx', 'desk-1', 2, 60_000, 1)).rejects.toThrow(/changed after it was approved/);
  });

  it('asks nothing of a batch whose total is below the policy', async () => {
    const { database } = await workspace();
    const store = workspaces.storeAs('fatou', database);
    await store.batches.create({ id: 'small', fileName: 's.csv', fileHash: 's', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(3), at: 1 });
    await store.batches.setState('small', 'sending', 1);
    expect((await store.batches.claimRows('small', 'desk-1', 5, 60_000, 1)).rows).toHaveLength(3);
  });
});
