/**
 * One approval, one payout, one send (migration 43; docs/decisions/approval-binds-and-is-spent.md).
 * An approved 400,000 payout was sent again under a second team profile (another merchant account):
 * the digest named neither, and an approval stayed valid once used. In raw SQL as each role that
 * could try it: fatou (finance, the maker), kofi (finance, the approver), samuel (support), adele
 * (admin). Two team profiles, two merchant accounts; the policy asks one approval from 100,000 XAF.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { approve, askPayout, setPolicy } from './approval-helpers';
import { payoutRequest } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
let kofi: pg.Client;
let samuel: pg.Client;
let adele: pg.Client;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  fatou = await workspaces.connectAs('fatou', database);
  kofi = await workspaces.connectAs('kofi', database);
  samuel = await workspaces.connectAs('samuel', database);
  adele = await workspaces.connectAs('adele', database);
  for (const [id, url] of [['acme-main', 'https://api.example.com'], ['acme-other', 'https://api.other-merchant.example.com']]) {
    await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at) VALUES ($1, $1, 'sandbox', $2, 'Bearer', 1)`, [id, url]);
  }
}, 60_000);
afterAll(async () => {
  await Promise.all([fatou, kofi, samuel, adele].map((c) => c?.end()));
  await workspaces?.stop();
});

const refusedAs = (code: string) => expect.objectContaining({ code });

interface Entry {
  id: string;
  profile: string;
  amount: number;
  externalId: string;
  /** What a modified client may set to step past the one-entry-per-payout index. */
  legacyDuplicate?: boolean;
  firstName?: string;
}

