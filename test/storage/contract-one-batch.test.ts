/**
 * The storage contract, a row belongs to one batch (issue 37 item 3;
 * docs/decisions/a-row-belongs-to-one-batch.md): a cancelled batch's remaining rows MOVE to the
 * batch made of them, in one transaction, on a SQLite journal file and a PostgreSQL workspace
 * alike. The old batch keeps its sent rows and names the moved ones; together the two batches
 * count each row once; a moved row is never sent by the old batch (its entry refused by the
 * store's trigger, its link refused, its claim skipped), and a live claim on a remaining row
 * refuses the move whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchFigures, type BatchRow, type CheckedRow } from '../../shared/api';
import type { NewBatch, StoragePort } from '../../electron/console/storage/port';
import { BatchStateChanged, RowsStillClaimed } from '../../electron/console/storage/batch-drafts-port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE, serviceTx, storesUnderTest } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const RATE_LIMITED = { kind: 'retry-later', error: { code: 'RATE_LIMITED', message: 'slow down', httpStatus: 429 }, retryAfterSeconds: 1 } as const;

/** The desk this suite's sends claim rows as. */
const DESK = 'desk-one-batch';

describe.each(storesUnderTest(() => workspaces))('$name store', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });
  const newBatch = (id: string, rows: NewBatch['rows'], extra: Partial<NewBatch> = {}): NewBatch => ({
    id, fileName: `${id}.csv`, fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1_000, ...extra,
  });
  /** Sends a batch row as a run does: the batch sending, the row claimed by this desk first (migration 44), then its entry. */
  const send = async (batchId: string, row: CheckedRow, at: number) => {
    if ((await store.batches.summary(batchId))?.state === 'draft') await store.batches.setState(batchId, 'sending', at);
    await store.batches.claimRows(batchId, DESK, row.rowNumber, 600_000, at);
    return store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at, batch: { id: batchId, row: row.rowNumber } });
  };
  /** The remaining rows as the handler makes them: the same rows, external ids and numbers, in a draft of their own. */
  const remainingOf = (id: string, from: string) => (remaining: BatchRow[]) =>
    newBatch(id, remaining.map((row) => ({ rowNumber: row.rowNumber, values: row.values, request: row.request, errors: {}, duplicates: [], externalId: row.externalId })), { retryOf: from, fileName: `${from} (remaining).csv` });

  /** A batch of 6 rows: rows 2-3 paid, row 4 met a 429 (nothing created), rows 5-7 never sent; then cancelled. */
  async function cancelledMidway(prefix: string) {
    const id = `${prefix}-1`;
    const rows = checkedRows(6, { prefix });
    await store.batches.create(newBatch(id, rows));
    await store.batches.setState(id, 'sending', 1_050, { started: true });
    for (const row of rows.slice(0, 2)) {
      const entry = await send(id, row, 1_100);
      await store.journal.writeInitiateOutcome(entry, { kind: 'accepted', tx: serviceTx(row.request!, { status: 'completed' }), httpStatus: 201, message: null }, 1_200);
    }
    const throttled = await send(id, rows[2]!, 1_100);
    await store.journal.writeInitiateOutcome(throttled, RATE_LIMITED, 1_200);
    // Its claims released once answered, as the run releases them.
    await store.batches.releaseClaims(id, DESK, rows.map((row) => row.rowNumber));
    await store.batches.setState(id, 'cancelled', 1_300, { finished: true });
    return { id, rows, throttled };
  }

  it('moves the remaining rows in one transaction: the old batch names them, the new one holds them, each row counted once', async () => {
    const { id, rows, throttled } = await cancelledMidway('MV');
    const before = batchFigures((await store.batches.counts(id)).counts);
    expect(before).toMatchObject({ sent: 2, remaining: 4, moved: 0 });

    const made = await store.batches.moveRemaining(id, 1_400, remainingOf('MV-2', id));
    expect(made?.rows.map((row) => row.rowNumber)).toEqual([4, 5, 6, 7]);
    const old = (await store.batches.counts(id)).counts;
    expect(old).toMatchObject({ valid: 6, accepted: 2, completed: 2, notSent: 0, elsewhere: 0, moved: 4 });
    expect(batchFigures(old)).toMatchObject({ sent: 2, remaining: 0, moved: 4, settled: true });
    const moved = await store.batches.rows(id);
    expect(moved.map((row) => row.movedTo ?? null)).toEqual([null, null, ...Array(4).fill({ batchId: 'MV-2', fileName: `${id} (remaining).csv` })]);
    expect(moved.some((row) => row.paidBy)).toBe(false);
    const fresh = (await store.batches.counts('MV-2')).counts;
    expect(fresh).toMatchObject({ valid: 4, notSent: 4, moved: 0, elsewhere: 0 });
    // Together: 2 sent there + 4 to send here = the file's 6 rows, once each.
    expect(batchFigures(old).sent + batchFigures(fresh).remaining).toBe(rows.length);

    // The new batch's row continues the 429's entry (one entry for the payout), now the new batch's.
    await store.batches.setState('MV-2', 'sending', 1_500, { started: true });
    expect(await send('MV-2', rows[2]!, 1_600)).toBe(throttled);
    expect((await store.journal.getEntry(throttled))?.batch).toEqual({ batchId: 'MV-2', rowNumber: 4 });
    expect((await store.batches.counts('MV-2')).counts).toMatchObject({ pending: 1, notSent: 3 });
    expect((await store.batches.counts(id)).counts).toMatchObject({ accepted: 2, moved: 4, notSent: 0, pending: 0, elsewhere: 0 });
    // Asked again: nothing remains, nothing is written.
    expect(await store.batches.moveRemaining(id, 1_700, remainingOf('MV-3', id))).toBeNull();
    expect(await store.batches.summary('MV-3')).toBeNull();
  });

  it('never sends a moved row from the old batch: its entry is refused, its link refused, its claim skipped', async () => {
    const { id, rows } = await cancelledMidway('NS');
    await store.batches.moveRemaining(id, 1_400, remainingOf('NS-2', id));
    // A desktop that still had row 5 of the old batch in hand writes its entry: refused, nothing to POST.
    await expect(send(id, rows[3]!, 1_500)).rejects.toThrow(/moved to (another )?batch/);
    expect(await store.journal.knownPayout('payout', 'sandbox', rows[3]!.externalId)).toBeNull();
    // Linking the old row to a payout the new batch made: refused (it is counted there only).
    const paid = await send('NS-2', rows[4]!, 1_600);
    expect(await store.journal.linkRowToPayout({ id, row: rows[4]!.rowNumber }, paid)).toBe(false);
    expect((await store.batches.counts(id)).counts).toMatchObject({ accepted: 2, moved: 4, elsewhere: 0 });
  });

  it('refuses the move while a live claim holds a remaining row, and moves nothing', async () => {
    const id = 'CL-1';
    await store.batches.create(newBatch(id, checkedRows(3, { prefix: 'CL' })));
    await store.batches.setState(id, 'sending', 1_050, { started: true });
    const claim = await store.batches.claimRows(id, 'desktop-b', 2, 120_000, Date.now());
    expect(claim.rows.map((row) => row.rowNumber)).toEqual([2, 3]);
    await store.batches.setState(id, 'cancelled', 1_300, { finished: true });
    await expect(store.batches.moveRemaining(id, Date.now(), remainingOf('CL-2', id))).rejects.toThrow(RowsStillClaimed);
    expect(await store.batches.summary('CL-2')).toBeNull();
    expect((await store.batches.counts(id)).counts).toMatchObject({ notSent: 3, moved: 0 });
    await store.batches.releaseClaims(id, 'desktop-b', [2, 3]);
    expect((await store.batches.moveRemaining(id, Date.now(), remainingOf('CL-2', id)))?.rows).toHaveLength(3);
  });

  it('moves only a cancelled batch\'s rows', async () => {
    const id = 'ST-1';
    await store.batches.create(newBatch(id, checkedRows(2, { prefix: 'ST' })));
    await expect(store.batches.moveRemaining(id, 1_400, remainingOf('ST-2', id))).rejects.toThrow(BatchStateChanged);
    await store.batches.setState(id, 'sending', 1_050, { started: true });
    await store.batches.setState(id, 'paused', 1_100);
    await expect(store.batches.moveRemaining(id, 1_400, remainingOf('ST-2', id))).rejects.toThrow(BatchStateChanged);
    expect(await store.batches.summary('ST-2')).toBeNull();
  });
});

