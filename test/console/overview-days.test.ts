/**
 * The Overview's queries on a real journal file with rows written straight in: which day an entry
 * at a boundary belongs to, a time zone east of UTC, a 23-hour day (daylight saving), the stuck
 * list's order and limit, and the query plans (each query reads its index, never the table scan).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJournal, type JournalDb } from '../../electron/console/journal/entries';
import { ADOPTED_TWICE_SQL, OVERVIEW_GROUPS_SQL, readOverview, STUCK_COUNT_SQL, STUCK_ROWS_SQL, stuckProcessing } from '../../electron/console/journal/overview';
import { tempDir } from './helpers';

const HOUR = 3_600_000;
const profile = { id: 'p1', name: 'Shop', environment: 'sandbox' as const };

let dir: string;
let db: JournalDb;
let serial = 0;

beforeEach(() => {
  dir = tempDir('paydesk-overview-');
  db = openJournal(join(dir, 'journal.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function insert(at: number, fields: { kind?: string; state?: string; status?: string | null; failedCode?: string | null; amount?: number; currency?: string; profileId?: string } = {}): string {
  serial += 1;
  const id = `entry-${serial}`;
  db.prepare(
    `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, status, failed_code, amount, currency, phone_number,
       payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at)
     VALUES (?, ?, 'Shop', 'sandbox', ?, ?, ?, ?, ?, ?, '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'a@b.c', ?, ?)`,
  ).run(id, fields.profileId ?? 'p1', fields.kind ?? 'payment', fields.state ?? 'known', fields.status === undefined ? 'completed' : fields.status, fields.failedCode ?? null, fields.amount ?? 1000, fields.currency ?? 'XAF', at, at);
  return id;
}

/** Seven days of `hours` hours each (a 23-hour day where given), starting at `start`. */
function boundaries(start: number, dayHours: number[] = [24, 24, 24, 24, 24, 24, 24]): number[] {
  const result = [start];
  for (const hours of dayHours) result.push(result.at(-1)! + hours * HOUR);
  return result;
}