/** A pending payout entry written in raw SQL, its columns and request agreeing, as a modified client could. */
function insertEntry(client: pg.Client, entry: Entry): Promise<pg.QueryResult> {
  const request = payoutRequest({ amount: entry.amount, external_id: entry.externalId, customer: { first_name: entry.firstName ?? 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' } });
  return client.query(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
       customer_first_name, customer_last_name, customer_email, request, legacy_duplicate, created_at, updated_at)
     VALUES ($1, $2, $2, 'sandbox', 'payout', 'pending', $3, $4, 'XAF', $5, 'service_demo', $7, 'Nkemdirim', 'awa@example.com', $6, $8, 1, 1)`,
    [entry.id, entry.profile, entry.externalId, entry.amount, request.phone_number, JSON.stringify(request), request.customer.first_name, entry.legacyDuplicate ?? null],
  );
}

async function spentBy(id: number): Promise<string | null> {
  return (await fatou.query<{ spent_by_entry: string | null }>('SELECT spent_by_entry FROM approval_requests WHERE id = $1', [id])).rows[0]!.spent_by_entry;
}

/** An approved 400,000 payout asked with `profile` (fatou asks, kofi approves). */
async function approved(externalId: string, profile = 'acme-main'): Promise<number> {
  const id = (await askPayout(fatou, 400_000, externalId, profile))!;
  expect(await approve(kofi, id)).toBe('approved');
  return id;
}

describe('an approved payout', () => {
  it('is refused under a second team profile (another merchant account), before and after its own send', async () => {
    const id = await approved('BIND-1');
    // The approver, a finance login too, tries it first: the approval names acme-main.
    await expect(insertEntry(kofi, { id: 'other-first', profile: 'acme-other', amount: 400_000, externalId: 'BIND-1' })).rejects.toEqual(refusedAs('PD001'));
    await expect(insertEntry(fatou, { id: 'other-first', profile: 'acme-other', amount: 400_000, externalId: 'BIND-1' })).rejects.toThrow(/request \d+ approved another payout/);
    // Another recipient's name under the same profile and amount: not what was approved either.
    await expect(insertEntry(fatou, { id: 'renamed', profile: 'acme-main', amount: 400_000, externalId: 'BIND-1', firstName: 'Mallory' })).rejects.toEqual(refusedAs('PD001'));
    expect(await spentBy(id)).toBeNull();

    await insertEntry(fatou, { id: 'main', profile: 'acme-main', amount: 400_000, externalId: 'BIND-1' });
    expect(await spentBy(id)).toBe('main');
    await expect(insertEntry(fatou, { id: 'other-after', profile: 'acme-other', amount: 400_000, externalId: 'BIND-1' })).rejects.toEqual(refusedAs('PD001'));
    const { rows } = await fatou.query(`SELECT id, profile_id FROM entries WHERE external_id = 'BIND-1'`);
    expect(rows).toEqual([{ id: 'main', profile_id: 'acme-main' }]);
  });

  it('is spent by its one send: a second entry of the same payout is refused, even one stepping past the one-entry index', async () => {
    const id = await approved('BIND-2');
    await insertEntry(fatou, { id: 'first', profile: 'acme-main', amount: 400_000, externalId: 'BIND-2' });
    // The same profile, amount, recipient and request: only the approval being spent stops it.
    await expect(insertEntry(fatou, { id: 'second', profile: 'acme-main', amount: 400_000, externalId: 'BIND-2', legacyDuplicate: true })).rejects.toEqual(refusedAs('PD020'));
    await expect(insertEntry(kofi, { id: 'second', profile: 'acme-main', amount: 400_000, externalId: 'BIND-2', legacyDuplicate: true })).rejects.toEqual(refusedAs('PD020'));
    expect(await spentBy(id)).toBe('first');
    // Nobody unspends it: not the maker, the approver, support or an admin (no grant), nor the rules for the owner.
    for (const client of [fatou, kofi, samuel, adele]) {
      await expect(client.query('UPDATE approval_requests SET spent_by_entry = NULL WHERE id = $1', [id])).rejects.toEqual(refusedAs('42501'));
    }
    const root = await workspaces.server.connect(undefined, database);
    await expect(root.query(`UPDATE approval_requests SET spent_by_entry = 'second' WHERE id = $1`, [id])).rejects.toThrow(/spent once/);
    await root.end();
    // Support never writes a payout's entry at all.
    await expect(insertEntry(samuel, { id: 'support', profile: 'acme-main', amount: 400_000, externalId: 'BIND-2', legacyDuplicate: true })).rejects.toEqual(refusedAs('42501'));
    expect((await fatou.query(`SELECT id FROM entries WHERE external_id = 'BIND-2' ORDER BY id`)).rows).toEqual([{ id: 'first' }]);
  });

  it('still covers the same entry continued after a definite 404 (a resend of the same payout)', async () => {
    const id = await approved('BIND-3');
    await insertEntry(fatou, { id: 'lost', profile: 'acme-main', amount: 400_000, externalId: 'BIND-3' });
    await fatou.query(`UPDATE entries SET state = 'outcome_unknown', updated_at = 2 WHERE id = 'lost'`);
    await fatou.query(`UPDATE entries SET resolution = 'not_found', updated_at = 3 WHERE id = 'lost'`);
    await expect(fatou.query(`UPDATE entries SET state = 'pending', resolution = NULL, updated_at = 4 WHERE id = 'lost'`)).resolves.toMatchObject({ rowCount: 1 });
    expect(await spentBy(id)).toBe('lost');
  });

  it('is refused once its team profile points at another merchant account, and the approver cannot approve the changed one', async () => {
    await approved('BIND-4');
    await adele.query(`UPDATE team_profiles SET base_url = 'https://api.other-merchant.example.com', updated_at = 2 WHERE id = 'acme-main'`);
    try {
      await expect(insertEntry(fatou, { id: 'moved', profile: 'acme-main', amount: 400_000, externalId: 'BIND-4' })).rejects.toEqual(refusedAs('PD001'));
      const waiting = (await askPayout(fatou, 400_000, 'BIND-5', 'acme-main'))!;
      await adele.query(`UPDATE team_profiles SET base_url = 'https://api.example.com', updated_at = 3 WHERE id = 'acme-main'`);
      await expect(approve(kofi, waiting)).rejects.toEqual(refusedAs('PD013'));
    } finally {
      await adele.query(`UPDATE team_profiles SET base_url = 'https://api.example.com', updated_at = 4 WHERE id = 'acme-main'`);
    }
  });
});

describe('an approved batch', () => {
  it('binds its profile and environment: moving the batch to another profile voids it (audited)', async () => {
    const store = workspaces.storeAs('fatou', database);
    const { checkedRows } = await import('./fixtures');
    await store.batches.create({ id: 'bind-batch', fileName: 'b.csv', fileHash: 'bind', profile: { id: 'acme-main', name: 'acme-main', environment: 'sandbox' }, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(3, { amount: 50_000 }), at: 1 });
    const { rows } = await fatou.query<{ id: string }>(`SELECT paydesk_request_batch_approval('bind-batch', 'XAF') AS id`);
    const id = Number(rows[0]!.id);
    expect(await approve(kofi, id)).toBe('approved');
    await fatou.query(`UPDATE batches SET profile_id = 'acme-other', profile_name = 'acme-other' WHERE id = 'bind-batch'`);
    expect((await fatou.query('SELECT state, profile_id FROM approval_requests WHERE id = $1', [id])).rows[0]).toEqual({ state: 'void', profile_id: 'acme-main' });
    const audit = await adele.query(`SELECT action FROM audit_log WHERE subject = $1 ORDER BY id`, [`approval:${id}`]);
    expect(audit.rows.map((r) => r.action)).toContain('void_approval');
  });
});
