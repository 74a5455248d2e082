/**
 * A batch row in a team workspace as the domain sees it: its sending state read from its journal
 * entry's phase, in SQL (the same reading as ../../batch/store.ts ROW_STATE_SQL).
 */
import type { TransactionRequest } from '../../../../shared/contract';
import type { FieldErrors } from '../../../../shared/contract';
import type { BatchRow, BatchRowState, BatchRowValues, RehearsalRowResult } from '../../../../shared/api';
import { NOT_SENT_CODE } from '../../journal/phase';
import { adoptedDiffers } from '../../journal/rows';
import { asMoved } from '../../batch/store';
import type { NewBatchRow } from '../batch-drafts-port';
import type { Queryable } from './db';

/** ../../journal/phase.ts phaseSql, in PostgreSQL's JSON operators. */
const PHASE_SQL = `CASE
    WHEN e.state = 'outcome_unknown' AND e.resolution = 'not_found' THEN 'not_found'
    WHEN e.state = 'rejected' AND (e.last_error::jsonb ->> 'code') = '${NOT_SENT_CODE}' THEN 'not_sent'
    ELSE e.state END`;

export const ROW_STATE_SQL = `CASE WHEN br.journal_id IS NULL THEN 'not_sent' ELSE (CASE ${PHASE_SQL}
  WHEN 'pending' THEN 'pending'
  WHEN 'outcome_unknown' THEN 'unknown'
  WHEN 'known' THEN 'accepted'
  WHEN 'not_sent' THEN 'not_sent'
  WHEN 'not_found' THEN 'not_sent'
  ELSE 'rejected' END) END`;

/** The row names a payout another batch (or a single send) made: linked to it, never POSTed by this row. */
const LINKED_ELSEWHERE = 'e.id IS NOT NULL AND e.batch_id IS DISTINCT FROM b.id';

/** A row's columns and its entry's, with `br` the row, `b` its batch and `e` its entry (LEFT JOINed). */
export const ROW_COLUMNS_SQL = `br.*, ${ROW_STATE_SQL} AS row_state, e.status AS e_status, e.failed_code AS e_failed_code,
    e.fee AS e_fee, e.transaction_id AS e_transaction_id, e.last_error AS e_last_error,
    CASE WHEN e.already_sent_at IS NOT NULL THEN e.already_sent_at WHEN ${LINKED_ELSEWHERE} THEN e.created_at END AS e_already_sent_at,
    CASE WHEN e.already_sent_at IS NOT NULL OR (${LINKED_ELSEWHERE}) THEN e.transaction_json END AS e_adopted_tx,
    CASE WHEN ${LINKED_ELSEWHERE} THEN true END AS e_elsewhere,
    e.batch_id AS e_batch_id, e.batch_row AS e_batch_row,
    (SELECT mb.file_name FROM batches mb WHERE mb.id = br.moved_to) AS moved_name`;

export const ROWS_SQL = `SELECT ${ROW_COLUMNS_SQL}
  FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id`;

export interface RowDbRow {
  row_number: number;
  cells: string;
  request: string | null;
  errors: string;
  duplicates: string;
  external_id: string;
  journal_id: string | null;
  rehearsal: string | null;
  row_state: BatchRowState;
  e_status: BatchRow['status'];
  e_failed_code: BatchRow['failedCode'];
  e_fee: number | null;
  e_transaction_id: string | null;
  e_last_error: string | null;
  e_already_sent_at: number | null;
  e_elsewhere?: boolean | null;
  e_batch_id?: string | null;
  e_batch_row?: number | string | null;
  /** The entry's transaction, read only for an adopted row (to compare with what the row asks). */
  e_adopted_tx: string | null;
  retry_of: string | null;
  /** The batch this row was moved to (a cancelled batch's remaining rows), and its file name. */
  moved_to?: string | null;
  moved_name?: string | null;
}

export function toRow(row: RowDbRow): BatchRow {
  // As the SQLite store's: a moved row shows where it went, nothing of the payout it became there.
  if (row.moved_to) return asMoved(toRow({ ...row, moved_to: null }), { batchId: row.moved_to, fileName: row.moved_name ?? row.moved_to });
  const lastError = row.e_last_error ? (JSON.parse(row.e_last_error) as { code: string; message: string }) : null;
  return {
    rowNumber: row.row_number,
    values: JSON.parse(row.cells) as BatchRowValues,
    request: row.request ? (JSON.parse(row.request) as TransactionRequest) : null,
    errors: JSON.parse(row.errors) as FieldErrors,
    duplicates: JSON.parse(row.duplicates) as BatchRow['duplicates'],
    externalId: row.external_id,
    state: row.row_state,
    journalId: row.journal_id,
    transactionId: row.e_transaction_id,
    status: row.e_status,
    failedCode: row.e_failed_code,
    fee: row.e_fee,
    error: lastError ? { code: lastError.code, message: lastError.message } : null,
    rehearsal: row.rehearsal ? (JSON.parse(row.rehearsal) as RehearsalRowResult) : null,
    // As the SQLite store's toRow: a row that adopted an existing payout, and how it differs; the payout a retry retries.
    ...(row.e_already_sent_at ? { alreadySent: true as const } : {}),
    ...(row.e_already_sent_at ? adoptedDiffers(row.request, row.e_adopted_tx) : {}),
    ...(row.e_elsewhere ? { paidBy: { batchId: row.e_batch_id ?? null, rowNumber: row.e_batch_row === null || row.e_batch_row === undefined ? null : Number(row.e_batch_row) } } : {}),
    ...(row.retry_of ? { retryOf: row.retry_of } : {}),
  };
}

/** A batch's rows in one INSERT (unnest of parallel arrays), each with the payout it retries, if any. */
export async function insertRows(c: Queryable, seq: number, rows: readonly NewBatchRow[]): Promise<void> {
  await c.query(
    `INSERT INTO batch_rows (batch_seq, row_number, cells, request, errors, duplicates, external_id, retry_of)
     SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
    [
      seq,
      rows.map((row) => row.rowNumber),
      rows.map((row) => JSON.stringify(row.values)),
      rows.map((row) => (row.request ? JSON.stringify(row.request) : null)),
      rows.map((row) => JSON.stringify(row.errors)),
      rows.map((row) => JSON.stringify(row.duplicates)),
      rows.map((row) => row.externalId),
      rows.map((row) => row.retryOf ?? null),
    ],
  );
}

export async function rowsInState(c: Queryable, id: string, states: readonly BatchRowState[]): Promise<BatchRow[]> {
  const { rows } = await c.query<RowDbRow>(
    `SELECT * FROM (${ROWS_SQL} WHERE b.id = $1 AND br.request IS NOT NULL) r WHERE row_state = ANY($2) ORDER BY row_number`,
    [id, states],
  );
  return rows.map(toRow);
}
