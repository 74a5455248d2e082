/**
 * The Overview's figures, read from the journal: one profile's seven days of transactions, grouped
 * by kind, status, failed code and currency, and the transactions still processing after 10 minutes.
 *
 * Each day is one range of the covering index `entries_overview` (profile, environment, created_at,
 * then every column the grouping reads), so a day costs a walk over that day's index entries and no
 * table lookups; a million-row journal is never scanned. The stuck list reads the partial index
 * `entries_processing`, which holds only transactions still processing.
 */
import {
  dayVolume,
  STUCK_AFTER_MINUTES,
  STUCK_LIST_LIMIT,
  summariseGroups,
  type OverviewGroup,
  type OverviewResult,
  type OverviewStatus,
} from '../../../shared/api';
import type Database from 'better-sqlite3';
import type { JournalTransaction } from '../../../shared/api';
import type { Environment } from '../../../shared/contract';
import type { JournalDb } from './entries';
import { overviewStatusSql, toJournalTransaction, type EntryRow } from './rows';

export interface OverviewScope {
  profile: { id: string; name: string; environment: Environment };
  /** Start of each day in the user's time zone (ms), oldest first, then the start of tomorrow. */
  dayBoundaries: readonly number[];
  /** The console's clock (ms): "processing for more than 10 minutes" is measured from it. */
  now: number;
}

/** A sum too large for a JavaScript number would show a wrong figure: refuse it instead. */
export class OverviewOverflowError extends Error {
  constructor() {
    super('a journal sum exceeds the largest exact number');
    this.name = 'OverviewOverflowError';
  }
}

/**
 * One profile's journal between two instants, grouped (exported for the query-plan test and the
 * bench). Transactions the service created (or may have: in flight, outcome unknown); a refused or
 * never-sent attempt (`rejected`) created nothing and is no transaction. Read from the covering index
 * entries_overview alone.
 */
const GROUPS_SELECT = `
  SELECT kind,
         ${overviewStatusSql('')} AS status,
         failed_code AS failedCode, currency, COUNT(*) AS count, SUM(amount) AS amount`;
export const OVERVIEW_GROUPS_SQL = `${GROUPS_SELECT}
  FROM entries
  WHERE profile_id = ? AND environment = ? AND created_at >= ? AND created_at < ? AND state <> 'rejected'
  GROUP BY 1, 2, 3, 4`;

/**
 * The same groups of the entries counted twice: an attempt the service refused as "already exists"
 * that adopted a transaction an earlier entry of this journal holds is that transaction, counted once
 * (with its first entry); subtracted from OVERVIEW_GROUPS_SQL's. The partial index entries_adopted
 * holds only adopted entries (journal migration 9), so the covering read above stays as it was.
 */
export const ADOPTED_TWICE_SQL = `${GROUPS_SELECT}
  FROM entries INDEXED BY entries_adopted
  WHERE profile_id = ? AND environment = ? AND created_at >= ? AND created_at < ? AND already_sent_at IS NOT NULL AND state <> 'rejected'
    AND EXISTS (SELECT 1 FROM entries first INDEXED BY entries_by_transaction_id
                WHERE first.transaction_id = entries.transaction_id AND first.seq < entries.seq)
  GROUP BY 1, 2, 3, 4`;

const STUCK_WHERE = `WHERE profile_id = ? AND environment = ? AND created_at < ? AND state = 'known' AND status = 'processing'`;
// INDEXED BY: without statistics the planner would pick entries_by_status and read every profile's processing rows.
export const STUCK_ROWS_SQL = `SELECT * FROM entries INDEXED BY entries_processing ${STUCK_WHERE} ORDER BY created_at, seq LIMIT ?`;
export const STUCK_COUNT_SQL = `SELECT COUNT(*) AS n FROM entries ${STUCK_WHERE}`;

