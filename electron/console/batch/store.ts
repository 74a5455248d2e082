/**
 * Batches in the journal (migration 2): the batch, its rows, and each row's sending state read
 * from the row's own journal entry, so the batch, History and a restart all see one truth.
 */
import type { TransactionRequest } from '../../../shared/contract';
import type { FieldErrors } from '../../../shared/contract';
import type {
  BatchCounts,
  BatchRow,
  BatchRowFilter,
  BatchRowState,
  BatchRowValues,
  BatchState,
  BatchSummary,
  EarlierImport,
  RehearsalRowResult,
  RehearsalSummary,
} from '../../../shared/api';
import type { CheckedRow } from '../../../shared/batch';
import type { JournalDb, JournalProfile } from '../journal/entries';
import { phaseSql } from '../journal/phase';
import { adoptedDiffers } from '../journal/rows';
import { BATCH_STATE_TABLE } from '../states/tables';
import { BatchStateChanged, RowsStillClaimed } from '../storage/batch-drafts-port';

interface BatchDbRow {
  seq: number;
  id: string;
  file_name: string;
  file_hash: string;
  state: BatchState;
  state_reason: string | null;
  profile_id: string;
  profile_name: string;
  environment: 'sandbox' | 'live';
  payment_method: string | null;
  concurrency: number;
  retry_of: string | null;
  rehearsal: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

interface RowDbRow {
  row_number: number;
  cells: string;
  request: string | null;
  errors: string;
  duplicates: string;
  external_id: string;
  journal_id: string | null;
  rehearsal: string | null;
  e_state: string | null;
  e_status: BatchRow['status'];
  e_failed_code: BatchRow['failedCode'];
  e_fee: number | null;
  e_transaction_id: string | null;
  e_last_error: string | null;
  e_already_sent_at: number | null;
  /** The entry's transaction, read only for an adopted row (to compare with what the row asks). */
  e_adopted_tx: string | null;
  /** 1 when the row's entry is another batch's (or a single send's): the row was linked to it, not sent. */
  e_elsewhere?: number | null;
  e_batch_id?: string | null;
  e_batch_row?: number | null;
  retry_of: string | null;
  /** The batch this row was moved to (a cancelled batch's remaining rows), and its file name. */
  moved_to?: string | null;
  moved_name?: string | null;
}

/**
 * The row state from its journal entry's phase (../journal/phase.ts): see BatchRowState. A row
 * whose entry was never created at the service (not sent, or looked up and not found) is `not_sent`.
 */
const ROW_STATE_SQL = `CASE WHEN br.journal_id IS NULL THEN 'not_sent' ELSE (CASE ${phaseSql('e')}
  WHEN 'pending' THEN 'pending'
  WHEN 'outcome_unknown' THEN 'unknown'
  WHEN 'known' THEN 'accepted'
  WHEN 'not_sent' THEN 'not_sent'
  WHEN 'not_found' THEN 'not_sent'
  ELSE 'rejected' END) END`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function batchRow(db: JournalDb, id: string): BatchDbRow | null {
  return (db.prepare('SELECT * FROM batches WHERE id = ?').get(id) as BatchDbRow | undefined) ?? null;
}

export function batchExists(db: JournalDb, id: string): boolean {
  return batchRow(db, id) !== null;
}

/** A checked row, and the external id of the failed payout it retries (a retry draft's row). */
export type NewRow = CheckedRow & { retryOf?: string | undefined };

function insertRows(db: JournalDb, seq: number, rows: readonly NewRow[]): void {
  const insert = db.prepare(
    `INSERT INTO batch_rows (batch_seq, row_number, cells, request, errors, duplicates, external_id, retry_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of rows) {
    insert.run(seq, row.rowNumber, JSON.stringify(row.values), row.request ? JSON.stringify(row.request) : null, JSON.stringify(row.errors), JSON.stringify(row.duplicates), row.externalId, row.retryOf ?? null);
  }
}

/** A new batch as it is written: a draft and its checked rows. */
export interface NewBatchInput {
  id: string;
  fileName: string;
  fileHash: string;
  profile: JournalProfile;
  paymentMethod: string | null;
  concurrency: number;
  retryOf: string | null;
  rows: readonly NewRow[];
  at: number;
}

export function createBatch(db: JournalDb, input: NewBatchInput): void {
  db.transaction(() => {
    const result = db
      .prepare(
        `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, payment_method, concurrency, retry_of, created_at, updated_at)
         VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(input.id, input.fileName, input.fileHash, input.profile.id, input.profile.name, input.profile.environment, input.paymentMethod, input.concurrency, input.retryOf, input.at, input.at);
    insertRows(db, Number(result.lastInsertRowid), input.rows);
  })();
}

