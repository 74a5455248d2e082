/**
 * Who did what comes from the database, and each role may do only its part: every person connects
 * with their own login and raw SQL (what a modified client could send) is refused where the role
 * may not act. Names are stamped from session_user whatever the client writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: StoragePort;
let entryId: string;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = workspaces.storeAs('fatou', database);
  entryId = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'ROLE-1' }), currency: 'XAF', at: 1_000 });
  await fatou.batches.create({ id: 'rb-1', fileName: 'f.csv', fileHash: 'r1', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(4), at: 1_000 });
  await fatou.batches.setState('rb-1', 'sending', 1_000);
}, 60_000);
afterAll(() => workspaces.stop());

const sql = async (person: Person) => workspaces.connectAs(person, database);
const refused = (client: pg.Client, text: string, values: unknown[] = []) => expect(client.query(text, values)).rejects.toThrow(/permission denied/);

describe('login rights (start-up-by-role.md)', () => {
  it('are the roles as the database knows them: finance sends and follows up, support follows up, admin neither', async () => {
    const rights = async (person: Person) => workspaces.storeAs(person, database).loginRights();
    expect(await rights('fatou')).toEqual({ sends: true, followsUp: true });
    expect(await rights('samuel')).toEqual({ sends: false, followsUp: true });
    expect(await rights('adele')).toEqual({ sends: false, followsUp: false });
  });
});

describe('who did what', () => {
  it('stamps entries, timeline events and batches with the login that wrote them', async () => {
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query(
      `SELECT e.created_by, e.updated_by, (SELECT array_agg(DISTINCT recorded_by) FROM timeline t WHERE t.entry_seq = e.seq) AS recorded_by,
         (SELECT created_by FROM batches WHERE id = 'rb-1') AS batch_by FROM entries e WHERE e.id = $1`,
      [entryId],
    );
    expect(rows[0]).toEqual({ created_by: 'fatou', updated_by: 'fatou', recorded_by: ['fatou'], batch_by: 'fatou' });
  });

  it('ignores a name the client writes itself: the trigger writes session_user', async () => {
    const client = await sql('kofi');
    await client.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, external_id, request, created_at, updated_at, created_by, updated_by)
       VALUES ('forged', 'p1', 'Acme', 'sandbox', 'payout', 'pending', 1, 'XAF', '+237', 'm', 'A', 'B', 'c', 'FORGED-1', $1, 1, 1, 'fatou', 'fatou')`,
      [JSON.stringify({ amount: 1, phone_number: '+237', payment_method: 'm', external_id: 'FORGED-1', customer: { first_name: 'A', last_name: 'B', email: 'c' } })],
    );
    const { rows } = await client.query(`SELECT created_by, updated_by FROM entries WHERE id = 'forged'`);
    expect(rows[0]).toEqual({ created_by: 'kofi', updated_by: 'kofi' });
  });

  it('stamps a reconcile run and a row claim with their login', async () => {
    const samuel = workspaces.storeAs('samuel', database);
    const id = await samuel.reconcile.create({ fileName: 's.csv', profile: PROFILE, rows: [], processingMinutes: 30, period: null, currency: 'XAF', at: 1_000 });
    const claim = await fatou.batches.claimRows('rb-1', 'desk-fatou', 1, 60_000, 1_000);
    const root = await workspaces.server.connect(undefined, database);
    expect((await root.query('SELECT created_by FROM reconciliations WHERE id = $1', [id])).rows[0]).toEqual({ created_by: 'samuel' });
    expect((await root.query(`SELECT claimed_by, claim_holder FROM batch_rows WHERE row_number = $1 AND claim_holder IS NOT NULL`, [claim.rows[0]!.rowNumber])).rows).toEqual([
      { claimed_by: 'fatou', claim_holder: 'desk-fatou' },
    ]);
    await fatou.batches.releaseClaims('rb-1', 'desk-fatou', [claim.rows[0]!.rowNumber]);
  });
});

describe('what each role may do', () => {
  it('support reads and follows up, but cannot send, change a request, run a batch or change team settings', async () => {
    const client = await sql('samuel');
    expect((await client.query('SELECT count(*)::int AS n FROM entries')).rows[0].n).toBeGreaterThan(0);
    await client.query(`UPDATE entries SET status = 'processing', updated_at = 2 WHERE id = $1`, [entryId]);
    // Support may insert a looked-up `known` entry (migration 22), never a pending request: row-level security refuses it.
    await expect(
      client.query(
        `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, amount, currency, phone_number, payment_method,
           customer_first_name, customer_last_name, customer_email, created_at, updated_at)
         VALUES ('support-send', 'p1', 'Acme', 'sandbox', 'payout', 'pending', 1, 'XAF', '+237', 'm', 'A', 'B', 'c', 1, 1)`,
      ),
    ).rejects.toThrow(/row-level security|carries the request it sends/);
    await refused(client, `UPDATE entries SET request = '{}' WHERE id = $1`, [entryId]);
    await refused(client, `UPDATE entries SET amount = 1, request = '{}' WHERE id = $1`, [entryId]);
    await refused(client, `UPDATE batches SET state = 'cancelled' WHERE id = 'rb-1'`);
    await refused(client, `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at)
      VALUES ('b', 'f', 'h', 'draft', 'p1', 'Acme', 'sandbox', 1, 1, 1)`);
    await refused(client, `INSERT INTO team_settings (key, value, updated_at) VALUES ('k', '1', 1)`);
  });

  it('finance sends but cannot change team settings', async () => {
    const client = await sql('fatou');
    await refused(client, `INSERT INTO team_settings (key, value, updated_at) VALUES ('k', '1', 1)`);
    await expect(fatou.settings.set('k', 1, 1_000)).rejects.toThrow(/permission denied/);
  });

  it('admin keeps the team settings, stamped with their name, but cannot send or touch a batch', async () => {
    const adele = workspaces.storeAs('adele', database);
    await adele.settings.set('batch.maxConcurrency', 8, 1_000);
    const client = await sql('adele');
    expect((await client.query(`SELECT value, updated_by FROM team_settings WHERE key = 'batch.maxConcurrency'`)).rows[0]).toEqual({ value: 8, updated_by: 'adele' });
    await expect(adele.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'ADM-1' }), currency: 'XAF', at: 1 })).rejects.toThrow(/permission denied/);
    await refused(client, `UPDATE batches SET state = 'paused' WHERE id = 'rb-1'`);
    await refused(client, `DELETE FROM entries`);
  });

  it('a live claim is its login alone: another finance login can neither free, renew nor link its rows (row-level security)', async () => {
    const claim = await fatou.batches.claimRows('rb-1', 'desk-fatou', 2, 60_000, 1_000);
    const numbers = claim.rows.map((row) => row.rowNumber);
    const kofi = await sql('kofi');
    const freed = await kofi.query(`UPDATE batch_rows SET claim_holder = NULL WHERE row_number = ANY($1)`, [numbers]);
    const linked = await kofi.query(`UPDATE batch_rows SET journal_id = 'stolen' WHERE row_number = ANY($1)`, [numbers]);
    const taken = await kofi.query(`UPDATE batch_rows SET claim_holder = 'desk-fatou' WHERE row_number = ANY($1)`, [numbers]);
    expect([freed.rowCount, linked.rowCount, taken.rowCount]).toEqual([0, 0, 0]);
    const kofiStore = workspaces.storeAs('kofi', database);
    expect(await kofiStore.batches.renewClaims('rb-1', 'desk-fatou', 60_000, 1_000)).toBe(0);
    expect(await fatou.batches.renewClaims('rb-1', 'desk-fatou', 60_000, 1_000)).toBe(2);
    // The rows still say fatou holds them.
    const { rows } = await kofi.query(`SELECT DISTINCT claimed_by, journal_id FROM batch_rows WHERE row_number = ANY($1)`, [numbers]);
    expect(rows).toEqual([{ claimed_by: 'fatou', journal_id: null }]);
  });
});