describe('Overview days', () => {
  it('counts an entry at the start of a day in that day, and leaves out the instant the week ends and anything before it', () => {
    // Douala (UTC+1): local midnight of 2026-11-17 is 23:00 UTC on the 16th.
    const days = boundaries(Date.UTC(2026, 10, 16, 23));
    insert(days[0]! - 1); // 22:59:59.999 UTC on the 16th: the day before the week, locally
    insert(days[0]!, { amount: 100 }); // local midnight: first day
    insert(days[6]! - 1, { amount: 200 }); // last instant of day 6 (yesterday)
    insert(days[6]!, { kind: 'payout', amount: 300 }); // today's first instant
    insert(Date.UTC(2026, 10, 23, 23, 30), { amount: 400 }); // 23:30 UTC on the 23rd = 00:30 local on the 24th: not in the week
    insert(days[7]!, { amount: 500 }); // start of tomorrow: not in the week
    const result = readOverview(db, { profile, dayBoundaries: days, now: days[6]! + HOUR });
    expect(result.days.map((day) => day.payments.count + day.payouts.count)).toEqual([1, 0, 0, 0, 0, 1, 1]);
    expect(result.days[0]!.payments.amounts).toEqual([{ currency: 'XAF', amount: 100 }]);
    expect(result.days[5]!.payments.amounts).toEqual([{ currency: 'XAF', amount: 200 }]);
    expect(result.today.byKind).toEqual([
      { kind: 'payment', count: 0, amounts: [] },
      { kind: 'payout', count: 1, amounts: [{ currency: 'XAF', amount: 300 }] },
    ]);
    expect(result.week.total).toEqual({ count: 3, amounts: [{ currency: 'XAF', amount: 600 }] });
    expect(result.days[0]!.start).toBe('2026-11-16T23:00:00.000Z');
  });

  it('follows a 23-hour day (clocks forward) without losing or double-counting the hour', () => {
    // Paris, 2026-03-29: clocks go from 02:00 to 03:00; that local day lasts 23 hours.
    const days = boundaries(Date.UTC(2026, 2, 25, 23), [24, 24, 24, 24, 23, 24, 24]);
    insert(days[4]! + 22 * HOUR + 59 * 60_000); // 23:59 local on the 29th
    insert(days[5]!); // 00:00 local on the 30th
    const result = readOverview(db, { profile, dayBoundaries: days, now: days[7]! });
    expect(result.days.map((day) => day.payments.count)).toEqual([0, 0, 0, 0, 1, 1, 0]);
  });

  it('keeps currencies apart and names failures by code, most frequent first', () => {
    const days = boundaries(Date.UTC(2026, 10, 17));
    insert(days[6]! + 1, { amount: 5000 });
    insert(days[6]! + 2, { amount: 1250, currency: 'USD' });
    insert(days[6]! + 3, { status: 'failed', failedCode: 'EXPIRED', amount: 10 });
    insert(days[6]! + 4, { status: 'failed', failedCode: 'EXPIRED', amount: 20 });
    insert(days[6]! + 5, { status: 'failed', failedCode: null, amount: 40 });
    insert(days[6]! + 6, { state: 'outcome_unknown', status: null, amount: 80 });
    insert(days[6]! + 7, { profileId: 'p2', amount: 99 });
    const { today } = readOverview(db, { profile, dayBoundaries: days, now: days[7]! });
    expect(today.total).toEqual({ count: 6, amounts: [{ currency: 'XAF', amount: 5150 }, { currency: 'USD', amount: 1250 }] });
    expect(today.failures).toEqual([
      { code: 'EXPIRED', count: 2, payouts: 0, amounts: [{ currency: 'XAF', amount: 30 }] },
      { code: null, count: 1, payouts: 0, amounts: [{ currency: 'XAF', amount: 40 }] },
    ]);
    expect(today.byStatus.find((s) => s.status === 'outcome_unknown')!.count).toBe(1);
    expect(today.success).toEqual({ completed: 2, final: 5, rate: 0.4 });
  });

  it('lists stuck transactions oldest first, at most the limit, with the full count', () => {
    const now = Date.UTC(2026, 10, 23, 12);
    const ids = [30, 20, 15, 11].map((minutes) => insert(now - minutes * 60_000, { status: 'processing' }));
    insert(now - 10 * 60_000, { status: 'processing' }); // exactly 10 minutes: not more than 10
    insert(now - 60 * 60_000, { status: 'completed' });
    insert(now - 60 * 60_000, { status: 'processing', profileId: 'p2' });
    const stuck = stuckProcessing(db, profile, now - 10 * 60_000, 3);
    expect(stuck.total).toBe(4);
    expect(stuck.rows.map((row) => row.id)).toEqual(ids.slice(0, 3));
  });

  it('reads each query from its index (EXPLAIN QUERY PLAN), never by scanning the table', () => {
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');
    const groups = plan(OVERVIEW_GROUPS_SQL, 'p1', 'sandbox', 0, 1);
    expect(groups).toContain('USING COVERING INDEX entries_overview (profile_id=? AND environment=? AND created_at>? AND created_at<?)');
    const stuck = `${plan(STUCK_ROWS_SQL, 'p1', 'sandbox', 0, 50)} | ${plan(STUCK_COUNT_SQL, 'p1', 'sandbox', 0)}`;
    expect(stuck).toContain('USING INDEX entries_processing');
    const adoptedTwice = plan(ADOPTED_TWICE_SQL, 'p1', 'sandbox', 0, 1);
    expect(adoptedTwice).toContain('USING INDEX entries_adopted');
    expect(`${groups} ${stuck} ${adoptedTwice}`).not.toMatch(/SCAN entries(?! USING)/);
  });
});
