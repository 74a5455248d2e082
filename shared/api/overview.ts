/**
 * The Overview's contract: the input of `overview:get` (the user's day boundaries, computed where
 * the user's time zone is known, in the renderer) and the figures main answers from the journal.
 */
import { z } from 'zod';
import type { Environment, FailedCode, TransactionStatus } from '../contract/codes';
import type { JournalState, JournalTransaction, TransactionKind } from './types';
import { OVERVIEW_DAYS } from './plain';

export { OVERVIEW_DAYS };
/** A transaction still `processing` this long after it was created is listed to Verify. */
export const STUCK_AFTER_MINUTES = 10;
/** At most this many stuck transactions are listed (the total is still counted). */
export const STUCK_LIST_LIMIT = 50;

const HOUR = 3_600_000;

/**
 * `dayBoundaries`: the start of each of the 7 days in the user's time zone, oldest first, then the
 * start of tomorrow (8 ISO instants). A local day lasts 23 to 25 hours across a daylight-saving
 * change, so each gap must be between 22 and 26 hours.
 */
export const overviewInputSchema = z
  .strictObject({
    dayBoundaries: z.array(z.iso.datetime({ offset: true })).length(OVERVIEW_DAYS + 1),
  })
  .superRefine((input, ctx) => {
    const times = input.dayBoundaries.map((iso) => Date.parse(iso));
    for (let i = 1; i < times.length; i += 1) {
      const gap = times[i]! - times[i - 1]!;
      if (!(gap >= 22 * HOUR && gap <= 26 * HOUR)) {
        ctx.addIssue({ code: 'custom', path: ['dayBoundaries', i], message: 'must be the start of the day after the previous boundary (22 to 26 hours later)' });
      }
    }
  });
export type OverviewInput = z.infer<typeof overviewInputSchema>;

/**
 * A transaction's status, or the console's state of an entry that may have created one (in flight,
 * outcome unknown). A refused or never-sent attempt created nothing: the Overview does not count it.
 */
export type OverviewStatus = TransactionStatus | Exclude<JournalState, 'known' | 'rejected'>;
export const OVERVIEW_STATUSES: readonly OverviewStatus[] = ['completed', 'failed', 'cancelled', 'processing', 'initiated', 'pending', 'outcome_unknown'];

/** Money of one currency, an integer in the smallest unit. */
export interface CurrencyAmount {
  currency: string;
  amount: number;
}

export interface CountAndAmounts {
  count: number;
  /** One sum per currency (almost always one), largest first. */
  amounts: CurrencyAmount[];
}

/** One row of the journal grouped for the Overview (what the query returns). */
export interface OverviewGroup {
  kind: TransactionKind;
  status: OverviewStatus;
  failedCode: string | null;
  currency: string;
  count: number;
  amount: number;
}

export interface OverviewSummary {
  total: CountAndAmounts;
  /** Every status of OVERVIEW_STATUSES, in that order, zeros included. */
  byStatus: ({ status: OverviewStatus } & CountAndAmounts)[];
  byKind: ({ kind: TransactionKind } & CountAndAmounts)[];
  /** completed / (completed + failed + cancelled): among the transactions that reached a final status. */
  success: { completed: number; final: number; rate: number | null };
  /** Failed transactions by `failed_code`, most frequent first (`null`: the service gave no code). */
  failures: ({ code: FailedCode | string | null; /** How many of them are payouts (their sentence speaks of the recipient). */ payouts?: number } & CountAndAmounts)[];
}

export interface OverviewDay {
  /** The day's start and end (exclusive), as the renderer sent them. */
  start: string;
  end: string;
  payments: CountAndAmounts;
  payouts: CountAndAmounts;
  failed: number;
}

export interface OverviewResult {
  profile: { id: string; name: string; environment: Environment };
  /** Main's clock when the figures were read. */
  generatedAt: string;
  today: OverviewSummary;
  week: OverviewSummary;
  /** Oldest first, OVERVIEW_DAYS of them; the last is today. */
  days: OverviewDay[];
  /** Still `processing` more than STUCK_AFTER_MINUTES after creation, oldest first. */
  stuck: { rows: JournalTransaction[]; total: number; olderThanMinutes: number };
  /** Whose journal the figures are: the team's on a workspace (every login's entries of the profile), else this desktop's (set by `overview:get`). */
  journal?: 'team' | 'desktop';
}

function addAmount(target: CurrencyAmount[], currency: string, amount: number): void {
  const found = target.find((item) => item.currency === currency);
  if (found) found.amount += amount;
  else target.push({ currency, amount });
}

function sortAmounts(list: CountAndAmounts): CountAndAmounts {
  list.amounts.sort((a, b) => b.amount - a.amount || a.currency.localeCompare(b.currency));
  return list;
}

const empty = (): CountAndAmounts => ({ count: 0, amounts: [] });

/** Adds grouped journal rows up into the Overview's figures (pure: main and tests share it). */
export function summariseGroups(groups: readonly OverviewGroup[]): OverviewSummary {
  const total = empty();
  const byStatus = new Map<OverviewStatus, CountAndAmounts>(OVERVIEW_STATUSES.map((status) => [status, empty()]));
  const byKind = new Map<TransactionKind, CountAndAmounts>([
    ['payment', empty()],
    ['payout', empty()],
  ]);
  const failures = new Map<string | null, CountAndAmounts>();
  const failedPayouts = new Map<string | null, number>();
  for (const group of groups) {
    for (const target of [total, byStatus.get(group.status), byKind.get(group.kind)]) {
      if (!target) continue;
      target.count += group.count;
      addAmount(target.amounts, group.currency, group.amount);
    }
    if (group.status === 'failed') {
      const target = failures.get(group.failedCode) ?? empty();
      target.count += group.count;
      addAmount(target.amounts, group.currency, group.amount);
      failures.set(group.failedCode, target);
      if (group.kind === 'payout') failedPayouts.set(group.failedCode, (failedPayouts.get(group.failedCode) ?? 0) + group.count);
    }
  }
  const count = (status: OverviewStatus) => byStatus.get(status)!.count;
  const completed = count('completed');
  const final = completed + count('failed') + count('cancelled');
  return {
    total: sortAmounts(total),
    byStatus: OVERVIEW_STATUSES.map((status) => ({ status, ...sortAmounts(byStatus.get(status)!) })),
    byKind: [...byKind].map(([kind, figures]) => ({ kind, ...sortAmounts(figures) })),
    success: { completed, final, rate: final === 0 ? null : completed / final },
    failures: [...failures]
      .map(([code, figures]) => ({ code, payouts: failedPayouts.get(code) ?? 0, ...sortAmounts(figures) }))
      .sort((a, b) => b.count - a.count || String(a.code).localeCompare(String(b.code))),
  };
}

/** One day's volume for the chart: counts and amounts by kind, and how many failed. */
export function dayVolume(start: string, end: string, groups: readonly OverviewGroup[]): OverviewDay {
  const day: OverviewDay = { start, end, payments: empty(), payouts: empty(), failed: 0 };
  for (const group of groups) {
    const target = group.kind === 'payment' ? day.payments : day.payouts;
    target.count += group.count;
    addAmount(target.amounts, group.currency, group.amount);
    if (group.status === 'failed') day.failed += group.count;
  }
  sortAmounts(day.payments);
  sortAmounts(day.payouts);
  return day;
}
