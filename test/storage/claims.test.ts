/**
 * Several desktops, one batch, each row claimed once: two clients (two logins, two connection
 * pools) claim small groups at once with FOR UPDATE SKIP LOCKED and "send" each row they get
 * (pending entry, then the answer), until nothing is left. Whatever the interleaving, every valid
 * row is claimed by exactly one of them and has exactly one journal entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const ROWS = 300;
const GROUP = 5;

/** One desktop's worker loop: claim a group, send each row, release, until a claim comes back empty. */
async function desktop(store: StoragePort, holder: string, batchId: string): Promise<string[]> {
  const sent: string[] = [];
  for (;;) {
    const claim = await store.batches.claimRows(batchId, holder, GROUP, 60_000, 0);
    if (claim.rows.length === 0) return sent;
    for (const row of claim.rows) {
      const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at: 1, batch: { id: batchId, row: row.rowNumber } });
      await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(row.request!), httpStatus: 201, message: null }, 2);
      sent.push(row.externalId);
    }
    await store.batches.releaseClaims(batchId, holder, claim.rows.map((row) => row.rowNumber));
  }
}

describe('row claims between two desktops', () => {
  it('gives each row of a batch to exactly one of two desktops claiming at the same time', async () => {
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    const kofi = workspaces.storeAs('kofi', database);
    await fatou.batches.create({ id: 'two-desks', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 4, retryOf: null, rows: checkedRows(ROWS, { invalid: true, amount: 700 }), at: 0 });
    await fatou.batches.setState('two-desks', 'sending', 0);
    // Two workers per desktop, as a desktop's concurrency would run them.
    const [a1, a2, b1, b2] = await Promise.all([
      desktop(fatou, 'desk-fatou', 'two-desks'),
      desktop(fatou, 'desk-fatou', 'two-desks'),
      desktop(kofi, 'desk-kofi', 'two-desks'),
      desktop(kofi, 'desk-kofi', 'two-desks'),
    ]);
    const all = [...a1!, ...a2!, ...b1!, ...b2!];
    expect(all).toHaveLength(ROWS);
    expect(new Set(all).size).toBe(ROWS);
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query(`SELECT count(*)::int AS entries, count(DISTINCT external_id)::int AS ids, sum(amount)::int AS total,
        array_agg(DISTINCT created_by ORDER BY created_by) AS senders FROM entries`);
    expect(rows[0]).toMatchObject({ entries: ROWS, ids: ROWS, total: ROWS * 700 });
    for (const sender of rows[0].senders as string[]) expect(['fatou', 'kofi']).toContain(sender);
    const { counts, totalAmount } = await kofi.batches.counts('two-desks');
    expect({ accepted: counts.accepted, notSent: counts.notSent, invalid: counts.invalid, totalAmount }).toEqual({ accepted: ROWS, notSent: 0, invalid: 1, totalAmount: ROWS * 700 });
    expect((await root.query('SELECT count(*)::int AS n FROM batch_rows WHERE claim_holder IS NOT NULL')).rows[0].n).toBe(0);
  }, 90_000);

  it('stops claiming on every desktop once one desktop pauses the batch', async () => {
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    const kofi = workspaces.storeAs('kofi', database);
    await fatou.batches.create({ id: 'paused', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 4, retryOf: null, rows: checkedRows(20), at: 0 });
    await fatou.batches.setState('paused', 'sending', 0);
    expect((await kofi.batches.claimRows('paused', 'desk-kofi', GROUP, 60_000, 0)).rows).toHaveLength(GROUP);
    await fatou.batches.setState('paused', 'paused', 1);
    expect((await kofi.batches.claimRows('paused', 'desk-kofi', GROUP, 60_000, 1)).rows).toEqual([]);
    expect((await fatou.batches.claimRows('paused', 'desk-fatou', GROUP, 60_000, 1)).rows).toEqual([]);
  });

  it('takes the rows past a stretch another desktop holds, then those behind its cursor once let go', async () => {
    // A claim looks first at the next few rows after its cursor (claims.ts claimRows): rows held
    // beyond that stretch, and rows let go behind the cursor, are still found, in row order.
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    const kofi = workspaces.storeAs('kofi', database);
    await fatou.batches.create({ id: 'far', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 4, retryOf: null, rows: checkedRows(60), at: 0 });
    await fatou.batches.setState('far', 'sending', 0);
    const numbers = (claim: { rows: { rowNumber: number }[] }) => claim.rows.map((row) => row.rowNumber);
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    // Rows 2–61 (row 1 is the file's header).
    expect(numbers(await fatou.batches.claimRows('far', 'desk-fatou', 50, 60_000, 0))).toEqual(range(2, 51));
    expect(numbers(await kofi.batches.claimRows('far', 'desk-kofi', GROUP, 60_000, 0))).toEqual(range(52, 56));
    expect(numbers(await kofi.batches.claimRows('far', 'desk-kofi', GROUP, 60_000, 0))).toEqual(range(57, 61));
    await fatou.batches.releaseClaims('far', 'desk-fatou', range(2, 51));
    expect(numbers(await kofi.batches.claimRows('far', 'desk-kofi', 7, 60_000, 0))).toEqual(range(2, 8));
    expect(numbers(await kofi.batches.claimRows('far', 'desk-kofi', 100, 60_000, 0))).toEqual(range(9, 51));
  });
});
