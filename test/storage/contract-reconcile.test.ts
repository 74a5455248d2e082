/**
 * The storage contract, a reconciliation's rows (storage/reconcile-rows-port.ts): what the reconcile
 * runner, its handlers and its CSV report read and write, the same against a SQLite journal file
 * and a PostgreSQL workspace, so a support agent's report on a team workspace is the desktop's.
 */
import { ExternalIdKnown } from '../../electron/console/journal/payout-identity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReport } from '../../electron/console/reconcile/export';
import type { RowOutcome } from '../../electron/console/reconcile/store';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx, storesUnderTest } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const fileRows = (count: number, prefix = 'R') =>
  Array.from({ length: count }, (_, i) => ({
    row: i + 2,
    externalId: `${prefix}-${i + 1}`,
    kind: 'payout' as const,
    amount: 100 * (i + 1),
    expectedRaw: 'completed',
    expected: 'completed' as const,
    dateRaw: null,
    dateMs: null,
    dateEndMs: null,
  }));

const outcome = (category: RowOutcome['category'], overrides: Partial<RowOutcome> = {}): RowOutcome => ({
  category,
  journalId: null,
  transactionId: null,
  serviceStatus: null,
  serviceAmount: null,
  serviceCreatedAt: null,
  currency: null,
  detail: null,
  ...overrides,
});

