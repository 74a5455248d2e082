/**
 * A workspace entry's folded search text (migration 5's trigger, split by migration 22): written
 * on insert, written again when a searched column changes, left alone by an answer that names the
 * same external id, so History finds an entry by what it holds now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

describe('the folded search text of an entry', () => {
  it('follows its searched columns, on insert and on every change of one of them', async () => {
    const database = await workspaces.create();
    const store = workspaces.storeAs('fatou', database);
    const request = payoutRequest({ external_id: 'ST-1', phone_number: '+237650001111' });
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 });
    await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(request), httpStatus: 201, message: null }, 1_100);
    const root = await workspaces.server.connect(undefined, database);
    const text = async () => (await root.query<{ search_text: string }>('SELECT search_text FROM entries WHERE id = $1', [id])).rows[0]!.search_text;
    expect(await text()).toContain('st-1 +237650001111');
    // A sent entry's recipient never changes for any login (migration 44): the trigger is checked on
    // the change only the owner can make (a repair), with that rule set aside meanwhile in this throwaway database.
    await root.query('ALTER TABLE entries DISABLE TRIGGER entries_was_sent_kept');
    await root.query(`UPDATE entries SET customer_last_name = 'Ébodé', status = 'completed' WHERE id = $1`, [id]);
    expect(await text()).toMatch(/ebode$/);
    // The external id never changes once written (migration 34): the phone number, another searched column, does.
    await root.query(`UPDATE entries SET phone_number = '+237650002222' WHERE id = $1`, [id]);
    expect(await text()).toContain('st-1 +237650002222');
    await root.query('ALTER TABLE entries ENABLE TRIGGER entries_was_sent_kept');
    expect((await store.journal.search({ text: 'ebode' }, 0, 10)).rows.map((row) => row.id)).toEqual([id]);
  });
});