describe('PostgreSQL: a second desktop writing an old row\'s entry while the move runs', () => {
  it('the move waits for it: the row it sends stays the old batch\'s (pending there), the rest move', async () => {
    const database = await workspaces.create();
    const store = workspaces.storeAs('tester', database);
    const rows = checkedRows(4, { prefix: 'RC' });
    const base = { fileHash: 'rc', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, at: 1_000 };
    await store.batches.create({ ...base, id: 'RC-1', fileName: 'rc.csv', rows });
    await store.batches.setState('RC-1', 'sending', 1_050, { started: true });
    // Row 2 met a 429 (nothing created): its entry is sent again by a desktop that had it in hand (its claim still live).
    await store.batches.claimRows('RC-1', 'desk-rc', 1, 600_000, 1_100);
    const attempt = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: rows[0]!.request!, currency: 'XAF', at: 1_100, batch: { id: 'RC-1', row: 2 } });
    await store.journal.writeInitiateOutcome(attempt, { kind: 'retry-later', error: { code: 'RATE_LIMITED', message: 'slow down', httpStatus: 429 }, retryAfterSeconds: 1 }, 1_200);
    await store.batches.setState('RC-1', 'cancelled', 1_300, { finished: true });
    const other = await workspaces.connectAs('tester', database);
    try {
      await other.query('BEGIN');
      // The other desktop's resend, not committed yet: the entry goes pending (the trigger locks its row).
      await other.query(`UPDATE entries SET state = 'pending', last_error = NULL WHERE id = $1`, [attempt]);
      const moving = store.batches.moveRemaining('RC-1', 1_400, (remaining) => ({
        ...base,
        id: 'RC-2',
        fileName: 'rc (remaining).csv',
        retryOf: 'RC-1',
        rows: remaining.map((row) => ({ rowNumber: row.rowNumber, values: row.values, request: row.request, errors: {}, duplicates: [], externalId: row.externalId })),
      }));
      let settled = false;
      void moving.finally(() => (settled = true));
      // The move is held by the other desktop's lock until it commits (a read of the lock tables, not a sleep).
      await expect.poll(async () => (await other.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`)).rows[0].n, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(settled).toBe(false);
      await other.query('COMMIT');
      const made = await moving;
      expect(made?.rows.map((row) => row.rowNumber)).toEqual([3, 4, 5]);
    } finally {
      await other.end();
    }
    expect((await store.batches.counts('RC-1')).counts).toMatchObject({ pending: 1, moved: 3, notSent: 0 });
    expect((await store.journal.getEntry(attempt))?.batch).toEqual({ batchId: 'RC-1', rowNumber: 2 });
  });
});
