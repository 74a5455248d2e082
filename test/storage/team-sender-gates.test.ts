/**
 * The team sender's rules in the database (workspace migration 48; issue 38 items 1 and 2), in raw
 * SQL as the login that tries: for a profile whose keys are with the sender, a finance login writes
 * no pending entry and claims no batch row (it asks instead); only a `paydesk_sender` login does;
 * asks are the asker's, taken once (SKIP LOCKED, a lease), answered only by a sender; moving a
 * profile's keys is audited; the sender never votes.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { answerAsk, askSender, openBatchAsks, takeAsk } from '../../electron/console/storage/postgres/send-asks';
import { SENDER_HELD_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { claimRow, insertRowEntry, sendingBatch } from './gate-helpers';
import { payoutRequest } from './fixtures';
import { approve, askPayout, setPolicy } from './approval-helpers';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
let adele: pg.Client;
let root: pg.Client;
let sender: pg.Client;
let sender2: pg.Client;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'senny') THEN CREATE ROLE senny LOGIN; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'senny2') THEN CREATE ROLE senny2 LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO senny, senny2');
  fatou = await workspaces.connectAs('fatou', database);
  adele = await workspaces.connectAs('adele', database);
  sender = await workspaces.server.connect('senny', database);
  sender2 = await workspaces.server.connect('senny2', database);
  // p1 (the fixtures' profile) is held by the sender; p2 by the desktops, as before.
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at) VALUES
    ('p1', 'Acme', 'sandbox', 'http://127.0.0.1:1', 'SVC', 1), ('p2', 'Desks', 'sandbox', 'http://127.0.0.1:1', 'SVC', 1)`);
  await adele.query(`UPDATE team_profiles SET keys_held_by = 'sender' WHERE id = 'p1'`);
  await sendingBatch(workspaces.storeAs('fatou', database), 'held', 3, 1_000);
}, 60_000);
afterAll(() => workspaces.stop());

const refusedAs = (code: string) => expect.objectContaining({ code });

/** A pending entry exactly as its request says (the workspace refuses one that differs, migration 44). */
function pendingEntry(client: pg.Client, id: string, profileId: string): Promise<pg.QueryResult> {
  const request = payoutRequest({ external_id: id, amount: 500 });
  return client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
     VALUES ($1, $2, 'x', 'sandbox', 'payout', 'pending', $1, $3, 'XAF', $4, $5, $6, $7, $8, $9, 1, 1)`,
    [id, profileId, request.amount, request.phone_number, request.payment_method, request.customer.first_name, request.customer.last_name, request.customer.email, JSON.stringify(request)],
  );
}

describe('a profile whose keys are with the team sender', () => {
  it('refuses a finance login\'s pending entry for it, and lets the sender write one; a desktop-held profile is unchanged', async () => {
    await expect(pendingEntry(fatou, 'RAW-1', 'p1')).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
    await expect(pendingEntry(fatou, 'RAW-2', 'p2')).resolves.toBeTruthy();
    await expect(pendingEntry(sender, 'SND-1', 'p1')).resolves.toBeTruthy();
    // A finance login cannot move an entry of it back to pending either.
    await root.query(`UPDATE entries SET state = 'rejected' WHERE id = 'SND-1'`);
    await expect(fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 'SND-1'`)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
  });

  it('refuses a finance login\'s claim of its batch rows and its row\'s entry; the sender claims and writes them', async () => {
    await expect(claimRow(fatou, 'held', 2)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
    await expect(insertRowEntry(fatou, 'ROW-F', 'held', 2)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
    expect((await claimRow(sender, 'held', 2, 'sender-a')).rowCount).toBe(1);
    await expect(insertRowEntry(sender, 'ROW-S', 'held', 2)).resolves.toBeTruthy();
    const { rows } = await root.query<{ claimed_by: string }>(`SELECT claimed_by FROM batch_rows WHERE row_number = 2 AND batch_seq = (SELECT seq FROM batches WHERE id = 'held')`);
    expect(rows[0]!.claimed_by).toBe('senny');
  });

  it('refuses a finance or support login\'s look-up answer on its entries (not found, a status, a transaction id, a new known entry); the sender records them; a desktop-held profile is unchanged (migration 51)', async () => {
    await expect(pendingEntry(sender, 'ANS-1', 'p1')).resolves.toBeTruthy();
    await expect(sender.query(`UPDATE entries SET state = 'outcome_unknown' WHERE id = 'ANS-1'`)).resolves.toBeTruthy();
    const samuel = await workspaces.connectAs('samuel', database);
    for (const login of [fatou, samuel]) {
      await expect(login.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'ANS-1'`)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
      await expect(login.query(`UPDATE entries SET state = 'known', transaction_id = 'tx-forged', status = 'failed' WHERE id = 'ANS-1'`)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
    }
    await expect(fatou.query(`INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, transaction_id, status, amount, currency, created_at, updated_at)
      VALUES ('ANS-F', 'p1', 'x', 'sandbox', 'payout', 'known', 'ANS-F', 'tx-f', 'failed', 500, 'XAF', 1, 1)`)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
    await samuel.end();
    // Not found by the desktop's hand: no resend ask can follow.
    await expect(askSender(fatou, { kind: 'resend', profileId: 'p1', entryId: 'ANS-1' })).rejects.toMatchObject({ code: '23514' });
    // The sender's look-up answer is recorded; then the resend ask is accepted.
    await expect(sender.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'ANS-1'`)).resolves.toBeTruthy();
    await expect(askSender(fatou, { kind: 'resend', profileId: 'p1', entryId: 'ANS-1' })).resolves.toBeTruthy();
    // A desktop-held profile: finance records its own look-ups as before.
    await expect(pendingEntry(fatou, 'ANS-2', 'p2')).resolves.toBeTruthy();
    await expect(fatou.query(`UPDATE entries SET state = 'outcome_unknown' WHERE id = 'ANS-2'`)).resolves.toBeTruthy();
    await expect(fatou.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'ANS-2'`)).resolves.toBeTruthy();
  });

  it('refuses a finance login who turns the holder back in SQL, and audits an admin\'s move with before and after', async () => {
    await expect(fatou.query(`UPDATE team_profiles SET keys_held_by = 'desktops' WHERE id = 'p1'`)).rejects.toEqual(refusedAs('42501'));
    const { rows } = await root.query<{ actor: string; before: unknown; after: unknown }>(`SELECT actor, before, after FROM audit_log WHERE action = 'keys_holder_change' AND subject = 'team_profile:p1'`);
    expect(rows).toEqual([{ actor: 'adele', before: { keysHeldBy: 'desktops' }, after: { keysHeldBy: 'sender' } }]);
  });
});

describe('asks', () => {
  it('are the asker\'s and waiting, audited; refused for a desktop-held profile; answered by a sender only', async () => {
    const ask = await askSender(fatou, { kind: 'payout', profileId: 'p1', request: payoutRequest({ external_id: 'ASK-1', amount: 700 }) });
    expect(ask).toMatchObject({ askedBy: 'fatou', state: 'waiting' });
    await expect(askSender(fatou, { kind: 'payout', profileId: 'p2', request: payoutRequest({ external_id: 'ASK-2' }) })).rejects.toEqual(refusedAs('23514'));
    await expect(askSender(fatou, { kind: 'batch', profileId: 'p1', batchId: 'no-such-batch' })).rejects.toEqual(refusedAs('23514'));
    await expect(fatou.query(`INSERT INTO send_asks (kind, profile_id, request, state, asked_by) VALUES ('payout', 'p1', '{}', 'done', 'kofi')`)).rejects.toEqual(refusedAs('42501'));
    await expect(fatou.query(`UPDATE send_asks SET state = 'done' WHERE id = $1`, [ask.id])).rejects.toEqual(refusedAs('42501'));
    const { rows } = await root.query<{ actor: string; after: Record<string, unknown> }>(`SELECT actor, after FROM audit_log WHERE action = 'send_ask' AND subject = $1`, [`send_ask:${ask.id}`]);
    expect(rows).toEqual([{ actor: 'fatou', after: expect.objectContaining({ kind: 'payout', externalId: 'ASK-1', amount: 700 }) }]);
  });

  it('are taken once by two senders at once (SKIP LOCKED); a lapsed lease gives the ask to the other; only the live holder answers', async () => {
    await root.query(`DELETE FROM send_asks`);
    await askSender(fatou, { kind: 'payout', profileId: 'p1', request: payoutRequest({ external_id: 'ASK-3' }) });
    await askSender(fatou, { kind: 'payout', profileId: 'p1', request: payoutRequest({ external_id: 'ASK-4' }) });
    await sender.query('BEGIN');
    const first = await takeAsk(sender, 'a', 60_000);
    const second = await takeAsk(sender2, 'b', 60_000); // not blocked by the first's lock: the other ask
    await sender.query('COMMIT');
    expect(first!.request!.external_id).toBe('ASK-3');
    expect(second!.request!.external_id).toBe('ASK-4');
    expect(await takeAsk(sender2, 'b', 60_000)).toBeNull();
    // a's lease lapses: b takes ASK-3, and a's late answer changes nothing.
    await root.query(`UPDATE send_asks SET lease_until = paydesk_now_ms() - 1 WHERE id = $1`, [first!.id]);
    const again = await takeAsk(sender2, 'b', 60_000);
    expect(again!.id).toBe(first!.id);
    expect(again!.takenBy).toBe('senny2');
    expect(await answerAsk(sender, first!.id, 'a', { state: 'done', entryId: 'x', answer: null })).toBe(false);
    expect(await answerAsk(sender2, first!.id, 'b', { state: 'done', entryId: 'y', answer: { ok: true } })).toBe(true);
    await expect(sender2.query(`UPDATE send_asks SET state = 'taken' WHERE id = $1`, [first!.id])).rejects.toEqual(refusedAs('23514'));
  });

  it('for a batch stay open to every sender until answered', async () => {
    const ask = await askSender(fatou, { kind: 'batch', profileId: 'p1', batchId: 'held' });
    expect((await openBatchAsks(sender)).map((open) => open.id)).toEqual([ask.id]);
    expect(await answerAsk(sender, ask.id, null, { state: 'done', entryId: null, answer: { state: 'done' } })).toBe(true);
    expect(await openBatchAsks(sender2)).toEqual([]);
  });
});

describe('the sender login', () => {
  it('never votes on an approval', async () => {
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    const asked = (await askPayout(fatou, 250_000, 'VOTE-1'))!;
    await expect(approve(sender, asked)).rejects.toEqual(refusedAs(SENDER_HELD_SQLSTATE));
  });
});
