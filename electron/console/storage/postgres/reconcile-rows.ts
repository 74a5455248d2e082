/**
 * A reconciliation's rows in a team workspace (../reconcile-rows-port.ts): the same reads and
 * writes as the SQLite journal's (../../reconcile/store.ts), on the workspace's tables (migration 3,
 * its index reconciliation_rows_by_category), each write one transaction. Support reconciles
 * (migration 7's grants on reconciliations and their rows; a new entry found by reconciliation is
 * written by the journal's follow-ups, ./follow-ups.ts).
 */
import type { ReconcileCategory } from '../../../../shared/api/reconcile';
import { toJournalTransaction, type EntryRow } from '../../journal/rows';
import { runDetailOf, summaryOf, toReportRow, type CategoryCount, type RunRow, type StoredRow } from '../../reconcile/store';
import type { JournalCandidate, ReconcileRows } from '../reconcile-rows-port';
import { inTransaction, type Queryable, type WorkspacePool } from './db';

/** Rows per page while the file's keys are read. */
const KEYS_PAGE = 5000;

const VERIFY_COUNTS = `SELECT count(*) AS total, COALESCE(sum(verified), 0) AS done FROM reconciliation_rows
  WHERE reconciliation_id = $1 AND (verified = 1 OR category IN ('still_processing', 'processing_recent'))`;

async function runRow(c: Queryable, id: string): Promise<RunRow | null> {
  const { rows } = await c.query<RunRow>(`SELECT * FROM reconciliations WHERE id = $1 AND status != 'importing'`, [id]);
  return rows[0] ?? null;
}

async function summary(c: Queryable, id: string) {
  const run = await runRow(c, id);
  if (!run) return null;
  const totals = await c.query<CategoryCount>(
    `SELECT category, count(*) AS count, COALESCE(sum(amount), 0)::bigint AS amount, COALESCE(sum(service_amount), 0)::bigint AS service_amount
     FROM reconciliation_rows WHERE reconciliation_id = $1 AND category IS NOT NULL GROUP BY category`,
    [id],
  );
  const verify = run.phase === 'verifying' ? (await c.query<{ total: number; done: number }>(VERIFY_COUNTS, [id])).rows[0]! : null;
  return summaryOf(run, totals.rows, verify && { total: Number(verify.total), done: Number(verify.done) });
}

/** `reconciliation_id = $1` and, when given, the category as $2. */
function rowsWhere(id: string, category: ReconcileCategory | undefined): { sql: string; params: unknown[] } {
  return category ? { sql: 'reconciliation_id = $1 AND category = $2', params: [id, category] } : { sql: 'reconciliation_id = $1', params: [id] };
}