/** Draft edits: the rows checked again as a whole (duplicates span rows), in one transaction. */
export function replaceDraftRows(db: JournalDb, id: string, rows: readonly CheckedRow[], at: number): void {
  db.transaction(() => {
    const batch = batchRow(db, id);
    if (!batch || batch.state !== 'draft') throw new Error(`batch ${id} is not a draft`);
    // A retry draft's links to the payouts its rows retry survive the edit (same row numbers).
    const links = new Map(
      (db.prepare('SELECT row_number, retry_of FROM batch_rows WHERE batch_seq = ? AND retry_of IS NOT NULL').all(batch.seq) as { row_number: number; retry_of: string }[]).map((row) => [row.row_number, row.retry_of]),
    );
    db.prepare('DELETE FROM batch_rows WHERE batch_seq = ?').run(batch.seq);
    insertRows(db, batch.seq, rows.map((row) => ({ ...row, retryOf: links.get(row.rowNumber) })));
    db.prepare('UPDATE batches SET updated_at = ? WHERE seq = ?').run(at, batch.seq);
  })();
}

export function rowInputs(db: JournalDb, id: string): { rowNumber: number; values: BatchRowValues; errors: FieldErrors }[] {
  return (
    db.prepare('SELECT br.row_number, br.cells, br.errors FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = ? ORDER BY br.row_number').all(id) as {
      row_number: number;
      cells: string;
      errors: string;
    }[]
  ).map((row) => ({ rowNumber: row.row_number, values: JSON.parse(row.cells) as BatchRowValues, errors: JSON.parse(row.errors) as FieldErrors }));
}

/**
 * A row moved to another batch, as this batch shows it: not sent by it, with nothing of the
 * payout its earlier attempt became there (that batch counts and reports it), and where it went.
 */
export function asMoved(row: BatchRow, movedTo: NonNullable<BatchRow['movedTo']>): BatchRow {
  const { alreadySent: _adopted, adoptedDiffers: _differs, paidBy: _paidBy, ...rest } = row;
  return { ...rest, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: null, error: null, movedTo };
}

function toRow(row: RowDbRow & { row_state: BatchRowState }): BatchRow {
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
    ...(row.e_already_sent_at ? { alreadySent: true as const } : {}),
    ...(row.e_already_sent_at ? adoptedDiffers(row.request, row.e_adopted_tx) : {}),
    ...(row.retry_of ? { retryOf: row.retry_of } : {}),
    ...(row.e_elsewhere ? { paidBy: { batchId: row.e_batch_id ?? null, rowNumber: row.e_batch_row ?? null } } : {}),
  };
}

/** The row names a payout another batch (or a single send) made: linked to it, never POSTed by this row. */
const LINKED_ELSEWHERE = 'e.id IS NOT NULL AND e.batch_id IS NOT b.id';

