/**
 * The Bulk payouts screens' part of the port (../batch-drafts-port.ts) in a team workspace: the
 * same readings as the SQLite store (../../batch/store.ts, identity.ts, adopted.ts) in
 * PostgreSQL's SQL, with the journal's own functions for what follows the reads (identity.ts's
 * summaries), so both stores show the same figures. A draft's edit is one transaction under the
 * batch's row lock, refused once the batch is not a draft (a confirm waits for it, or it finds the
 * batch confirmed). Who may edit is the database's: finance writes batches and rows, support and
 * admin only read them (migration 7; test/storage/batch-drafts-roles.test.ts).
 */
import type { BatchRowFilter, BatchRowValues, BatchState, EarlierImport, RehearsalSummary } from '../../../../shared/api';
import type { FieldErrors } from '../../../../shared/contract';
import { FIXED_COPY_CANDIDATES, firstIdsByRow, fixedCopyMatch, groupRetries, summarizeSentEarlier, type CandidateRow, type SentRow } from '../../batch/identity';
import { adoptedDiffers } from '../../journal/rows';
import type { BatchDraftsPort, RetryEntry } from '../batch-drafts-port';
import { countRows } from './batches';
import { insertRows, ROWS_SQL, toRow } from './batch-rows';
import { inTransaction, type WorkspacePool } from './db';

type RowRecord = Parameters<typeof toRow>[0];

/** Each row list's condition on a row of ROWS_SQL (as ../../batch/store.ts FILTER_SQL; keep in step with BATCH_ROW_FILTERS). */
const FILTER_SQL: Record<BatchRowFilter, string> = {
  all: 'true',
  invalid: 'request IS NULL',
  duplicates: "duplicates != '[]'",
  wouldFail: "(rehearsal::jsonb -> 'wouldFail') = 'true'::jsonb",
  failed: "row_state = 'rejected' OR (row_state = 'accepted' AND e_status IN ('failed', 'cancelled'))",
  unknown: "row_state = 'unknown'",
};

/** ../../batch/identity.ts SENT_SQL: a draft's valid rows whose external id an entry holds as sent, a row's best entry first. */
const SENT_SQL = `SELECT br.row_number AS "rowNumber", br.external_id AS "externalId", e.batch_id AS "batchId", e.state, e.status
  FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
  JOIN entries e ON e.external_id = br.external_id
  WHERE b.id = $1 AND br.request IS NOT NULL AND e.kind = 'payout' AND e.environment = b.environment
    AND (e.state IN ('known', 'pending') OR (e.state = 'outcome_unknown' AND e.resolution IS NULL))
  ORDER BY br.row_number, (e.state = 'known') DESC, e.created_at DESC, e.seq DESC`;

const iso = (ms: number) => new Date(ms).toISOString();

