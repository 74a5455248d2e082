/**
 * The journal's whole-screen reads in a team workspace (../journal-reads-port.ts): the Overview,
 * History's export in pages, "refused, paid later". The Overview reads what the SQLite journal
 * reads (../../journal/overview.ts), on the indexes of workspace migration 4: every day of the
 * week in one statement, each day a range of the covering index entries_overview (an index-only
 * scan: no table rows read), the entries counted twice on the partial index entries_adopted, the
 * stuck list on the partial index entries_processing; all in one REPEATABLE READ snapshot.
 */
import { STUCK_AFTER_MINUTES, STUCK_LIST_LIMIT, type OverviewGroup } from '../../../../shared/api';
import { assembleOverview, lessAdoptedTwice, type GroupRow } from '../../journal/overview';
import { overviewStatusSql, toJournalTransaction, type EntryRow } from '../../journal/rows';
import type { JournalReads } from '../journal-reads-port';
import type { WorkspacePool } from './db';
import { paidLaterWorkspace } from './paid-later';
import { whereClause } from './search';

/** $1 profile, $2 environment, $3 the days' starts, $4 their ends: one group per day and kind, status, code, currency. */
const GROUPS_SELECT = `SELECT d.day::int AS day, e.kind,
    ${overviewStatusSql('e.')} AS status,
    e.failed_code AS "failedCode", e.currency, count(*)::text AS count, sum(e.amount)::text AS amount
  FROM unnest($3::bigint[], $4::bigint[]) WITH ORDINALITY AS d(from_at, to_at, day)
  JOIN entries e ON e.profile_id = $1 AND e.environment = $2 AND e.created_at >= d.from_at AND e.created_at < d.to_at AND e.state <> 'rejected'`;
export const WORKSPACE_GROUPS_SQL = `${GROUPS_SELECT} GROUP BY 1, 2, 3, 4, 5`;
/** An attempt refused as "already exists" that adopted a transaction an earlier entry holds: counted once, with that entry. */
export const WORKSPACE_ADOPTED_TWICE_SQL = `${GROUPS_SELECT} AND e.already_sent_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM entries first WHERE first.transaction_id = e.transaction_id AND first.seq < e.seq)
  GROUP BY 1, 2, 3, 4, 5`;
const STUCK_WHERE = `WHERE profile_id = $1 AND environment = $2 AND created_at < $3 AND state = 'known' AND status = 'processing'`;
export const WORKSPACE_STUCK_ROWS_SQL = `SELECT * FROM entries ${STUCK_WHERE} ORDER BY created_at, seq LIMIT $4`;
export const WORKSPACE_STUCK_COUNT_SQL = `SELECT count(*) AS n FROM entries ${STUCK_WHERE}`;

type DayGroupRow = Omit<GroupRow, 'count' | 'amount'> & { day: number; count: string; amount: string };

/** Each day's rows (day numbers from 1), with exact integers: a numeric sum comes back as text. */
function byDay(rows: DayGroupRow[], days: number): GroupRow[][] {
  const out: GroupRow[][] = Array.from({ length: days }, () => []);
  for (const { day, count, amount, ...group } of rows) out[day - 1]!.push({ ...group, count: BigInt(count), amount: BigInt(amount) });
  return out;
}

export function workspaceReads(pool: WorkspacePool): JournalReads {
  return {
    async overview(scope) {
      const { profile, dayBoundaries } = scope;
      const starts = dayBoundaries.slice(0, -1);
      const ends = dayBoundaries.slice(1);
      const client = await pool.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const dayParams = [profile.id, profile.environment, starts, ends];
        const groups = await client.query<DayGroupRow>(WORKSPACE_GROUPS_SQL, dayParams);
        const twice = await client.query<DayGroupRow>(WORKSPACE_ADOPTED_TWICE_SQL, dayParams);
        const before = scope.now - STUCK_AFTER_MINUTES * 60_000;
        const stuckRows = await client.query<EntryRow>(WORKSPACE_STUCK_ROWS_SQL, [profile.id, profile.environment, before, STUCK_LIST_LIMIT]);
        const stuckCount = await client.query<{ n: number }>(WORKSPACE_STUCK_COUNT_SQL, [profile.id, profile.environment, before]);
        await client.query('COMMIT');
        const twiceByDay = byDay(twice.rows, starts.length);
        const perDay: OverviewGroup[][] = byDay(groups.rows, starts.length).map((rows, i) => lessAdoptedTwice(rows, twiceByDay[i]!));
        return assembleOverview(scope, perDay, { rows: stuckRows.rows.map(toJournalTransaction), total: Number(stuckCount.rows[0]!.n) });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },

    async exportPage(query, after, limit) {
      const { sql, params } = whereClause(query);
      const n = params.length;
      const past = after ? `${sql ? `${sql} AND` : 'WHERE'} (created_at, seq) < ($${n + 1}::bigint, $${n + 2}::bigint)` : sql;
      const values = after ? [...params, after.createdAt, after.seq] : params;
      const { rows } = await pool.query<EntryRow>(`SELECT * FROM entries ${past} ORDER BY created_at DESC, seq DESC LIMIT $${values.length + 1}`, [...values, limit]);
      const last = rows.at(-1);
      return { rows: rows.map(toJournalTransaction), next: rows.length === limit && last ? { createdAt: last.created_at, seq: last.seq } : null };
    },

    withPaidLater: (entries) => paidLaterWorkspace(pool, entries),
  };
}