const ROWS_SQL = `SELECT br.*, ${ROW_STATE_SQL} AS row_state, e.state AS e_state, e.status AS e_status, e.failed_code AS e_failed_code,
    e.fee AS e_fee, e.transaction_id AS e_transaction_id, e.last_error AS e_last_error,
    CASE WHEN e.already_sent_at IS NOT NULL THEN e.already_sent_at WHEN ${LINKED_ELSEWHERE} THEN e.created_at END AS e_already_sent_at,
    CASE WHEN e.already_sent_at IS NOT NULL OR (${LINKED_ELSEWHERE}) THEN e.transaction_json END AS e_adopted_tx,
    CASE WHEN ${LINKED_ELSEWHERE} THEN 1 END AS e_elsewhere, e.batch_id AS e_batch_id, e.batch_row AS e_batch_row,
    (SELECT mb.file_name FROM batches mb WHERE mb.id = br.moved_to) AS moved_name
  FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id`;

export function loadRows(db: JournalDb, id: string): BatchRow[] {
  return (db.prepare(`${ROWS_SQL} WHERE b.id = ? ORDER BY br.row_number`).all(id) as (RowDbRow & { row_state: BatchRowState })[]).map(toRow);
}

export function loadRow(db: JournalDb, id: string, rowNumber: number): BatchRow | null {
  const row = db.prepare(`${ROWS_SQL} WHERE b.id = ? AND br.row_number = ?`).get(id, rowNumber) as (RowDbRow & { row_state: BatchRowState }) | undefined;
  return row ? toRow(row) : null;
}

/**
 * Each row list's condition on a row of ROWS_SQL (`row_state` is computed there, so the
 * conditions are applied to it as a subquery). Keep in step with BATCH_ROW_FILTERS' words.
 */
const FILTER_SQL: Record<BatchRowFilter, string> = {
  all: '1',
  invalid: 'request IS NULL',
  duplicates: "duplicates != '[]'",
  wouldFail: "json_extract(rehearsal, '$.wouldFail') = 1",
  failed: "row_state = 'rejected' OR (row_state = 'accepted' AND e_status IN ('failed', 'cancelled'))",
  unknown: "row_state = 'unknown'",
};

/** One page of a batch's rows in row order under a filter, and how many rows the filter keeps. */
export function rowsPage(db: JournalDb, id: string, filter: BatchRowFilter, offset: number, limit: number): { total: number; rows: BatchRow[] } {
  const kept = `SELECT * FROM (${ROWS_SQL} WHERE b.id = ?) WHERE ${FILTER_SQL[filter]}`;
  const total = filter === 'all' ? countAll(db, id) : (db.prepare(`SELECT COUNT(*) AS n FROM (${kept})`).get(id) as { n: number }).n;
  if (offset >= total) return { total, rows: [] };
  const rows = db.prepare(`${kept} ORDER BY row_number LIMIT ? OFFSET ?`).all(id, limit, offset) as (RowDbRow & { row_state: BatchRowState })[];
  return { total, rows: rows.map(toRow) };
}

function countAll(db: JournalDb, id: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = ?').get(id) as { n: number }).n;
}

/** The given rows of a batch, whole, in row order (a progress push's changed rows). */
export function rowsByNumber(db: JournalDb, id: string, rowNumbers: readonly number[]): BatchRow[] {
  if (rowNumbers.length === 0) return [];
  const rows = db
    .prepare(`${ROWS_SQL} WHERE b.id = ? AND br.row_number IN (SELECT value FROM json_each(?)) ORDER BY br.row_number`)
    .all(id, JSON.stringify(rowNumbers)) as (RowDbRow & { row_state: BatchRowState })[];
  return rows.map(toRow);
}

/** Valid rows in a given sending state, in row order (what the runner works on). */
export function rowsInState(db: JournalDb, id: string, states: readonly BatchRowState[]): BatchRow[] {
  const marks = states.map(() => '?').join(', ');
  return (
    db.prepare(`SELECT * FROM (${ROWS_SQL} WHERE b.id = ? AND br.request IS NOT NULL) WHERE row_state IN (${marks}) ORDER BY row_number`).all(id, ...states) as (RowDbRow & {
      row_state: BatchRowState;
    })[]
  ).map(toRow);
}

/** The claim's statement, prepared once per connection (a claim every few rows). */
const notSentStatements = new WeakMap<JournalDb, { iterate(...params: unknown[]): IterableIterator<unknown> }>();

