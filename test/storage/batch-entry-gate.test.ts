/**
 * A payout's entry tagged with a batch is the entry of one of that batch's rows, and every entry
 * sent is audited (migration 41; issue 36 item 1). Raw SQL as fatou (finance), what a modified
 * client could send: before, tagging a pending payout of any amount to any phone with an approved
 * batch's id, a batch id that does not exist or an empty draft's let it past the entry's gate
 * (which checked the batch, and passed a batch nothing bound), and the audit trigger skipped every
 * batch-tagged entry. The policy asks one approval from 100,000 XAF.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { approve, askBatch, insertPayoutEntry, setPolicy } from './approval-helpers';
import { claimRow, insertRowEntry, insertTaggedEntry, sendingBatch } from './gate-helpers';
import { payoutRequest } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
let kofi: pg.Client;
let root: pg.Client;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  fatou = await workspaces.connectAs('fatou', database);
  kofi = await workspaces.connectAs('kofi', database);
  root = await workspaces.server.connect(undefined, database);
  // An approved batch of three rows of 250,000 XAF, being sent.
  await sendingBatch(workspaces.storeAs('fatou', database), 'approved', 3, 250_000);
  await approve(kofi, (await askBatch(fatou, 'approved'))!);
}, 60_000);
afterAll(() => workspaces.stop());

const refusedAs = (code: string) => expect.objectContaining({ code });
const NOT_ITS_ROW = /is not the entry of row/;
const entryIds = async () => (await root.query<{ id: string }>(`SELECT id FROM entries ORDER BY id`)).rows.map((row) => row.id);
const sentLines = async (id: string) =>
  (await root.query<{ actor: string; after: Record<string, unknown> }>(`SELECT actor, after FROM audit_log WHERE action = 'send' AND subject = $1 ORDER BY id`, [`entry:${id}`])).rows;

describe('raw SQL as a finance login tagging a payout with a batch', () => {
  it('cannot write a payout of its own under an approved batch\'s id: another amount, phone or external id, or a row it does not have', async () => {
    const steal = { batchId: 'approved', amount: 9_000_000, externalId: 'STEAL-1', phone: '+237699999999' };
    await expect(insertTaggedEntry(fatou, { id: 'steal-new', batchRow: 2, ...steal })).rejects.toThrow(NOT_ITS_ROW);
    await expect(insertTaggedEntry(fatou, { id: 'steal-99', batchRow: 99, ...steal })).rejects.toThrow(NOT_ITS_ROW);
    // The row's own external id, with more money or another phone.
    await expect(insertTaggedEntry(fatou, { id: 'steal-more', batchId: 'approved', batchRow: 2, amount: 9_000_000, externalId: 'B-1' })).rejects.toThrow(NOT_ITS_ROW);
    await expect(insertTaggedEntry(fatou, { id: 'steal-phone', batchId: 'approved', batchRow: 2, amount: 250_000, externalId: 'B-1', phone: '+237699999999' })).rejects.toThrow(NOT_ITS_ROW);
    // Even under its own claim of that row.
    expect((await claimRow(fatou, 'approved', 2, 'desk-fatou')).rowCount).toBe(1);
    await expect(insertTaggedEntry(fatou, { id: 'steal-claimed', batchRow: 2, ...steal })).rejects.toEqual(refusedAs('23514'));
    // The row exactly, in another environment than its batch's.
    await expect(insertRowEntry(fatou, 'row-2-live', 'approved', 2, 'live')).rejects.toThrow(NOT_ITS_ROW);
    expect(await entryIds()).toEqual([]);
  });

  it('cannot use a batch id that does not exist, nor an empty draft\'s', async () => {
    await expect(insertTaggedEntry(fatou, { id: 'ghost', batchId: 'no-such-batch', batchRow: 2, amount: 9_000_000, externalId: 'GHOST-1' })).rejects.toThrow(NOT_ITS_ROW);
    await fatou.query(`INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at)
      VALUES ('empty-draft', 'e.csv', 'e', 'draft', 'p1', 'Acme', 'sandbox', 1, 1, 1)`);
    await expect(insertTaggedEntry(fatou, { id: 'empty', batchId: 'empty-draft', batchRow: 2, amount: 9_000_000, externalId: 'EMPTY-1' })).rejects.toThrow(NOT_ITS_ROW);
    // Below the policy too: a tag is a row of that batch or nothing.
    await expect(insertTaggedEntry(fatou, { id: 'ghost-small', batchId: 'no-such-batch', batchRow: 2, amount: 500, externalId: 'GHOST-2' })).rejects.toThrow(NOT_ITS_ROW);
    expect(await entryIds()).toEqual([]);
  });

  it('writes the row\'s own entry under its claim, audited; not a row another login\'s live claim holds, and not a second entry of a row', async () => {
    // fatou holds row 2 (the test above); kofi takes row 3.
    expect((await claimRow(kofi, 'approved', 3, 'desk-kofi')).rowCount).toBe(1);
    await expect(insertRowEntry(fatou, 'row-3-by-fatou', 'approved', 3)).rejects.toEqual(refusedAs('42501'));
    await insertRowEntry(fatou, 'row-2', 'approved', 2);
    await fatou.query(`UPDATE batch_rows SET journal_id = 'row-2' WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'approved') AND row_number = 2`);
    await expect(insertRowEntry(fatou, 'row-2-again', 'approved', 2)).rejects.toThrow(/row 2 already has its journal entry/);
    expect(await entryIds()).toEqual(['row-2']);
    expect(await sentLines('row-2')).toEqual([
      { actor: 'fatou', after: expect.objectContaining({ state: 'pending', amount: 250_000, externalId: 'B-1', batchId: 'approved', batchRow: 2 }) },
    ]);
  });

  it('cannot move its pending batch entry to another batch, or change its amount, phone or tag without its request', async () => {
    await expect(fatou.query(`UPDATE entries SET batch_id = 'no-such-batch' WHERE id = 'row-2'`)).rejects.toThrow(NOT_ITS_ROW);
    await expect(fatou.query(`UPDATE entries SET batch_row = 3 WHERE id = 'row-2'`)).rejects.toThrow(NOT_ITS_ROW);
    await expect(fatou.query(`UPDATE entries SET amount = 9000000 WHERE id = 'row-2'`)).rejects.toThrow(/disagree/);
    await expect(fatou.query(`UPDATE entries SET phone_number = '+237699999999' WHERE id = 'row-2'`)).rejects.toThrow(/disagree/);
    expect((await root.query(`SELECT batch_id, batch_row, amount, phone_number FROM entries WHERE id = 'row-2'`)).rows).toEqual([
      { batch_id: 'approved', batch_row: 2, amount: '250000', phone_number: '+237650000001' },
    ]);
  });
});

describe('the audit log', () => {
  it('holds every payout sent: a single one, one sent again, and one whose request changed while pending', async () => {
    await insertPayoutEntry(fatou, 'single', 5_000, 'ONE-1');
    const grown = JSON.stringify(payoutRequest({ amount: 7_000, external_id: 'ONE-1' }));
    await fatou.query(`UPDATE entries SET request = $1, amount = 7000 WHERE id = 'single'`, [grown]);
    await fatou.query(`UPDATE entries SET state = 'rejected' WHERE id = 'single'`);
    await fatou.query(`UPDATE entries SET state = 'pending' WHERE id = 'single'`);
    expect((await sentLines('single')).map((line) => [line.actor, line.after.amount, line.after.state])).toEqual([
      ['fatou', 5_000, 'pending'],
      ['fatou', 7_000, 'pending'],
      ['fatou', 7_000, 'pending'],
    ]);
  });
});