/** Prepared once per database: compiling the SQL costs more than a small day's grouping. */
const prepared = new WeakMap<JournalDb, { groups: Database.Statement; adoptedTwice: Database.Statement; stuckRows: Database.Statement; stuckCount: Database.Statement }>();
function statements(db: JournalDb) {
  let found = prepared.get(db);
  if (!found) {
    found = { groups: db.prepare(OVERVIEW_GROUPS_SQL).safeIntegers(true), adoptedTwice: db.prepare(ADOPTED_TWICE_SQL).safeIntegers(true), stuckRows: db.prepare(STUCK_ROWS_SQL), stuckCount: db.prepare(STUCK_COUNT_SQL) };
    prepared.set(db, found);
  }
  return found;
}

/** One group as a store reads it: count and sum as exact integers (a sum may pass 2^53). */
export interface GroupRow {
  kind: OverviewGroup['kind'];
  status: OverviewStatus;
  failedCode: string | null;
  currency: string;
  count: bigint;
  amount: bigint;
}

function exact(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw new OverviewOverflowError();
  return Number(value);
}

/**
 * A day's groups less the entries counted twice (ADOPTED_TWICE_SQL's groups), as numbers; shared
 * by both stores (the workspace's reads, ../storage/postgres/reads.ts) so they count alike.
 */
export function lessAdoptedTwice(rows: readonly GroupRow[], twice: readonly GroupRow[]): OverviewGroup[] {
  const keyOf = (row: GroupRow) => `${row.kind}|${row.status}|${row.failedCode ?? ''}|${row.currency}`;
  const extra = new Map(twice.map((row) => [keyOf(row), row]));
  return rows.flatMap((row) => {
    const less = extra.get(keyOf(row));
    return less ? (row.count === less.count ? [] : [{ ...row, count: row.count - less.count, amount: row.amount - less.amount }]) : [row];
  }).map((row) => ({
    kind: row.kind,
    status: row.status,
    failedCode: row.failedCode,
    currency: row.currency,
    count: exact(row.count),
    amount: exact(row.amount),
  }));
}

/** The grouped rows of one profile between two instants (`from` inclusive, `to` exclusive). */
export function overviewGroups(db: JournalDb, profile: { id: string; environment: Environment }, from: number, to: number): OverviewGroup[] {
  const found = statements(db);
  const rows = found.groups.all(profile.id, profile.environment, from, to) as GroupRow[];
  const twice = found.adoptedTwice.all(profile.id, profile.environment, from, to) as GroupRow[];
  return lessAdoptedTwice(rows, twice);
}

/** Transactions of the profile still `processing` and created before `createdBefore`, oldest first. */
export function stuckProcessing(db: JournalDb, profile: { id: string; environment: Environment }, createdBefore: number, limit = STUCK_LIST_LIMIT) {
  const rows = statements(db).stuckRows.all(profile.id, profile.environment, createdBefore, limit) as EntryRow[];
  const total = (statements(db).stuckCount.get(profile.id, profile.environment, createdBefore) as { n: number }).n;
  return { rows: rows.map(toJournalTransaction), total };
}

/** Everything the Overview shows, read in one SQLite read transaction (one consistent snapshot). */
export function readOverview(db: JournalDb, scope: OverviewScope): OverviewResult {
  const read = db.transaction(() => {
    const { dayBoundaries, profile } = scope;
    const perDay: OverviewGroup[][] = [];
    for (let i = 0; i + 1 < dayBoundaries.length; i += 1) perDay.push(overviewGroups(db, profile, dayBoundaries[i]!, dayBoundaries[i + 1]!));
    const stuck = stuckProcessing(db, profile, scope.now - STUCK_AFTER_MINUTES * 60_000);
    return { perDay, stuck };
  });
  const { perDay, stuck } = read.deferred();
  return assembleOverview(scope, perDay, stuck);
}

/** What the Overview shows from each day's groups and the stuck list (both stores). */
export function assembleOverview(scope: OverviewScope, perDay: OverviewGroup[][], stuck: { rows: JournalTransaction[]; total: number }): OverviewResult {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    profile: scope.profile,
    generatedAt: iso(scope.now),
    today: summariseGroups(perDay.at(-1) ?? []),
    week: summariseGroups(perDay.flat()),
    days: perDay.map((groups, i) => dayVolume(iso(scope.dayBoundaries[i]!), iso(scope.dayBoundaries[i + 1]!), groups)),
    stuck: { ...stuck, olderThanMinutes: STUCK_AFTER_MINUTES },
  };
}