/**
 * Up to `limit` valid rows not sent from row `from` on, in row order, leaving out `held` (rows a
 * live claim holds): a claim reads a few rows past where the last one ended, not the whole batch.
 */
export function rowsNotSentFrom(db: JournalDb, id: string, from: number, limit: number, held: (rowNumber: number) => boolean): BatchRow[] {
  let statement = notSentStatements.get(db);
  if (!statement) notSentStatements.set(db, (statement = db.prepare(`SELECT * FROM (${ROWS_SQL} WHERE b.id = ? AND br.request IS NOT NULL AND br.moved_to IS NULL AND br.row_number >= ?) WHERE row_state = 'not_sent' ORDER BY row_number`)));
  const rows = statement.iterate(id, from) as IterableIterator<RowDbRow & { row_state: BatchRowState }>;
  const found: BatchRow[] = [];
  for (const row of rows) {
    if (held(row.row_number)) continue;
    found.push(toRow(row));
    if (found.length >= limit) break; // ends the statement: nothing past the claim is read
  }
  return found;
}

/** A batch's state alone (a claim checks it: no counting). */
export function batchState(db: JournalDb, id: string): BatchState | null {
  return (db.prepare('SELECT state FROM batches WHERE id = ?').get(id) as { state: BatchState } | undefined)?.state ?? null;
}

/**
 * The batch's counters (and its total amount unless `withAmount` is false: reading each row's
 * request JSON was a quarter of a count at 10,000 rows, and progress events do not show it).
 */
export function countRows(db: JournalDb, id: string, withAmount = true): { counts: BatchCounts; totalAmount: number } {
  const groups = db
    .prepare(
      `SELECT ${ROW_STATE_SQL} AS row_state, e.status AS status, br.request IS NOT NULL AS valid, br.duplicates != '[]' AS duplicate, (br.journal_id IS NOT NULL AND e.batch_id IS NOT b.id) AS elsewhere,
         br.moved_to IS NOT NULL AS moved, COUNT(*) AS n, ${withAmount ? `SUM(COALESCE(json_extract(br.request, '$.amount'), 0))` : '0'} AS amount
       FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id
       WHERE b.id = ? GROUP BY 1, 2, 3, 4, 5, 6`,
    )
    .all(id) as { row_state: BatchRowState; status: string | null; valid: number; duplicate: number; elsewhere: number | null; moved: number; n: number; amount: number }[];
  const counts: BatchCounts = { rows: 0, valid: 0, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 0, rejected: 0, unknown: 0, completed: 0, failed: 0, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 };
  let totalAmount = 0;
  for (const group of groups) {
    counts.rows += group.n;
    if (group.duplicate) counts.duplicates += group.n;
    if (!group.valid) {
      counts.invalid += group.n;
      continue;
    }
    counts.valid += group.n;
    totalAmount += group.amount;
    // Moved before linked elsewhere: a moved row's earlier attempt now names the batch it moved to.
    if (group.moved) {
      counts.moved += group.n;
      continue;
    }
    if (group.elsewhere) {
      counts.elsewhere += group.n;
      continue;
    }
    switch (group.row_state) {
      case 'not_sent':
        counts.notSent += group.n;
        break;
      case 'pending':
        counts.pending += group.n;
        break;
      case 'unknown':
        counts.unknown += group.n;
        break;
      case 'rejected':
        counts.rejected += group.n;
        break;
      case 'accepted':
        counts.accepted += group.n;
        if (group.status === 'completed') counts.completed += group.n;
        else if (group.status === 'failed') counts.failed += group.n;
        else if (group.status === 'cancelled') counts.cancelled += group.n;
        else counts.processing += group.n;
        break;
      default: {
        const never: never = group.row_state;
        throw new Error(`unknown row state ${String(never)}`);
      }
    }
  }
  return { counts, totalAmount };
}