export function workspaceBatchDrafts(pool: WorkspacePool): BatchDraftsPort {
  return {
    async rows(id) {
      const { rows } = await pool.query<RowRecord>(`${ROWS_SQL} WHERE b.id = $1 ORDER BY br.row_number`, [id]);
      return rows.map(toRow);
    },
    async rowsPage(id, filter, offset, limit) {
      const kept = `SELECT * FROM (${ROWS_SQL} WHERE b.id = $1) r WHERE ${FILTER_SQL[filter]}`;
      const { rows: counted } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM (${kept}) k`, [id]);
      const total = counted[0]?.n ?? 0;
      if (offset >= total) return { total, rows: [] };
      const { rows } = await pool.query<RowRecord>(`${kept} ORDER BY row_number LIMIT $2 OFFSET $3`, [id, limit, offset]);
      return { total, rows: rows.map(toRow) };
    },
    async rowsByNumber(id, rowNumbers) {
      if (rowNumbers.length === 0) return [];
      const { rows } = await pool.query<RowRecord>(`${ROWS_SQL} WHERE b.id = $1 AND br.row_number = ANY($2::int[]) ORDER BY br.row_number`, [id, [...rowNumbers]]);
      return rows.map(toRow);
    },
    async progressCounts(id) {
      const { rows } = await pool.query<{ state: BatchState }>('SELECT state FROM batches WHERE id = $1', [id]);
      return rows[0] ? { state: rows[0].state, counts: (await countRows(pool, id, false)).counts } : null;
    },
    async rowInputs(id) {
      const { rows } = await pool.query<{ row_number: number; cells: string; errors: string }>(
        'SELECT br.row_number, br.cells, br.errors FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = $1 ORDER BY br.row_number',
        [id],
      );
      return rows.map((row) => ({ rowNumber: row.row_number, values: JSON.parse(row.cells) as BatchRowValues, errors: JSON.parse(row.errors) as FieldErrors }));
    },
    replaceDraftRows: (id, rows, at) =>
      inTransaction(pool, async (c) => {
        // Locked first: a confirm (or another desktop's edit) waits for this one, or this one finds it no longer a draft.
        const { rows: found } = await c.query<{ seq: number; state: BatchState }>('SELECT seq, state FROM batches WHERE id = $1 FOR UPDATE', [id]);
        const batch = found[0];
        if (!batch || batch.state !== 'draft') throw new Error(`batch ${id} is not a draft`);
        // A retry draft's links to the payouts its rows retry survive the edit (same row numbers).
        const { rows: linked } = await c.query<{ row_number: number; retry_of: string }>('SELECT row_number, retry_of FROM batch_rows WHERE batch_seq = $1 AND retry_of IS NOT NULL', [batch.seq]);
        const links = new Map(linked.map((row) => [row.row_number, row.retry_of]));
        await c.query('DELETE FROM batch_rows WHERE batch_seq = $1', [batch.seq]);
        await insertRows(c, batch.seq, rows.map((row) => ({ ...row, retryOf: links.get(row.rowNumber) })));
        await c.query('UPDATE batches SET updated_at = $1 WHERE seq = $2', [at, batch.seq]);
      }),
    async rehearsal(id) {
      const { rows } = await pool.query<{ rehearsal: string | null }>('SELECT rehearsal FROM batches WHERE id = $1', [id]);
      const text = rows[0]?.rehearsal;
      return text ? (JSON.parse(text) as RehearsalSummary) : null;
    },
    saveRehearsal: (id, summary, results, at) =>
      inTransaction(pool, async (c) => {
        const { rows } = await c.query<{ seq: number }>('SELECT seq FROM batches WHERE id = $1 FOR UPDATE', [id]);
        const seq = rows[0]?.seq;
        if (seq === undefined) return;
        await c.query('UPDATE batch_rows SET rehearsal = NULL WHERE batch_seq = $1 AND rehearsal IS NOT NULL', [seq]);
        const entries = [...results];
        await c.query(
          `UPDATE batch_rows br SET rehearsal = r.result FROM unnest($2::int[], $3::text[]) AS r(row_number, result)
           WHERE br.batch_seq = $1 AND br.row_number = r.row_number`,
          [seq, entries.map(([rowNumber]) => rowNumber), entries.map(([, result]) => JSON.stringify(result))],
        );
        await c.query('UPDATE batches SET rehearsal = $1, updated_at = $2 WHERE seq = $3', [JSON.stringify(summary), at, seq]);
      }),
    async adoptedDifferingCount(id) {
      // Only adopted rows are read (a handful at most), not the batch's 10,000.
      const { rows } = await pool.query<{ request: string | null; transaction_json: string | null }>(
        `SELECT br.request, e.transaction_json FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq JOIN entries e ON e.id = br.journal_id
         WHERE b.id = $1 AND (e.already_sent_at IS NOT NULL OR e.batch_id IS DISTINCT FROM b.id)`,
        [id],
      );
      return rows.filter((row) => adoptedDiffers(row.request, row.transaction_json).adoptedDiffers !== undefined).length;
    },
    async sentEarlier(id) {
      const { rows } = await pool.query<SentRow>(SENT_SQL, [id]);
      const { rows: valid } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = $1 AND br.request IS NOT NULL', [id]);
      return summarizeSentEarlier(rows, valid[0]?.n ?? 0);
    },
    async sentEarlierRowNumbers(id) {
      const { rows } = await pool.query<SentRow>(SENT_SQL, [id]);
      return [...new Set(rows.map((row) => row.rowNumber))];
    },
    async earlierRowIds(fileHash, fileRows, environment) {
      const { rows } = await pool.query<{ row_number: number; external_id: string }>(
        `SELECT br.row_number, br.external_id FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq
         WHERE b.file_hash = $1 ORDER BY b.state = 'draft', b.created_at, b.seq`,
        [fileHash],
      );
      const ids = firstIdsByRow(rows);
      if (ids.size > 0 || environment === undefined) return ids;
      const { rows: candidates } = await pool.query<{ seq: number; id: string }>(
        `SELECT seq, id FROM batches WHERE retry_of IS NULL AND state != 'draft' AND environment = $1 ORDER BY created_at DESC, seq DESC LIMIT ${FIXED_COPY_CANDIDATES}`,
        [environment],
      );
      if (candidates.length === 0) return ids;
      const { rows: candidateRows } = await pool.query<CandidateRow & { batch_seq: number }>(
        'SELECT batch_seq, row_number, cells, request IS NOT NULL AS valid, external_id FROM batch_rows WHERE batch_seq = ANY($1::bigint[])',
        [candidates.map((candidate) => candidate.seq)],
      );
      return fixedCopyMatch(
        fileRows,
        candidates.map(({ seq, id }) => ({ id, rows: candidateRows.filter((row) => row.batch_seq === seq) })),
      );
    },
    async batchMadeFrom(batchId, fileName) {
      const { rows } = await pool.query<{ id: string; file_name: string; state: EarlierImport['state']; created_at: number; rows: number }>(
        `SELECT id, file_name, state, created_at, (SELECT count(*) FROM batch_rows WHERE batch_seq = batches.seq) AS rows
         FROM batches WHERE retry_of = $1 AND file_name = $2 ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [batchId, fileName],
      );
      const row = rows[0];
      return row ? { batchId: row.id, fileName: row.file_name, state: row.state, createdAt: iso(row.created_at), rows: row.rows } : null;
    },
    async retriesByOrigin(environment) {
      const { rows } = await pool.query<RetryEntry & { retryOf: string }>(
        `SELECT external_id AS "externalId", retry_of AS "retryOf", state, status, resolution FROM entries
         WHERE retry_of IS NOT NULL AND kind = 'payout' AND environment = $1 ORDER BY created_at DESC, seq DESC`,
        [environment],
      );
      return groupRetries(rows);
    },
    async externalIdInJournal(externalId) {
      const { rows } = await pool.query('SELECT 1 FROM entries WHERE external_id = $1 LIMIT 1', [externalId]);
      return rows.length > 0;
    },
  };
}
