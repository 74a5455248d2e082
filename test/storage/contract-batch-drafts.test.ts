/**
 * The storage contract, the Bulk payouts screens (storage/batch-drafts-port.ts): a draft's rows
 * and edits, rows page by page, progress counters, rehearsals, the adopted and retry marks, and
 * the journal reads that keep the external id a payout's identity, the same on a SQLite journal
 * file and a PostgreSQL workspace (as contract.test.ts), so a screen cannot show one store's
 * figures only.
 */
import { ExternalIdKnown } from '../../electron/console/journal/payout-identity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckedRow, RehearsalRowResult } from '../../shared/api';
import type { NewBatch, StoragePort } from '../../electron/console/storage/port';
import { BatchStateChanged } from '../../electron/console/storage/batch-drafts-port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE, serviceTx, storesUnderTest, writeRowRequest } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const EXISTS = { kind: 'exists', error: { code: 'VALIDATION_ERROR', message: 'external_id has already been used', httpStatus: 422 } } as const;
const REFUSED = { kind: 'refused', error: { code: 'INSUFFICIENT_FUNDS', message: 'no money', httpStatus: 422 } } as const;
const MAY_EXIST = { kind: 'may-exist', cause: 'server-error', message: 'server error 500: it may have been created', error: { code: 'INTERNAL_SERVER_ERROR', message: 'boom', httpStatus: 500 }, retryAfterSeconds: null } as const;

/** `rows` with their external ids prefixed, so batches of one store never share an id by chance. */
function rowsOf(prefix: string, count: number, options: { invalid?: boolean } = {}): CheckedRow[] {
  return checkedRows(count, options).map((row) => {
    const externalId = `${prefix}-${row.externalId}`;
    return { ...row, externalId, values: { ...row.values, external_id: externalId }, ...(row.request ? { request: { ...row.request, external_id: externalId } } : {}) };
  });
}