describe.each(storesUnderTest(() => workspaces))('$name store', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });
  const create = (fileName: string, count: number, at: number, period: { from: number; to: number } | null = null, prefix = 'R') =>
    store.reconcile.create({
      fileName,
      profile: PROFILE,
      rows: fileRows(count, prefix),
      processingMinutes: 30,
      period: period && { ...period, source: 'picked' },
      currency: 'XAF',
      at,
    });

  it('lists runs newest first with their summary; gives a run\'s detail and its unchecked rows in file order', async () => {
    expect(await store.reconcile.removeUnfinishedImports()).toBe(0);
    const older = await create('a.csv', 3, 1_000);
    const newer = await create('b.csv', 2, 2_000, { from: 10, to: 20 });
    const list = await store.reconcile.list();
    expect(list.map((run) => run.id).slice(0, 2)).toEqual([newer, older]);
    expect(await store.reconcile.summary(older)).toMatchObject({
      id: older,
      fileName: 'a.csv',
      status: 'running',
      phase: 'matching',
      totalRows: 3,
      checkedRows: 0,
      verify: null,
      period: null,
      currency: 'XAF',
      rateLimitWaits: 0,
      createdAt: new Date(1_000).toISOString(),
      finishedAt: null,
    });
    expect(await store.reconcile.detail(newer)).toEqual({
      status: 'running',
      phase: 'matching',
      totalRows: 2,
      profileId: PROFILE.id,
      environment: PROFILE.environment,
      processingMinutes: 30,
      period: { from: 10, to: 20 },
      unknownDone: false,
    });
    expect(await store.reconcile.summary('nope')).toBeNull();
    expect(await store.reconcile.detail('nope')).toBeNull();
    const unchecked = await store.reconcile.uncheckedRows(older, 2);
    expect(unchecked.map((row) => [row.row_number, row.external_id, row.amount, row.expected, row.category])).toEqual([
      [2, 'R-1', 100, 'completed', null],
      [3, 'R-2', 200, 'completed', null],
    ]);
    await store.reconcile.countRateLimitWait(older);
    expect((await store.reconcile.summary(older))?.rateLimitWaits).toBe(1);
  });

  it('saves outcomes in one go: categories and totals, Verify\'s count, rows to verify, a resume reopening what was not checked', async () => {
    const id = await create('c.csv', 4, 3_000);
    await store.reconcile.saveOutcomes(
      id,
      [
        { rowNumber: 2, outcome: outcome('matched', { journalId: 'j1', transactionId: 'tr1', serviceStatus: 'completed', serviceAmount: 100, serviceCreatedAt: 5, currency: 'XAF' }) },
        { rowNumber: 3, outcome: outcome('still_processing', { journalId: 'j2', serviceStatus: 'processing', serviceAmount: 200 }) },
        { rowNumber: 4, outcome: outcome('not_checked', { detail: 'NOT_SENT: down' }) },
      ],
      3_100,
    );
    expect(await store.reconcile.progressCounts(id)).toEqual({ checked: 3, verify: { done: 0, total: 1 } });
    const summary = (await store.reconcile.summary(id))!;
    expect(summary.checkedRows).toBe(3);
    expect(summary.updatedAt).toBe(new Date(3_100).toISOString());
    expect(summary.categories.matched).toEqual({ count: 1, amount: 100, serviceAmount: 100 });
    expect(summary.categories.still_processing).toEqual({ count: 1, amount: 200, serviceAmount: 200 });
    expect((await store.reconcile.rowsToVerify(id, 10)).map((row) => row.row_number)).toEqual([3]);
    expect((await store.reconcile.uncheckedRows(id, 10)).map((row) => row.row_number)).toEqual([5]);

    await store.reconcile.saveOutcomes(id, [{ rowNumber: 3, outcome: outcome('still_processing', { journalId: 'j2', serviceStatus: 'processing', serviceAmount: 200, detail: 'verified: processing' }), verified: true }], 3_200);
    expect(await store.reconcile.rowsToVerify(id, 10)).toEqual([]);
    // Saved again without `verified`: a row once verified stays verified.
    await store.reconcile.saveOutcomes(id, [{ rowNumber: 3, outcome: outcome('matched', { serviceAmount: 200 }) }], 3_300);
    expect(await store.reconcile.progressCounts(id)).toEqual({ checked: 3, verify: { done: 1, total: 1 } });

    await store.reconcile.reopenNotChecked(id);
    expect((await store.reconcile.uncheckedRows(id, 10)).map((row) => row.row_number)).toEqual([4, 5]);
    expect((await store.reconcile.uncheckedRows(id, 10))[0]!.detail).toBeNull();
  });

  it('finds the journal\'s known entries in order, adds those the file lacks after its rows, and marks the run done with them', async () => {
    const profile = { ...PROFILE, id: 'p-unknown' };
    const write = async (externalId: string, at: number, answer: boolean) => {
      const request = payoutRequest({ external_id: externalId, amount: 700 });
      const id = await store.journal.writeRequest({ profile, kind: 'payout', request, currency: 'XAF', at });
      if (answer) await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(request, { status: 'completed', created_at: new Date(at + 500).toISOString() }), httpStatus: 201, message: null }, at + 1);
      return id;
    };
    const a = await write('U-1', 10_000, true);
    await write('U-2', 11_000, false);
    const c = await write('U-3', 12_000, true);
    const candidates = await store.reconcile.journalCandidates(profile, 0, 10);
    expect(candidates.map(({ seq: _seq, ...rest }) => rest)).toEqual([
      { journalId: a, kind: 'payout', externalId: 'U-1', transactionId: expect.any(String), status: 'completed', amount: 700, currency: 'XAF', createdAt: 10_500 },
      { journalId: c, kind: 'payout', externalId: 'U-3', transactionId: expect.any(String), status: 'completed', amount: 700, currency: 'XAF', createdAt: 12_500 },
    ]);
    expect(candidates[0]!.seq).toBeLessThan(candidates[1]!.seq);
    expect((await store.reconcile.journalCandidates(profile, candidates[0]!.seq, 10)).map((x) => x.journalId)).toEqual([c]);
    expect(await store.reconcile.journalCandidates(profile, candidates[1]!.seq, 10)).toEqual([]);

    const id = await create('d.csv', 2, 13_000, { from: 0, to: 20_000 }, 'U');
    expect([...(await store.reconcile.fileKeys(id))].sort()).toEqual(['payout:U-1', 'payout:U-2']);
    const { seq: _seq, ...missing } = candidates[1]!;
    await store.reconcile.addUnknownToMerchant(id, [missing], 13_100);
    expect((await store.reconcile.detail(id))?.unknownDone).toBe(true);
    const page = await store.reconcile.pageRows(id, 'unknown_to_merchant', 0, 10);
    expect(page.total).toBe(1);
    expect(page.rows).toEqual([
      expect.objectContaining({ row: null, externalId: 'U-3', kind: 'payout', amount: null, category: 'unknown_to_merchant', journalId: c, serviceStatus: 'completed', serviceAmount: 700, currency: 'XAF' }),
    ]);
    // Numbered after the file's rows (2 and 3); the unknown's amount is the service's.
    expect((await store.reconcile.rowsAfter(id, undefined, 0, 10)).map((row) => [row.row_number, row.source])).toEqual([
      [2, 'file'],
      [3, 'file'],
      [4, 'journal'],
    ]);
    expect((await store.reconcile.summary(id))?.categories.unknown_to_merchant).toEqual({ count: 1, amount: 700, serviceAmount: 700 });
    // Nothing missing: still marked done.
    const none = await create('e.csv', 1, 14_000, { from: 0, to: 1 });
    await store.reconcile.addUnknownToMerchant(none, [], 14_100);
    expect((await store.reconcile.detail(none))?.unknownDone).toBe(true);
  });

  it('pages the report by offset and by row, one category or all; the CSV is the same however it is read', async () => {
    const id = await create('f.csv', 5, 15_000);
    await store.reconcile.saveOutcomes(id, [2, 4, 6].map((rowNumber) => ({ rowNumber, outcome: outcome('missing_at_service') })), 15_100);
    const page = await store.reconcile.pageRows(id, 'missing_at_service', 1, 1);
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 1 });
    expect(page.rows.map((row) => [row.row, row.externalId, row.currency])).toEqual([[4, 'R-3', 'XAF']]);
    expect((await store.reconcile.pageRows(id, undefined, 0, 100)).total).toBe(5);
    expect((await store.reconcile.rowsAfter(id, 'missing_at_service', 2, 1)).map((row) => row.row_number)).toEqual([4]);
    expect((await store.reconcile.rowsAfter(id, undefined, 6, 10))).toEqual([]);
    const csv = await exportReport(store.reconcile, id, 'missing_at_service', 'en', 'XAF');
    expect(csv.rows).toBe(3);
    expect(csv.csv.trim().split('\r\n').slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(['"2","R-1"', '"4","R-3"', '"6","R-5"']);
    expect((await exportReport(store.reconcile, id, undefined, 'fr', 'XAF')).rows).toBe(5);
  });

  it('gives the journal\'s entry for a merchant row (one per payout: a later attempt is refused), within the profile, environment and kind', async () => {
    const profile = { ...PROFILE, id: 'p-entry' };
    const request = payoutRequest({ external_id: 'M-1' });
    const known = await store.journal.writeRequest({ profile, kind: 'payout', request, currency: 'XAF', at: 20_000 });
    await store.journal.writeInitiateOutcome(known, { kind: 'accepted', tx: serviceTx(request), httpStatus: 201, message: null }, 20_001);
    await expect(store.journal.writeRequest({ profile, kind: 'payout', request, currency: 'XAF', at: 21_000 })).rejects.toBeInstanceOf(ExternalIdKnown);
    expect((await store.reconcile.entryFor(profile, 'payout', 'M-1'))?.id).toBe(known);
    expect(await store.reconcile.entryFor(profile, 'payment', 'M-1')).toBeNull();
    expect(await store.reconcile.entryFor({ ...profile, environment: 'live' }, 'payout', 'M-1')).toBeNull();
    expect(await store.reconcile.entryFor(PROFILE, 'payout', 'M-1')).toBeNull();
  });
});
