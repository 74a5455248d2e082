/**
 * Migration 44 (postgres/migrations/0044-a-sent-payout-never-changes.sql; issue 36 item 1), in raw SQL as each role
 * that tries it, the table's owner included: a sent payout never changes (what it asked, its money
 * but with the service's first answer, its timeline); a pending entry is its request; a batch's
 * profile or environment change voids its approval; a batch row's entry is written only under the
 * writer's own live claim, and a claim is taken only while its batch is being sent.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { approve, askBatch, insertPayoutEntry, requestRow, setPolicy } from './approval-helpers';
import { claimRow, insertRowEntry, insertTaggedEntry, sendingBatch } from './gate-helpers';
import { checkedRows, payoutRequest } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
let kofi: pg.Client;
let samuel: pg.Client;
let adele: pg.Client;
let owner: pg.Client;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = await workspaces.connectAs('fatou', database);
  kofi = await workspaces.connectAs('kofi', database);
  samuel = await workspaces.connectAs('samuel', database);
  adele = await workspaces.connectAs('adele', database);
  owner = await workspaces.server.connect(undefined, database);
}, 60_000);
afterAll(async () => {
  for (const client of [fatou, kofi, samuel, adele, owner]) await client?.end();
  await workspaces?.stop();
});

const refusedAs = (code: string) => expect.objectContaining({ code });
const FROZEN = /may have reached the service/;
const entryOf = async (id: string) => (await owner.query(`SELECT * FROM entries WHERE id = $1`, [id])).rows[0] as Record<string, unknown>;
const answer = (tx: Record<string, unknown>) => JSON.stringify({ transaction_id: 'tx-1', status: 'processing', amount: 5000, currency: 'XAF', external_id: 'S-KNOWN', ...tx });

/** A payout the service answered: known, its transaction id and answer written (as fatou's console writes them). */
async function knownPayout(id: string, externalId: string): Promise<void> {
  await insertPayoutEntry(fatou, id, 5_000, externalId);
  await fatou.query(`UPDATE entries SET state = 'known', status = 'processing', transaction_id = $2, transaction_json = $3 WHERE id = $1`, [
    id, `tx-${id}`, answer({ transaction_id: `tx-${id}`, external_id: externalId }),
  ]);
}