export function workspaceReconcileRows(pool: WorkspacePool): ReconcileRows {
  return {
    async removeUnfinishedImports() {
      // A workspace's runs are saved in one transaction (./store.ts): none is left `importing`; a
      // run moved in from a desktop's journal might be.
      const { rowCount } = await pool.query(`DELETE FROM reconciliations WHERE status = 'importing'`);
      return rowCount ?? 0;
    },
    summary: (id) => summary(pool, id),
    async list(limit = 100) {
      const { rows } = await pool.query<{ id: string }>(`SELECT id FROM reconciliations WHERE status != 'importing' ORDER BY created_at DESC LIMIT $1`, [limit]);
      const found = [];
      for (const { id } of rows) {
        const one = await summary(pool, id);
        if (one) found.push(one);
      }
      return found;
    },
    async detail(id) {
      const run = await runRow(pool, id);
      return run ? runDetailOf(run) : null;
    },
    async progressCounts(id) {
      const checked = await pool.query<{ checked: number }>(
        `SELECT count(*) AS checked FROM reconciliation_rows WHERE reconciliation_id = $1 AND source = 'file' AND category IS NOT NULL`,
        [id],
      );
      const verify = (await pool.query<{ total: number; done: number }>(VERIFY_COUNTS, [id])).rows[0]!;
      return { checked: Number(checked.rows[0]!.checked), verify: { done: Number(verify.done), total: Number(verify.total) } };
    },
    async countRateLimitWait(id) {
      await pool.query('UPDATE reconciliations SET rate_limit_waits = rate_limit_waits + 1 WHERE id = $1', [id]);
    },
    async uncheckedRows(id, limit) {
      const { rows } = await pool.query<StoredRow>(`SELECT * FROM reconciliation_rows WHERE reconciliation_id = $1 AND category IS NULL ORDER BY row_number LIMIT $2`, [id, limit]);
      return rows;
    },
    async rowsToVerify(id, limit) {
      const { rows } = await pool.query<StoredRow>(
        `SELECT * FROM reconciliation_rows WHERE reconciliation_id = $1 AND category IN ('still_processing', 'processing_recent') AND verified = 0
         ORDER BY row_number LIMIT $2`,
        [id, limit],
      );
      return rows;
    },
    async reopenNotChecked(id) {
      await pool.query(`UPDATE reconciliation_rows SET category = NULL, detail = NULL WHERE reconciliation_id = $1 AND category = 'not_checked' AND source = 'file'`, [id]);
    },
    saveOutcomes: (id, outcomes, at) =>
      inTransaction(pool, async (c) => {
        if (outcomes.length > 0) {
          // Every row of the chunk in one statement (a round trip per row would cost more than the chunk).
          const o = outcomes.map(({ outcome }) => outcome);
          await c.query(
            `UPDATE reconciliation_rows r SET category = u.category, journal_id = u.journal_id, transaction_id = u.transaction_id,
               service_status = u.service_status, service_amount = u.service_amount, service_created_at = u.service_created_at,
               currency = u.currency, detail = u.detail, verified = GREATEST(r.verified, u.verified)
             FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::int[])
               AS u(row_number, category, journal_id, transaction_id, service_status, service_amount, service_created_at, currency, detail, verified)
             WHERE r.reconciliation_id = $1 AND r.row_number = u.row_number`,
            [
              id,
              outcomes.map((row) => row.rowNumber),
              o.map((x) => x.category),
              o.map((x) => x.journalId),
              o.map((x) => x.transactionId),
              o.map((x) => x.serviceStatus),
              o.map((x) => x.serviceAmount),
              o.map((x) => x.serviceCreatedAt),
              o.map((x) => x.currency),
              o.map((x) => x.detail),
              outcomes.map((row) => (row.verified ? 1 : 0)),
            ],
          );
        }
        await c.query('UPDATE reconciliations SET updated_at = $1 WHERE id = $2', [at, id]);
      }),
    async fileKeys(id) {
      const keys = new Set<string>();
      for (let after = 0; ; ) {
        const { rows } = await pool.query<{ row_number: number; kind: string; external_id: string }>(
          `SELECT row_number, kind, external_id FROM reconciliation_rows WHERE reconciliation_id = $1 AND source = 'file' AND row_number > $2 ORDER BY row_number LIMIT $3`,
          [id, after, KEYS_PAGE],
        );
        if (rows.length === 0) return keys;
        for (const row of rows) keys.add(`${row.kind}:${row.external_id}`);
        after = rows[rows.length - 1]!.row_number;
      }
    },
    async journalCandidates(profile, afterSeq, limit) {
      const { rows } = await pool.query<{ seq: number; id: string; kind: JournalCandidate['kind']; external_id: string | null; transaction_id: string | null; status: JournalCandidate['status']; amount: number; currency: string; created_at: number; tx_created: string | null }>(
        `SELECT seq, id, kind, external_id, transaction_id, status, amount, currency, created_at, transaction_json::jsonb ->> 'created_at' AS tx_created
         FROM entries WHERE profile_id = $1 AND environment = $2 AND state = 'known' AND seq > $3 ORDER BY seq LIMIT $4`,
        [profile.id, profile.environment, afterSeq, limit],
      );
      return rows.map((row) => ({
        seq: row.seq,
        journalId: row.id,
        kind: row.kind,
        externalId: row.external_id,
        transactionId: row.transaction_id,
        status: row.status,
        amount: row.amount,
        currency: row.currency,
        createdAt: row.tx_created ? Date.parse(row.tx_created) : row.created_at,
      }));
    },
    addUnknownToMerchant: (id, entries, at) =>
      inTransaction(pool, async (c) => {
        // The run's row locked first: two desktops finishing one run cannot number rows alike.
        await c.query('SELECT 1 FROM reconciliations WHERE id = $1 FOR UPDATE', [id]);
        const { rows } = await c.query<{ next: number }>('SELECT COALESCE(max(row_number), 0) + 1 AS next FROM reconciliation_rows WHERE reconciliation_id = $1', [id]);
        const next = rows[0]!.next;
        if (entries.length > 0) {
          await c.query(
            `INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, category, journal_id, transaction_id,
               service_status, service_amount, service_created_at, currency)
             SELECT $1, $2::int + n - 1, 'journal', x, k, 'unknown_to_merchant', j, t, s, a, d, cur
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::text[]) WITH ORDINALITY AS u(x, k, j, t, s, a, d, cur, n)`,
            [
              id,
              next,
              entries.map((e) => e.externalId),
              entries.map((e) => e.kind),
              entries.map((e) => e.journalId),
              entries.map((e) => e.transactionId),
              entries.map((e) => e.status),
              entries.map((e) => e.amount),
              entries.map((e) => e.createdAt),
              entries.map((e) => e.currency),
            ],
          );
        }
        await c.query('UPDATE reconciliations SET unknown_done = 1, updated_at = $1 WHERE id = $2', [at, id]);
      }),
    async pageRows(id, category, offset, limit) {
      const run = await runRow(pool, id);
      if (!run) throw new Error(`reconciliation ${id} does not exist`);
      const { sql, params } = rowsWhere(id, category);
      const n = params.length;
      const { rows } = await pool.query<StoredRow>(`SELECT * FROM reconciliation_rows WHERE ${sql} ORDER BY row_number LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, limit, offset]);
      const total = await pool.query<{ total: number }>(`SELECT count(*) AS total FROM reconciliation_rows WHERE ${sql}`, params);
      return { rows: rows.map((row) => toReportRow(row, run.currency)), total: Number(total.rows[0]!.total), offset, limit };
    },
    async rowsAfter(id, category, afterRow, limit) {
      const { sql, params } = rowsWhere(id, category);
      const n = params.length;
      const { rows } = await pool.query<StoredRow>(`SELECT * FROM reconciliation_rows WHERE ${sql} AND row_number > $${n + 1} ORDER BY row_number LIMIT $${n + 2}`, [...params, afterRow, limit]);
      return rows;
    },
    async entryFor(profile, kind, externalId) {
      const { rows } = await pool.query<EntryRow>(
        `SELECT * FROM entries WHERE external_id = $1 AND kind = $2 AND profile_id = $3 AND environment = $4
         ORDER BY (state = 'known') DESC, created_at DESC LIMIT 1`,
        [externalId, kind, profile.id, profile.environment],
      );
      return rows[0] ? toJournalTransaction(rows[0]) : null;
    },
  };
}