describe.each(storesUnderTest(() => workspaces))('$name store', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });
  const create = (id: string, rows: NewBatch['rows'], extra: Partial<NewBatch> = {}) =>
    store.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1_000, ...extra });
  /** Sends a batch row: its entry written pending, then the given answer. */
  const send = async (batchId: string, row: CheckedRow, at: number) =>
    writeRowRequest(store, { profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at, batch: { id: batchId, row: row.rowNumber } });

  it('reads a batch whole, a page under a filter, given rows in row order, and the progress counters', async () => {
    const rows = rowsOf('RD', 3, { invalid: true });
    await create('rd-1', rows);
    expect((await store.batches.rows('rd-1')).map((row) => [row.rowNumber, row.externalId, row.state])).toEqual([
      [2, 'RD-B-1', 'not_sent'],
      [3, 'RD-B-2', 'not_sent'],
      [4, 'RD-B-3', 'not_sent'],
      [5, 'RD-B-bad', 'not_sent'],
    ]);
    expect(await store.batches.rowsPage('rd-1', 'all', 1, 2)).toMatchObject({ total: 4, rows: [{ rowNumber: 3 }, { rowNumber: 4 }] });
    expect(await store.batches.rowsPage('rd-1', 'invalid', 0, 10)).toMatchObject({ total: 1, rows: [{ rowNumber: 5, request: null, errors: { phone_number: ['not a phone number'] } }] });
    // A page past the end is empty, with the whole count.
    expect(await store.batches.rowsPage('rd-1', 'all', 10, 5)).toEqual({ total: 4, rows: [] });
    expect((await store.batches.rowsByNumber('rd-1', [4, 2])).map((row) => row.rowNumber)).toEqual([2, 4]);
    expect(await store.batches.rowsByNumber('rd-1', [])).toEqual([]);

    const a = await send('rd-1', rows[0]!, 1_100);
    await store.journal.writeInitiateOutcome(a, { kind: 'accepted', tx: serviceTx(rows[0]!.request!, { status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' }), httpStatus: 201, message: null }, 1_200);
    const b = await send('rd-1', rows[1]!, 1_100);
    await store.journal.writeInitiateOutcome(b, REFUSED, 1_200);
    // Sent as a runner sends: the batch `sending`, each row under its claim (writeRowRequest).
    expect(await store.batches.progressCounts('rd-1')).toEqual({
      state: 'sending',
      counts: { rows: 4, valid: 3, invalid: 1, duplicates: 0, notSent: 1, pending: 0, accepted: 1, rejected: 1, unknown: 0, completed: 0, failed: 1, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 },
    });
    // The Failed list: refused, or created and then failed.
    expect(await store.batches.rowsPage('rd-1', 'failed', 0, 10)).toMatchObject({ total: 2, rows: [{ rowNumber: 2, status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS' }, { rowNumber: 3, state: 'rejected', error: { code: 'INSUFFICIENT_FUNDS' } }] });
    expect(await store.batches.progressCounts('no-such-batch')).toBeNull();
  });

  it('replaces a draft rows as checked again, keeping the payouts its rows retry; refuses once it is not a draft', async () => {
    const rows = rowsOf('ED', 3).map((row, index) => (index === 1 ? { ...row, retryOf: 'OLD-7' } : row));
    await create('ed-1', rows);
    expect((await store.batches.rows('ed-1'))[1]).toMatchObject({ rowNumber: 3, retryOf: 'OLD-7' });
    expect(await store.batches.rowInputs('ed-1')).toEqual(rows.map((row) => ({ rowNumber: row.rowNumber, values: row.values, errors: {} })));

    const edited = rows.slice(1).map((row) => ({ ...row, values: { ...row.values, description: 'fixed' } }));
    await store.batches.replaceDraftRows('ed-1', edited, 2_000);
    const after = await store.batches.rows('ed-1');
    expect(after.map((row) => [row.rowNumber, row.values.description, row.retryOf ?? null])).toEqual([
      [3, 'fixed', 'OLD-7'],
      [4, 'fixed', null],
    ]);
    expect((await store.batches.summary('ed-1'))?.updatedAt).toBe(new Date(2_000).toISOString());

    await store.batches.setState('ed-1', 'sending', 3_000, { started: true });
    await expect(store.batches.replaceDraftRows('ed-1', rows, 3_100)).rejects.toThrow(/not a draft/);
    expect((await store.batches.rows('ed-1')).map((row) => row.rowNumber)).toEqual([3, 4]);
    await expect(store.batches.replaceDraftRows('no-such-batch', rows, 3_100)).rejects.toThrow(/not a draft/);
  });

  it('moves a batch only from the state asked: of two starts of one draft, the second is refused and changes nothing', async () => {
    await create('of-1', rowsOf('OF', 1));
    await store.batches.setState('of-1', 'sending', 2_000, { started: true, concurrency: 3, onlyFrom: 'draft' });
    await expect(store.batches.setState('of-1', 'sending', 2_100, { started: true, concurrency: 5, onlyFrom: 'draft' })).rejects.toThrow(BatchStateChanged);
    expect(await store.batches.summary('of-1')).toMatchObject({ state: 'sending', concurrency: 3, updatedAt: new Date(2_000).toISOString() });
  });

  it('saves a rehearsal over the previous one and lists the rows that would fail', async () => {
    await create('rh-1', rowsOf('RH', 3));
    expect(await store.batches.rehearsal('rh-1')).toBeNull();
    const result = (wouldFail: boolean): RehearsalRowResult => ({ state: 'accepted', status: wouldFail ? 'failed' : 'completed', failedCode: null, code: null, message: null, wouldFail });
    await store.batches.saveRehearsal('rh-1', { at: 'first', rows: 3, accepted: 3, rejected: 0, wouldFail: 1 }, new Map([[2, result(true)], [3, result(false)]]), 2_000);
    const summary = { at: new Date(3_000).toISOString(), rows: 3, accepted: 3, rejected: 0, wouldFail: 1 };
    await store.batches.saveRehearsal('rh-1', summary, new Map([[3, result(false)], [4, result(true)]]), 3_000);
    expect(await store.batches.rehearsal('rh-1')).toEqual(summary);
    // Row 2's first result is gone with the first rehearsal; row 3 would complete.
    expect((await store.batches.rows('rh-1')).map((row) => row.rehearsal?.wouldFail ?? null)).toEqual([null, false, true]);
    expect(await store.batches.rowsPage('rh-1', 'wouldFail', 0, 10)).toMatchObject({ total: 1, rows: [{ rowNumber: 4 }] });
    await store.batches.saveRehearsal('no-such-batch', summary, new Map(), 3_000);
  });

  it('marks a row that adopted an existing payout, and counts those whose payout is not what they ask', async () => {
    const rows = rowsOf('AD', 2);
    await create('ad-1', rows);
    await store.batches.setState('ad-1', 'sending', 1_050, { started: true });
    for (const [index, amount] of [[0, rows[0]!.request!.amount], [1, 999_999]] as const) {
      const id = await send('ad-1', rows[index]!, 1_100);
      await store.journal.writeInitiateOutcome(id, EXISTS, 1_200);
      // The look-up by external id finds the payout that exists (the second for another amount).
      await store.journal.recordObserved(id, serviceTx({ ...rows[index]!.request!, amount }, { status: 'completed' }), { type: 'status_seen', httpStatus: 200 }, 1_300);
    }
    const read = await store.batches.rows('ad-1');
    expect(read.map((row) => [row.alreadySent ?? false, row.adoptedDiffers !== undefined])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(read[1]!.adoptedDiffers).toMatchObject({ differs: ['amount'], asked: { amount: rows[1]!.request!.amount }, found: { amount: 999_999 } });
    expect(await store.batches.adoptedDifferingCount('ad-1')).toBe(1);
    expect((await store.batches.rowsByNumber('ad-1', [3]))[0]).toMatchObject({ alreadySent: true });
  });

  it('names a draft rows whose external id was sent earlier, with how each ended; a refused one does not count', async () => {
    const rows = rowsOf('SE', 4);
    await create('se-sent', rows);
    const done = await send('se-sent', rows[0]!, 1_100);
    await store.journal.writeInitiateOutcome(done, { kind: 'accepted', tx: serviceTx(rows[0]!.request!, { status: 'completed' }), httpStatus: 201, message: null }, 1_200);
    await send('se-sent', rows[1]!, 1_100); // in flight
    const refused = await send('se-sent', rows[2]!, 1_100);
    await store.journal.writeInitiateOutcome(refused, REFUSED, 1_200);

    await create('se-draft', rows, { at: 2_000 });
    expect(await store.batches.sentEarlier('se-draft')).toEqual({
      count: 2,
      completed: 1,
      processing: 0,
      failed: 0,
      unknown: 1,
      neverLeft: 2,
      rows: [
        { rowNumber: 2, externalId: 'SE-B-1', batchId: 'se-sent', outcome: 'completed' },
        { rowNumber: 3, externalId: 'SE-B-2', batchId: 'se-sent', outcome: 'unknown' },
      ],
    });
    expect((await store.batches.sentEarlierRowNumbers('se-draft')).sort()).toEqual([2, 3]);
    expect(await store.batches.sentEarlierRowNumbers('no-such-batch')).toEqual([]);
  });

  it('names a row whose earlier send has an unknown outcome, not one looked up and not found; only payouts of the draft environment; a row once, by its known entry', async () => {
    const rows = rowsOf('SU', 6, { invalid: true });
    await create('su-sent', rows);
    const answer = async (row: CheckedRow, outcome: Parameters<StoragePort['journal']['writeInitiateOutcome']>[1], batchId = 'su-sent') => {
      const id = await send(batchId, row, 1_100);
      await store.journal.writeInitiateOutcome(id, outcome, 1_200);
      return id;
    };
    await answer(rows[0]!, MAY_EXIST); // unknown: it may have been paid
    const notFound = await answer(rows[1]!, MAY_EXIST);
    await store.journal.recordNotFound(notFound, 1_300, 'no payout with this external id'); // looked up: never made money
    await answer(rows[2]!, { kind: 'accepted', tx: serviceTx(rows[2]!.request!, { status: 'processing' }), httpStatus: 201, message: null });
    await answer(rows[3]!, { kind: 'accepted', tx: serviceTx(rows[3]!.request!, { status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' }), httpStatus: 201, message: null });
    // Row 6's id: completed here; another batch naming it is refused by the journal (one entry per payout).
    await answer(rows[4]!, { kind: 'accepted', tx: serviceTx(rows[4]!.request!, { status: 'completed' }), httpStatus: 201, message: null });
    await create('su-again', [rows[4]!], { at: 1_500 });
    await expect(writeRowRequest(store, { profile: PROFILE, kind: 'payout', request: rows[4]!.request!, currency: 'XAF', at: 1_600, batch: { id: 'su-again', row: rows[4]!.rowNumber } })).rejects.toBeInstanceOf(ExternalIdKnown);
    // Row 7's id only as a payment, and as a payout of another environment: neither counts.
    const payment = await store.journal.writeRequest({ profile: PROFILE, kind: 'payment', request: rows[5]!.request!, currency: 'XAF', at: 1_100 });
    await store.journal.writeInitiateOutcome(payment, MAY_EXIST, 1_200);
    const live = { ...PROFILE, environment: 'live' as const };
    await create('su-live', [rows[5]!], { profile: live });
    const elsewhere = await writeRowRequest(store, { profile: live, kind: 'payout', request: rows[5]!.request!, currency: 'XAF', at: 1_100, batch: { id: 'su-live', row: rows[5]!.rowNumber } });
    await store.journal.writeInitiateOutcome(elsewhere, MAY_EXIST, 1_200);

    await create('su-draft', rows, { at: 2_000 });
    expect(await store.batches.sentEarlier('su-draft')).toEqual({
      count: 4,
      completed: 1,
      processing: 1,
      failed: 1,
      unknown: 1,
      neverLeft: 2,
      rows: [
        { rowNumber: 2, externalId: 'SU-B-1', batchId: 'su-sent', outcome: 'unknown' },
        { rowNumber: 4, externalId: 'SU-B-3', batchId: 'su-sent', outcome: 'processing' },
        { rowNumber: 5, externalId: 'SU-B-4', batchId: 'su-sent', outcome: 'failed' },
        { rowNumber: 6, externalId: 'SU-B-5', batchId: 'su-sent', outcome: 'completed' },
      ],
    });
    expect((await store.batches.sentEarlierRowNumbers('su-draft')).sort()).toEqual([2, 4, 5, 6]);
  });

  it('gives a file imported again the ids its rows had, sent imports first; a fixed copy of a sent file its rows ids', async () => {
    const first = rowsOf('EI', 2);
    await create('ei-draft', first.map((row) => ({ ...row, externalId: `${row.externalId}-draft` })), { fileHash: 'ei-hash', at: 1_000 });
    await create('ei-sent', first, { fileHash: 'ei-hash', at: 2_000, profile: { ...PROFILE, environment: 'live' } });
    await store.batches.setState('ei-sent', 'sending', 2_100, { started: true });
    expect([...(await store.batches.earlierRowIds('ei-hash', []))]).toEqual([
      [2, 'EI-B-1'],
      [3, 'EI-B-2'],
    ]);
    expect((await store.batches.earlierImports('ei-hash', 'none')).map((earlier) => [earlier.batchId, earlier.state])).toEqual([
      ['ei-draft', 'draft'],
      ['ei-sent', 'sending'],
    ]);
    // Another file (a fixed invalid row added): every valid row of the sent import is in it, unchanged.
    const fileRows = [...first.map((row) => ({ rowNumber: row.rowNumber, values: { ...row.values, external_id: '' } })), { rowNumber: 4, values: { ...first[0]!.values, phone_number: '+237650009999', external_id: '' } }];
    expect([...(await store.batches.earlierRowIds('other-hash', fileRows, 'live'))]).toEqual([
      [2, 'EI-B-1'],
      [3, 'EI-B-2'],
      [4, 'ei-sent-4'],
    ]);
    expect((await store.batches.earlierRowIds('other-hash', fileRows.slice(0, 1), 'live')).size).toBe(0);
    expect((await store.batches.earlierRowIds('other-hash', fileRows)).size).toBe(0);
  });

  it('keeps each row retry link, finds the batch made from another, the retries of a payout and the ids the journal holds', async () => {
    const rows = rowsOf('RT', 2).map((row) => ({ ...row, retryOf: row.externalId.replace('-B-', '-OLD-') }));
    await create('rt-origin', rowsOf('RO', 1));
    await create('rt-1', rows, { fileName: 'pay (retry 1).csv', retryOf: 'rt-origin', at: 2_000 });
    await create('rt-2', rows.slice(0, 1), { fileName: 'pay (retry 1).csv', retryOf: 'rt-origin', at: 3_000 });
    expect((await store.batches.rows('rt-1')).map((row) => row.retryOf)).toEqual(['RT-OLD-1', 'RT-OLD-2']);
    expect(await store.batches.batchMadeFrom('rt-origin', 'pay (retry 1).csv')).toEqual({ batchId: 'rt-2', fileName: 'pay (retry 1).csv', state: 'draft', createdAt: new Date(3_000).toISOString(), rows: 1 });
    expect(await store.batches.batchMadeFrom('rt-origin', 'pay (remaining).csv')).toBeNull();

    expect(await store.batches.externalIdInJournal('RT-B-1')).toBe(false);
    const first = await writeRowRequest(store, { profile: PROFILE, kind: 'payout', request: rows[0]!.request!, currency: 'XAF', at: 2_100, batch: { id: 'rt-1', row: 2 }, retryOf: 'RT-OLD-1' });
    await store.journal.writeInitiateOutcome(first, REFUSED, 2_200);
    await writeRowRequest(store, { profile: PROFILE, kind: 'payout', request: rows[1]!.request!, currency: 'XAF', at: 2_300, batch: { id: 'rt-1', row: 3 }, retryOf: 'RT-OLD-2' });
    expect(await store.batches.externalIdInJournal('RT-B-1')).toBe(true);
    const retries = await store.batches.retriesByOrigin('sandbox');
    expect(retries.get('RT-OLD-1')).toEqual([{ externalId: 'RT-B-1', state: 'rejected', status: null, resolution: null }]);
    expect(retries.get('RT-OLD-2')).toEqual([{ externalId: 'RT-B-2', state: 'pending', status: null, resolution: null }]);
    expect((await store.batches.retriesByOrigin('live')).size).toBe(0);
  });
});