describe('a sent payout', () => {
  it('never changes what it asked, for a finance login or the owner; support and admin may not write it at all', async () => {
    await knownPayout('s-known', 'S-KNOWN');
    await insertPayoutEntry(fatou, 's-unknown', 5_000, 'S-UNKNOWN', 'outcome_unknown');
    const changes = [
      [`phone_number = '+237699999999'`], [`customer_first_name = 'Eve'`], [`customer_last_name = 'Thief'`], [`customer_email = 'eve@example.com'`],
      [`payment_method = 'other'`], [`description = 'changed'`], [`profile_name = 'Other'`], [`batch_id = 'b', batch_row = 2`],
      [`request = $2`, JSON.stringify(payoutRequest({ phone_number: '+237699999999', external_id: 'S-KNOWN' }))],
    ] as const;
    for (const id of ['s-known', 's-unknown']) {
      for (const [change, value] of changes) {
        for (const client of [fatou, owner]) {
          await expect(client.query(`UPDATE entries SET ${change} WHERE id = $1`, value === undefined ? [id] : [id, value])).rejects.toThrow(/may have reached the service/);
        }
      }
      for (const client of [samuel, adele]) await expect(client.query(`UPDATE entries SET phone_number = '+237699999999' WHERE id = $1`, [id])).rejects.toEqual(refusedAs('42501'));
    }
    expect(await entryOf('s-known')).toMatchObject({ phone_number: '+237650000001', customer_first_name: 'Awa', batch_id: null, profile_name: 'Acme' });
    expect(await entryOf('s-unknown')).toMatchObject({ phone_number: '+237650000001', customer_email: 'awa@example.com' });
  });

  it('goes back to pending only after a look-up found nothing, as it was: never once known or while unknown', async () => {
    for (const client of [fatou, owner]) {
      await expect(client.query(`UPDATE entries SET state = 'pending' WHERE id = 's-known'`)).rejects.toThrow(FROZEN);
      await expect(client.query(`UPDATE entries SET state = 'pending' WHERE id = 's-unknown'`)).rejects.toThrow(FROZEN);
    }
    await fatou.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 's-unknown'`);
    // Not with another amount (its request and columns together), only as it was.
    const more = JSON.stringify(payoutRequest({ amount: 9_000, external_id: 'S-UNKNOWN' }));
    await expect(fatou.query(`UPDATE entries SET state = 'pending', amount = 9000, request = $1 WHERE id = 's-unknown'`, [more])).rejects.toThrow(FROZEN);
    await fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 's-unknown'`);
    expect(await entryOf('s-unknown')).toMatchObject({ state: 'pending', amount: '5000' });
  });

  it('takes its money from the service\'s first answer only, its fee and net amount from the answer written with them; its transaction id stays', async () => {
    await insertPayoutEntry(fatou, 's-adopted', 5_000, 'S-ADOPTED', 'outcome_unknown');
    // An answer that does not say that amount: refused, for finance and the owner.
    for (const client of [fatou, owner]) {
      await expect(
        client.query(`UPDATE entries SET state = 'known', transaction_id = 'tx-a', amount = 9000, transaction_json = $1 WHERE id = 's-adopted'`, [answer({ transaction_id: 'tx-a', amount: 5000 })]),
      ).rejects.toThrow(/change only with the service's first answer/);
    }
    // The service's own (an adopted payout may not be what was asked: said, never "fixed").
    await fatou.query(`UPDATE entries SET state = 'known', transaction_id = 'tx-a', amount = 4000, transaction_json = $1 WHERE id = 's-adopted'`, [
      answer({ transaction_id: 'tx-a', amount: 4000, external_id: 'S-ADOPTED' }),
    ]);
    for (const client of [fatou, owner]) {
      await expect(client.query(`UPDATE entries SET amount = 9000 WHERE id = 's-adopted'`)).rejects.toEqual(refusedAs('23514'));
      await expect(client.query(`UPDATE entries SET fee = 100 WHERE id = 's-known'`)).rejects.toThrow(/fee and net amount are the service's answer's/);
      await expect(client.query(`UPDATE entries SET net_amount = 1 WHERE id = 's-known'`)).rejects.toThrow(/fee and net amount are the service's answer's/);
      await expect(client.query(`UPDATE entries SET transaction_id = 'tx-other' WHERE id = 's-known'`)).rejects.toThrow(/transaction id never changes/);
    }
    await expect(samuel.query(`UPDATE entries SET fee = 100 WHERE id = 's-known'`)).rejects.toThrow(/fee and net amount are the service's answer's/);
    // A status with its fee and net amount: written (support's follow-up as finance's).
    await samuel.query(`UPDATE entries SET status = 'completed', fee = 100, net_amount = 4900, transaction_json = $1 WHERE id = 's-known'`, [
      answer({ transaction_id: 'tx-s-known', external_id: 'S-KNOWN', status: 'completed', fee: 100, net_amount: 4900 }),
    ]);
    expect(await entryOf('s-known')).toMatchObject({ status: 'completed', fee: '100', net_amount: '4900', amount: '5000' });
    expect(await entryOf('s-adopted')).toMatchObject({ amount: '4000', transaction_id: 'tx-a' });
  });

  it('keeps its timeline: no UPDATE, DELETE or TRUNCATE by any role, the owner included, nor its entry deleted', async () => {
    const seq = (await entryOf('s-known')).seq;
    await fatou.query(`INSERT INTO timeline (entry_seq, type, at, message) VALUES ($1, 'request_sent', 1, 'sent')`, [seq]);
    for (const client of [fatou, kofi, samuel, adele]) {
      await expect(client.query(`UPDATE timeline SET message = 'never sent' WHERE entry_seq = $1`, [seq])).rejects.toEqual(refusedAs('42501'));
      await expect(client.query(`DELETE FROM timeline WHERE entry_seq = $1`, [seq])).rejects.toEqual(refusedAs('42501'));
      await expect(client.query(`TRUNCATE timeline`)).rejects.toEqual(refusedAs('42501'));
    }
    await expect(owner.query(`UPDATE timeline SET message = 'never sent' WHERE entry_seq = $1`, [seq])).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(owner.query(`DELETE FROM timeline WHERE entry_seq = $1`, [seq])).rejects.toThrow(/append-only: DELETE refused/);
    await expect(owner.query(`TRUNCATE timeline CASCADE`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    await expect(owner.query(`DELETE FROM entries WHERE seq = $1`, [seq])).rejects.toThrow(/append-only: DELETE refused/);
    expect((await owner.query(`SELECT message FROM timeline WHERE entry_seq = $1`, [seq])).rows).toEqual([{ message: 'sent' }]);
  });
});

describe('a pending entry', () => {
  it('is its request: amount, currency, recipient and external id, for a finance login and the owner', async () => {
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    const request = JSON.stringify(payoutRequest({ amount: 500_000, external_id: 'P-XOF' }));
    const insert = (client: pg.Client, id: string, columns: { amount?: number; currency?: string; phone?: string; first?: string; request?: string | null }) =>
      client.query(
        `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
           customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
         VALUES ($1, 'p1', 'Acme', 'sandbox', 'payout', 'pending', 'P-XOF', $2, $3, $4, 'service_demo', $5, 'Nkemdirim', 'awa@example.com', $6, 1, 1)`,
        [id, columns.amount ?? 500_000, columns.currency ?? 'XAF', columns.phone ?? '+237650000001', columns.first ?? 'Awa', columns.request === undefined ? request : columns.request],
      );
    // The entry's gate (migration 41) compares the keys a request has; this one every column and the currency.
    const REQUEST = /are its request's|carries the request it sends|its columns and its request disagree/;
    for (const client of [fatou, owner]) {
      // Another currency found no tier, while the POST sends the request (which names none): XAF.
      await expect(insert(client, 'p-xof', { currency: 'XOF' })).rejects.toThrow(REQUEST);
      await expect(insert(client, 'p-amount', { amount: 5_000 })).rejects.toThrow(REQUEST);
      // Below the policy (the approval gate would refuse first): the recipient's name is the request's.
      await expect(insert(client, 'p-name', { first: 'Eve', amount: 5_000, request: JSON.stringify(payoutRequest({ amount: 5_000, external_id: 'P-XOF' })) })).rejects.toThrow(REQUEST);
      await expect(insert(client, 'p-none', { amount: 5_000, request: null })).rejects.toThrow(REQUEST);
      // A request without its amount: the entry's gate compared only the keys it had.
      await expect(insert(client, 'p-no-amount', { amount: 50_000, request: JSON.stringify({ ...payoutRequest({ external_id: 'P-XOF' }), amount: undefined }) })).rejects.toThrow(REQUEST);
    }
    await insertPayoutEntry(fatou, 'p-small', 5_000, 'P-SMALL');
    await expect(fatou.query(`UPDATE entries SET currency = 'XOF' WHERE id = 'p-small'`)).rejects.toThrow(REQUEST);
    await expect(fatou.query(`UPDATE entries SET customer_email = 'eve@example.com' WHERE id = 'p-small'`)).rejects.toThrow(REQUEST);
    expect((await owner.query(`SELECT id, currency FROM entries WHERE id LIKE 'p-%'`)).rows).toEqual([{ id: 'p-small', currency: 'XAF' }]);
    await owner.query('DELETE FROM approval_tiers');
  });
});

describe('a batch\'s approval', () => {
  it('is void once its profile or environment changes, waiting or approved, audited', async () => {
    const store = workspaces.storeAs('fatou', database);
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    await sendingBatch(store, 'moved-approved', 2, 250_000);
    const approved = (await askBatch(fatou, 'moved-approved'))!;
    await approve(kofi, approved);
    await fatou.query(`UPDATE batches SET profile_id = 'p2', profile_name = 'Other account' WHERE id = 'moved-approved'`);
    expect((await requestRow(fatou, approved)).state).toBe('void');

    await sendingBatch(store, 'moved-waiting', 2, 250_000);
    const waiting = (await askBatch(fatou, 'moved-waiting'))!;
    await owner.query(`UPDATE batches SET environment = 'live' WHERE id = 'moved-waiting'`);
    expect((await requestRow(fatou, waiting)).state).toBe('void');

    const lines = await owner.query(`SELECT subject, before, after, remark FROM audit_log WHERE action = 'void_approval' ORDER BY id`);
    expect(lines.rows).toEqual([
      { subject: `approval:${approved}`, before: expect.objectContaining({ profileId: 'p1', environment: 'sandbox' }), after: { profileId: 'p2', environment: 'sandbox' }, remark: 'the batch\'s profile or environment changed after it was asked' },
      { subject: `approval:${waiting}`, before: expect.objectContaining({ profileId: 'p1', environment: 'sandbox' }), after: { profileId: 'p1', environment: 'live' }, remark: 'the batch\'s profile or environment changed after it was asked' },
    ]);
    // A rename of its profile is no move.
    await sendingBatch(store, 'renamed', 2, 250_000);
    const kept = (await askBatch(fatou, 'renamed'))!;
    await fatou.query(`UPDATE batches SET profile_name = 'Acme SA' WHERE id = 'renamed'`);
    expect((await requestRow(fatou, kept)).state).toBe('awaiting');
    await owner.query('DELETE FROM approval_tiers');
  });
});

describe('a batch row\'s entry and its claim', () => {
  it('is written only under a live claim of its row held by the writing login, for finance and the owner', async () => {
    await sendingBatch(workspaces.storeAs('fatou', database), 'claimed', 4, 5_000);
    // No claim: refused for a finance login and the owner (before, a row nobody held was anyone's).
    await expect(insertRowEntry(fatou, 'c-none', 'claimed', 2)).rejects.toThrow(/only under a live claim of that row held by the login writing it/);
    await expect(insertRowEntry(owner, 'c-owner', 'claimed', 2)).rejects.toThrow(/only under a live claim/);
    // Another finance login's claim (kofi's, live): refused.
    expect((await claimRow(kofi, 'claimed', 3, 'desk-kofi')).rowCount).toBe(1);
    await expect(insertRowEntry(fatou, 'c-kofis', 'claimed', 3)).rejects.toEqual(refusedAs('42501'));
    // Its own claim run out: refused too.
    expect((await claimRow(fatou, 'claimed', 4, 'desk-fatou')).rowCount).toBe(1);
    await fatou.query(`UPDATE batch_rows SET lease_until = paydesk_now_ms() WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'claimed') AND row_number = 4`);
    await expect(insertRowEntry(fatou, 'c-ran-out', 'claimed', 4)).rejects.toThrow(/only under a live claim/);
    // Its own live claim: written.
    expect((await claimRow(fatou, 'claimed', 2, 'desk-fatou')).rowCount).toBe(1);
    await insertRowEntry(fatou, 'c-own', 'claimed', 2);
    expect((await owner.query(`SELECT id FROM entries WHERE batch_id = 'claimed'`)).rows).toEqual([{ id: 'c-own' }]);
  });

  it('sends again only under its claim: a row\'s entry looked up and not found, moved back to pending without it, refused', async () => {
    await fatou.query(`UPDATE batch_rows SET journal_id = 'c-own' WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'claimed') AND row_number = 2`);
    await fatou.query(`UPDATE entries SET state = 'outcome_unknown' WHERE id = 'c-own'`);
    await fatou.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'c-own'`);
    await fatou.query(`UPDATE batch_rows SET claim_holder = NULL WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'claimed') AND row_number = 2`);
    await expect(fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 'c-own'`)).rejects.toThrow(/only under a live claim/);
    expect((await claimRow(fatou, 'claimed', 2, 'desk-fatou')).rowCount).toBe(1);
    await fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 'c-own'`);
    expect((await entryOf('c-own')).state).toBe('pending');
  });

  it('is claimed only while its batch is being sent; a live claim is still renewed and released after a Pause', async () => {
    const store = workspaces.storeAs('fatou', database);
    await store.batches.create({ id: 'drafted', fileName: 'd.csv', fileHash: 'd', profile: { id: 'p1', name: 'Acme', environment: 'sandbox' }, paymentMethod: null, concurrency: 1, retryOf: null,
      rows: checkedRows(2), at: 1 });
    for (const client of [fatou, kofi, owner]) await expect(claimRow(client, 'drafted', 2)).rejects.toThrow(/claimed only while their batch is being sent \(it is draft\)/);
    await expect(insertTaggedEntry(fatou, { id: 'd-2', batchId: 'drafted', batchRow: 2, amount: 1_000, externalId: 'B-1' })).rejects.toThrow(/only under a live claim/);
    await store.batches.setState('drafted', 'sending', 1);
    expect((await claimRow(fatou, 'drafted', 2, 'desk-fatou')).rowCount).toBe(1);
    await store.batches.setState('drafted', 'paused', 2);
    await expect(claimRow(fatou, 'drafted', 3, 'desk-fatou')).rejects.toThrow(/it is paused/);
    // fatou's live claim is hers alone (row-level security: kofi's UPDATE finds no row).
    expect((await claimRow(kofi, 'drafted', 2, 'desk-kofi')).rowCount).toBe(0);
    expect((await fatou.query(`UPDATE batch_rows SET lease_until = paydesk_now_ms() + 60000 WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'drafted') AND row_number = 2`)).rowCount).toBe(1);
    expect((await fatou.query(`UPDATE batch_rows SET claim_holder = NULL WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'drafted') AND row_number = 2`)).rowCount).toBe(1);
    expect((await owner.query(`SELECT count(*)::int AS n FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = 'drafted' AND claim_holder IS NOT NULL`)).rows[0].n).toBe(0);
  });
});