function toSummary(db: JournalDb, row: BatchDbRow): BatchSummary {
  const { counts, totalAmount } = countRows(db, row.id);
  return {
    id: row.id,
    fileName: row.file_name,
    state: row.state,
    stateReason: row.state_reason,
    profileId: row.profile_id,
    profileName: row.profile_name,
    environment: row.environment,
    paymentMethod: row.payment_method,
    concurrency: row.concurrency,
    totalAmount,
    counts,
    fileHash: row.file_hash,
    retryOf: row.retry_of,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

/** What a progress event needs: the batch's state and counters (no amounts). */
export function progressCounts(db: JournalDb, id: string): { state: BatchState; counts: BatchCounts } | null {
  const row = db.prepare('SELECT state FROM batches WHERE id = ?').get(id) as { state: BatchState } | undefined;
  return row ? { state: row.state, counts: countRows(db, id, false).counts } : null;
}

export function getSummary(db: JournalDb, id: string): BatchSummary | null {
  const row = batchRow(db, id);
  return row ? toSummary(db, row) : null;
}

export function listSummaries(db: JournalDb, limit = 200): BatchSummary[] {
  return (db.prepare('SELECT * FROM batches ORDER BY created_at DESC, seq DESC LIMIT ?').all(limit) as BatchDbRow[]).map((row) => toSummary(db, row));
}

export function rehearsalOf(db: JournalDb, id: string): RehearsalSummary | null {
  const text = batchRow(db, id)?.rehearsal;
  return text ? (JSON.parse(text) as RehearsalSummary) : null;
}

export function earlierImports(db: JournalDb, fileHash: string, exceptId: string): EarlierImport[] {
  return (db.prepare('SELECT id, file_name, state, created_at FROM batches WHERE file_hash = ? AND id != ? ORDER BY created_at').all(fileHash, exceptId) as {
    id: string;
    file_name: string;
    state: BatchState;
    created_at: number;
  }[]).map((row) => ({ batchId: row.id, fileName: row.file_name, state: row.state, createdAt: iso(row.created_at)! }));
}

/** The one write of a batch's state: checked against BATCH_STATE_TABLE in the same transaction. */
export function setState(
  db: JournalDb,
  id: string,
  state: BatchState,
  at: number,
  extra: { reason?: string | null; started?: boolean; finished?: boolean; concurrency?: number; profile?: JournalProfile; onlyFrom?: BatchState } = {},
): void {
  db.transaction(() => {
    const current = batchRow(db, id);
    if (!current) throw new Error(`batch ${id} does not exist`);
    if (extra.onlyFrom !== undefined && current.state !== extra.onlyFrom) throw new BatchStateChanged(id, current.state);
    BATCH_STATE_TABLE.assertMove(current.state, state, id);
    writeState(db, id, state, at, extra);
  })();
}

function writeState(db: JournalDb, id: string, state: BatchState, at: number, extra: Parameters<typeof setState>[4] = {}): void {
  db.prepare(
    `UPDATE batches SET state = ?, state_reason = ?, updated_at = ?,
       started_at = CASE WHEN ? THEN COALESCE(started_at, ?) ELSE started_at END,
       finished_at = CASE WHEN ? THEN ? ELSE finished_at END,
       concurrency = COALESCE(?, concurrency),
       profile_id = COALESCE(?, profile_id), profile_name = COALESCE(?, profile_name), environment = COALESCE(?, environment)
     WHERE id = ?`,
  ).run(
    state,
    extra.reason ?? null,
    at,
    extra.started ? 1 : 0,
    at,
    extra.finished ? 1 : 0,
    at,
    extra.concurrency ?? null,
    extra.profile?.id ?? null,
    extra.profile?.name ?? null,
    extra.profile?.environment ?? null,
    id,
  );
}

/**
 * Links a row to the journal entry that sends it, inside the transaction that writes the entry
 * (the entry itself is written with its batch and row: writeRequest's `batch`). False when the
 * row has an entry already (or does not exist): the caller undoes the entry, a row has one, ever.
 */
export function linkRow(db: JournalDb, id: string, rowNumber: number, journalId: string): boolean {
  // A row moved to another batch is that batch's: never linked (so never sent) here.
  return db.prepare('UPDATE batch_rows SET journal_id = ? WHERE batch_seq = (SELECT seq FROM batches WHERE id = ?) AND row_number = ? AND journal_id IS NULL AND moved_to IS NULL').run(journalId, id, rowNumber).changes === 1;
}

/**
 * A cancelled batch's remaining rows (valid, not sent, not moved) moved to a new draft made of
 * them (`make`), in ONE transaction: the draft and its rows written, each old row marked moved to
 * it, and a moved row's earlier attempt that created nothing (a 429) pointed at the new batch,
 * whose row continues it. Null (nothing written) when no row remains; BatchStateChanged when the
 * batch is not cancelled. A moved row is never sent by the old batch: the claim skips it, linkRow
 * refuses it, and the journal's triggers refuse its entry going pending (migration 11).
 */
export function moveRemainingRows(db: JournalDb, fromId: string, make: (remaining: BatchRow[]) => NewBatchInput, held: (rowNumber: number) => boolean = () => false): NewBatchInput | null {
  return db.transaction(() => {
    const from = batchRow(db, fromId);
    if (!from) throw new Error(`batch ${fromId} does not exist`);
    if (from.state !== 'cancelled') throw new BatchStateChanged(fromId, from.state);
    const remaining = (db.prepare(`SELECT * FROM (${ROWS_SQL} WHERE b.id = ? AND br.request IS NOT NULL AND br.moved_to IS NULL) WHERE row_state = 'not_sent' ORDER BY row_number`).all(fromId) as (RowDbRow & {
      row_state: BatchRowState;
    })[]).map(toRow);
    const claimed = remaining.filter((row) => held(row.rowNumber)).length;
    if (claimed > 0) throw new RowsStillClaimed(fromId, claimed);
    if (remaining.length === 0) return null;
    const made = make(remaining);
    createBatch(db, made);
    const move = db.prepare('UPDATE batch_rows SET moved_to = ? WHERE batch_seq = ? AND row_number = ? AND moved_to IS NULL');
    const repoint = db.prepare('UPDATE entries SET batch_id = ? WHERE id = ? AND batch_id IS ?');
    for (const row of remaining) {
      if (move.run(made.id, from.seq, row.rowNumber).changes !== 1) throw new Error(`batch ${fromId} row ${row.rowNumber} was moved meanwhile`);
      if (row.journalId) repoint.run(made.id, row.journalId, fromId);
    }
    return made;
  })();
}

export function saveRehearsal(db: JournalDb, id: string, summary: RehearsalSummary, results: ReadonlyMap<number, RehearsalRowResult>, at: number): void {
  db.transaction(() => {
    const seq = batchRow(db, id)?.seq;
    if (seq === undefined) return;
    db.prepare('UPDATE batch_rows SET rehearsal = NULL WHERE batch_seq = ?').run(seq);
    const update = db.prepare('UPDATE batch_rows SET rehearsal = ? WHERE batch_seq = ? AND row_number = ?');
    for (const [rowNumber, result] of results) update.run(JSON.stringify(result), seq, rowNumber);
    db.prepare('UPDATE batches SET rehearsal = ?, updated_at = ? WHERE seq = ?').run(JSON.stringify(summary), at, seq);
  })();
}

/**
 * At startup: a batch that was sending when the console stopped is interrupted (its in-flight
 * rows' entries were just marked outcome unknown by markStalePending).
 */
export function markInterruptedBatches(db: JournalDb, at: number): string[] {
  const ids = (db.prepare(`SELECT id FROM batches WHERE state = 'sending'`).all() as { id: string }[]).map((row) => row.id);
  for (const id of ids) setState(db, id, 'interrupted', at, { reason: 'Paydesk stopped while this batch was being sent: Resume looks up the rows whose outcome is unknown before sending the rest.' });
  return ids;
}
