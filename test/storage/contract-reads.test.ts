/**
 * The storage contract, the journal's whole-screen reads (storage/journal-reads-port.ts): the
 * Overview, History's export in pages and "refused, paid later", the same behaviours against a
 * SQLite journal file and a PostgreSQL workspace, so no figure differs between a desktop and a team.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStatus } from '../../shared/contract';
import { OverviewOverflowError } from '../../electron/console/journal/overview';
import { exportJournalCsv } from '../../electron/console/storage/journal-export';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx, storesUnderTest } from './fixtures';
import { ExternalIdKnown } from '../../electron/console/journal/payout-identity';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const DAY = 86_400_000;
/** A week from this instant: day i is [WEEK + i·DAY, WEEK + (i+1)·DAY). */
const WEEK = Date.parse('2026-11-19T00:00:00.000Z');
const boundaries = Array.from({ length: 8 }, (_, i) => WEEK + i * DAY);
const REFUSED = { kind: 'refused', error: { code: 'INVALID_PAYMENT_METHOD', message: 'unknown method', httpStatus: 422 } } as const;

describe.each(storesUnderTest(() => workspaces))('$name store', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });

  /** An entry the service answered (its status and failed code as given), created at `at`. */
  const answered = async (externalId: string, at: number, options: { amount?: number; status?: ServiceStatus; failedCode?: string; kind?: 'payment' | 'payout'; profile?: typeof PROFILE } = {}) => {
    const request = payoutRequest({ external_id: externalId, amount: options.amount ?? 1000 });
    const id = await store.journal.writeRequest({ profile: options.profile ?? PROFILE, kind: options.kind ?? 'payout', request, currency: 'XAF', at });
    const tx = serviceTx(request, { status: options.status ?? 'processing', failed_code: (options.failedCode ?? null) as never });
    await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx, httpStatus: 201, message: null }, at + 1);
    return { id, tx, request };
  };
  const refused = async (externalId: string, at: number) => {
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: externalId }), currency: 'XAF', at });
    await store.journal.writeInitiateOutcome(id, REFUSED, at + 1);
    return id;
  };

  describe('the Overview', () => {
    let figures: Awaited<ReturnType<StoragePort['journal']['overview']>>;
    let stuckId: string;
    let olderId: string;
    beforeAll(async () => {
      await answered('O-1', WEEK + 1_000, { amount: 5000, status: 'completed' });
      await answered('O-2', WEEK + 2 * DAY + 5, { amount: 3000, status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS' });
      await answered('O-3', WEEK + 2 * DAY + 6, { amount: 4000, status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS', kind: 'payment' });
      stuckId = (await answered('O-4', WEEK + 6 * DAY + 10, { amount: 700 })).id;
      await answered('O-5', WEEK + 7 * DAY - 60_000, { amount: 800 });
      await refused('O-6', WEEK + 6 * DAY + 20);
      // Another environment of the profile, and before the week: not counted.
      await answered('O-7', WEEK + 6 * DAY + 30, { amount: 99, profile: { ...PROFILE, environment: 'live' as never } });
      olderId = (await answered('O-8', WEEK - 1, { amount: 99 })).id;
      figures = await store.journal.overview({ profile: PROFILE, dayBoundaries: boundaries, now: WEEK + 7 * DAY - 1 });
    });

    it('groups the week by day, kind and status; a refused attempt, another environment and days outside are not counted', () => {
      expect(figures.days.map((day) => [day.start, day.payouts.count, day.payments.count, day.failed])).toEqual(
        boundaries.slice(0, -1).map((start, i) => [new Date(start).toISOString(), [1, 0, 1, 0, 0, 0, 2][i], i === 2 ? 1 : 0, i === 2 ? 2 : 0]),
      );
      expect(figures.week.total).toEqual({ count: 5, amounts: [{ currency: 'XAF', amount: 13_500 }] });
      expect(figures.today.total).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 1_500 }] });
      expect(figures.week.byStatus.filter((s) => s.count > 0).map((s) => [s.status, s.count])).toEqual([
        ['completed', 1],
        ['failed', 2],
        ['processing', 2],
      ]);
      expect(figures.week.failures).toEqual([{ code: 'NOT_ENOUGH_FUNDS', payouts: 1, count: 2, amounts: [{ currency: 'XAF', amount: 7000 }] }]);
      expect(figures.week.success).toEqual({ completed: 1, final: 3, rate: 1 / 3 });
    });

    it('lists the transactions processing for more than ten minutes (from before the week too), oldest first, with their count', () => {
      expect(figures.stuck.total).toBe(2);
      expect(figures.stuck.rows.map((row) => [row.id, row.externalId, row.status])).toEqual([
        [olderId, 'O-8', 'processing'],
        [stuckId, 'O-4', 'processing'],
      ]);
      expect(figures.stuck.olderThanMinutes).toBe(10);
      expect(figures.generatedAt).toBe(new Date(WEEK + 7 * DAY - 1).toISOString());
    });

    it('counts once a transaction an attempt adopted ("already exists", then found) that an earlier entry holds; an adopted one of its own counts', async () => {
      const at = WEEK + 3 * DAY;
      const first = await answered('O-9', at, { amount: 600, status: 'completed' });
      // Sent again: the journal refuses it before anything is written; the payout stays one entry.
      await expect(store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: first.request, currency: 'XAF', at: at + 10 })).rejects.toBeInstanceOf(ExternalIdKnown);
      // Adopted too, but no earlier entry holds its transaction (an earlier attempt's answer was lost): counted.
      const alone = payoutRequest({ external_id: 'O-12', amount: 40 });
      const own = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: alone, currency: 'XAF', at: at + 20 });
      await store.journal.writeInitiateOutcome(own, { kind: 'exists', error: { code: 'DUPLICATE_EXTERNAL_ID', message: 'taken', httpStatus: 409 } }, at + 21);
      await store.journal.recordObserved(own, serviceTx(alone, { status: 'completed' }), { type: 'status_seen', httpStatus: 200, message: 'found by its external id' }, at + 22);
      const after = await store.journal.overview({ profile: PROFILE, dayBoundaries: boundaries, now: WEEK + 7 * DAY - 1 });
      expect(after.days[3]!.payouts).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 640 }] });
      expect(after.week.total.count).toBe(figures.week.total.count + 2);
    });

    it("counts a status the spec does not list as processing, never as the journal's own pending (docs/decisions/tolerant-reader.md)", async () => {
      const profile = { ...PROFILE, id: 'p-unlisted' };
      await answered('O-13', WEEK + 5 * DAY, { amount: 10, status: 'pending', profile });
      await answered('O-14', WEEK + 5 * DAY + 1, { amount: 20, status: 'queued', profile });
      await answered('O-15', WEEK + 5 * DAY + 2, { amount: 30, status: 'completed', profile });
      const unlisted = await store.journal.overview({ profile, dayBoundaries: boundaries, now: WEEK + 7 * DAY - 1 });
      expect(unlisted.week.byStatus.filter((s) => s.count > 0).map((s) => [s.status, s.count])).toEqual([
        ['completed', 1],
        ['processing', 2],
      ]);
      expect(unlisted.week.total.count).toBe(3);
    });

    it('refuses a sum too large to show exactly', async () => {
      const profile = { ...PROFILE, id: 'p-huge' };
      await answered('O-10', WEEK + 4 * DAY, { amount: Number.MAX_SAFE_INTEGER - 1, profile });
      await answered('O-11', WEEK + 4 * DAY + 1, { amount: Number.MAX_SAFE_INTEGER - 1, profile });
      await expect(store.journal.overview({ profile, dayBoundaries: boundaries, now: WEEK + 7 * DAY - 1 })).rejects.toBeInstanceOf(OverviewOverflowError);
    });
  });

  describe('the export in pages', () => {
    const query = { profileId: 'p-export' };
    const profile = { ...PROFILE, id: 'p-export' };
    beforeAll(async () => {
      // Two entries share their creation time: the page's cursor keeps both.
      for (const [i, at] of [10, 20, 20, 30, 40].entries()) await answered(`E-${i}`, 50 * DAY + at, { profile, amount: 100 + i });
      await answered('E-other', 50 * DAY + 25, { amount: 1 });
    });

    it('reads every entry of the search once, newest first, however the pages fall', async () => {
      const all = (await store.journal.search(query, 0, 100)).rows.map((row) => row.id);
      expect(all).toHaveLength(5);
      for (const size of [1, 2, 3, 5, 10]) {
        const seen: string[] = [];
        let after = null;
        let pages = 0;
        do {
          const page = await store.journal.exportPage(query, after, size);
          seen.push(...page.rows.map((row) => row.id));
          after = page.next;
          pages += 1;
        } while (after !== null);
        expect(seen).toEqual(all);
        expect(pages).toBe(Math.floor(5 / size) + 1);
      }
      expect((await store.journal.exportPage({ profileId: 'nobody' }, null, 10)).rows).toEqual([]);
    });

    it('writes the same CSV whatever the page size, with the filters applied', async () => {
      const whole = await exportJournalCsv(store.journal, query, 'en');
      expect(whole.rows).toBe(5);
      expect(await exportJournalCsv(store.journal, query, 'en', 2)).toEqual(whole);
      const lines = whole.csv.trim().split('\r\n');
      expect(lines).toHaveLength(6);
      expect(lines.slice(1).map((line) => line.split(',')[8])).toEqual(['"E-4"', '"E-3"', '"E-2"', '"E-1"', '"E-0"']);
      expect((await exportJournalCsv(store.journal, { ...query, minAmount: 103 }, 'fr')).rows).toBe(2);
    });
  });

  describe('"refused, paid later"', () => {
    it('has nothing to mark "paid later" once a refused payout sent again is the same record; a payout is never written twice', async () => {
      const at = 60 * DAY;
      const paidBefore = await answered('L-1', at, { amount: 500 });
      // The journal is the guard: an id already paid is never written (so never sent) again.
      await expect(refused('L-1', at + 10)).rejects.toBeInstanceOf(ExternalIdKnown);
      const refusedId = await refused('L-2', at + 20);
      expect(await refused('L-2', at + 30)).toBe(refusedId);
      const lonely = await refused('L-3', at + 40);
      const paid = await answered('L-2', at + 50, { amount: 500, status: 'completed' });
      expect(paid.id).toBe(refusedId);
      const entry = async (id: string) => (await store.journal.getEntry(id))!;
      const marked = await store.journal.withPaidLater(await Promise.all([refusedId, lonely, paidBefore.id].map(entry)));
      expect(marked.map((row) => [row.id, row.paidLater ?? null])).toEqual([
        [refusedId, null],
        [lonely, null],
        [paidBefore.id, null],
      ]);
      const page = await store.journal.search({ externalId: 'L-2' }, 0, 10);
      expect(page.rows.map((row) => [row.state, row.status])).toEqual([['known', 'completed']]);
    });
  });
});
