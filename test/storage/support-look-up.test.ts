/**
 * A support agent's Look up of a transaction Paydesk never sent records it as a new `known` entry
 * (workspace migration 22), and that is all support may insert: raw SQL as the support login (what
 * a modified client could send) cannot write a `pending` request, a request, a batch link or an
 * entry without a transaction. Finance still sends; admin still writes no entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let samuel: StoragePort;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  samuel = workspaces.storeAs('samuel', database);
}, 60_000);
afterAll(() => workspaces.stop());

const sql = async (person: Person) => workspaces.connectAs(person, database);
const SENT_BY_NO_ONE = serviceTx(payoutRequest({ external_id: 'SUP-1', amount: 1_500, phone_number: '+237690001500' }), { status: 'completed' });

/** An entry as raw SQL writes it: `known` with a transaction unless `overrides` say otherwise. */
function insertEntry(client: pg.Client, id: string, overrides: Record<string, string | number | null> = {}) {
  const columns: Record<string, string | number | null> = {
    id, profile_id: 'p1', profile_name: 'Acme', environment: 'sandbox', kind: 'payout', state: 'known', transaction_id: `tr_${id}`,
    amount: 1, currency: 'XAF', phone_number: '+237', payment_method: 'm', customer_first_name: 'A', customer_last_name: 'B', customer_email: 'c',
    created_at: 1, updated_at: 1, ...overrides,
  };
  const names = Object.keys(columns);
  return client.query(`INSERT INTO entries (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(columns));
}

describe('support looks up a transaction Paydesk never sent', () => {
  it('records it as one known entry, stamped with the support login, through the store', async () => {
    const added = await samuel.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: SENT_BY_NO_ONE, httpStatus: 200, at: 2_000 });
    expect(added).toMatchObject({ state: 'known', transactionId: SENT_BY_NO_ONE.transaction_id, externalId: 'SUP-1', status: 'completed', amount: 1_500 });
    const again = await samuel.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: { ...SENT_BY_NO_ONE, status: 'completed' }, httpStatus: 200, at: 2_100 });
    expect(again.id).toBe(added.id);
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query(
      `SELECT e.created_by, e.request, e.batch_id, (SELECT array_agg(DISTINCT recorded_by) FROM timeline t WHERE t.entry_seq = e.seq) AS recorded_by
       FROM entries e WHERE e.id = $1`,
      [added.id],
    );
    expect(rows).toEqual([{ created_by: 'samuel', request: null, batch_id: null, recorded_by: ['samuel'] }]);
  });

  it('lets support insert a known entry in raw SQL, but never a pending request, a request, a batch link or an entry without a transaction', async () => {
    const client = await sql('samuel');
    await insertEntry(client, 'sup-known');
    expect((await client.query(`SELECT state, created_by FROM entries WHERE id = 'sup-known'`)).rows).toEqual([{ state: 'known', created_by: 'samuel' }]);
    const rowLevel = /row-level security/;
    // A pending entry without its request is refused before row-level security reads it (migration 44).
    const pending = /row-level security|carries the request it sends/;
    await expect(insertEntry(client, 'sup-pending', { state: 'pending', transaction_id: null })).rejects.toThrow(pending);
    await expect(insertEntry(client, 'sup-pending-tx', { state: 'pending' })).rejects.toThrow(pending);
    await expect(insertEntry(client, 'sup-unknown', { state: 'outcome_unknown' })).rejects.toThrow(rowLevel);
    await expect(insertEntry(client, 'sup-no-tx', { transaction_id: null })).rejects.toThrow(rowLevel);
    const denied = /permission denied/;
    await expect(insertEntry(client, 'sup-request', { request: '{"amount": 1}' })).rejects.toThrow(denied);
    await expect(insertEntry(client, 'sup-batch', { batch_id: 'b-1', batch_row: 1 })).rejects.toThrow(denied);
    await expect(insertEntry(client, 'sup-retry', { retry_of: 'X' })).rejects.toThrow(denied);
    await expect(insertEntry(client, 'sup-forged', { created_by: 'fatou' })).rejects.toThrow(denied);
    expect((await client.query(`SELECT count(*)::int AS n FROM entries WHERE id LIKE 'sup-%'`)).rows[0].n).toBe(1);
  });

  it('cannot send through the store nor link a batch row', async () => {
    await expect(samuel.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'SUP-SEND' }), currency: 'XAF', at: 3_000 })).rejects.toThrow(
      /row-level security|permission denied/,
    );
    const fatou = workspaces.storeAs('fatou', database);
    await fatou.batches.create({ id: 'sup-b', fileName: 'f.csv', fileHash: 'sb', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1), at: 3_000 });
    const client = await sql('samuel');
    await expect(client.query(`UPDATE batch_rows SET journal_id = 'sup-known'`)).rejects.toThrow(/permission denied/);
    // Finance still sends; admin still writes no entry.
    const sent = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'FIN-1' }), currency: 'XAF', at: 3_000 });
    expect((await fatou.journal.getEntry(sent))?.state).toBe('pending');
    await expect(insertEntry(await sql('adele'), 'adm-known')).rejects.toThrow(/permission denied/);
  });
});
