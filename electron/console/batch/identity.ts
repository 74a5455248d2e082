/**
 * The external id is a payout's identity, from the file to the service (the journal, not the
 * service, keeps an id from being sent twice: ../journal/payout-identity.ts):
 * - a row sent again keeps its id; only a payout that exists and ended failed/cancelled is
 *   retried under a new one, derived from it (`<id>-r1`, then `-r2`), so the two stay linked;
 * - a file imported again takes the ids its rows had the first time (rows without their own);
 * - a draft names its rows whose id the journal already holds as sent.
 * See docs/decisions/external-id-is-identity.md and retry-derived-ids.md.
 */
import { LIMITS } from '../../../shared/contract';
import { SENT_EARLIER_LISTED, type BatchRowValues, type EarlierImport, type SentEarlier, type SentEarlierOutcome } from '../../../shared/api';
import { canonicalJson } from '../confirmations';
import type { JournalDb } from '../journal/entries';
import type { FileRow, RetryEntry } from '../storage/batch-drafts-port';

/** `october.csv` → `october (remaining).csv`: the batch of a cancelled batch's remaining rows. */
export function remainingName(fileName: string): string {
  const match = /^(.*?)(\.[A-Za-z0-9]{1,5})?$/.exec(fileName);
  return `${match?.[1] ?? fileName} (remaining)${match?.[2] ?? ''}`;
}

/** The latest batch made of a cancelled batch's remaining rows (batches:sendRemaining), if any. */
export function remainingBatch(db: JournalDb, batch: { id: string; fileName: string }): EarlierImport | null {
  return batchMadeFrom(db, batch.id, remainingName(batch.fileName));
}

/** The latest batch of this name made from a batch's rows (its remaining rows, a retry of its failed rows), if any. */
export function batchMadeFrom(db: JournalDb, batchId: string, fileName: string): EarlierImport | null {
  const row = db
    .prepare(
      `SELECT id, file_name, state, created_at, (SELECT COUNT(*) FROM batch_rows WHERE batch_seq = batches.seq) AS rows
       FROM batches WHERE retry_of = ? AND file_name = ? ORDER BY created_at DESC, seq DESC LIMIT 1`,
    )
    .get(batchId, fileName) as { id: string; file_name: string; state: EarlierImport['state']; created_at: number; rows: number } | undefined;
  return row ? { batchId: row.id, fileName: row.file_name, state: row.state, createdAt: new Date(row.created_at).toISOString(), rows: row.rows } : null;
}

/** Whether any journal entry (payment or payout, any profile) carries this external id. */
export function idInJournal(db: JournalDb, externalId: string): boolean {
  return db.prepare('SELECT 1 FROM entries INDEXED BY entries_by_external_id WHERE external_id = ? LIMIT 1').get(externalId) !== undefined;
}

/**
 * The new id of a retried payout: `<root>-r<n>` where `<root>` is the first payout's id (a row
 * that is itself a retry, `X-r1`, gives `X-r2`), the first n no journal entry (`inJournal`, the
 * store's) and no id in `taken` uses, the root shortened so the whole fits the external id's
 * maximum length.
 */
export async function derivedExternalId(inJournal: (externalId: string) => Promise<boolean>, externalId: string, retryOf: string | null, taken: ReadonlySet<string>): Promise<string> {
  const own = retryOf !== null ? /^(.*)-r(\d+)$/.exec(externalId) : null;
  const root = own && own[1]!.length > 0 ? own[1]! : externalId;
  for (let n = own ? Number(own[2]) + 1 : 1; ; n += 1) {
    const suffix = `-r${n}`;
    const candidate = `${root.slice(0, LIMITS.externalIdMax - suffix.length)}${suffix}`;
    if (!taken.has(candidate) && !(await inJournal(candidate))) return candidate;
  }
}

/**
 * The new id of a row sent again on purpose as a new payout (batches:renewSentIds): `<id>-n<k>`,
 * the first k no journal entry (`inJournal`, the store's, any state) and no id in `taken` uses;
 * an id that is itself renewed (`X-n1`) gives `X-n2`, the root shortened so the whole fits the
 * external id's maximum length. Never an id the journal holds: that one would only be linked.
 */
export async function renewedExternalId(inJournal: (externalId: string) => Promise<boolean>, externalId: string, taken: ReadonlySet<string>): Promise<string> {
  const own = /^(.+)-n(\d{1,6})$/.exec(externalId);
  const root = own ? own[1]! : externalId;
  for (let n = own ? Number(own[2]) + 1 : 1; ; n += 1) {
    const suffix = `-n${n}`;
    const candidate = `${root.slice(0, LIMITS.externalIdMax - suffix.length)}${suffix}`;
    if (!taken.has(candidate) && !(await inJournal(candidate))) return candidate;
  }
}

/** Every payout entry of this environment that retries another, by the external id it retries (one scan). */
export function retriesByOrigin(db: JournalDb, environment: string): Map<string, RetryEntry[]> {
  const rows = db
    .prepare(`SELECT external_id AS externalId, retry_of AS retryOf, state, status, resolution FROM entries
      WHERE retry_of IS NOT NULL AND kind = 'payout' AND environment = ? ORDER BY created_at DESC, seq DESC`)
    .all(environment) as (RetryEntry & { retryOf: string })[];
  return groupRetries(rows);
}

/** Retry entries (newest first) grouped by the external id each retries. */
export function groupRetries(rows: readonly (RetryEntry & { retryOf: string })[]): Map<string, RetryEntry[]> {
  const byOrigin = new Map<string, RetryEntry[]>();
  for (const { retryOf, ...entry } of rows) {
    const list = byOrigin.get(retryOf);
    if (list) list.push(entry);
    else byOrigin.set(retryOf, [entry]);
  }
  return byOrigin;
}

/** Whether this entry's payout exists or may exist and has not ended failed/cancelled. */
function mayBeMoney(entry: RetryEntry): boolean {
  if (entry.state === 'pending') return true;
  if (entry.state === 'outcome_unknown') return entry.resolution === null;
  return entry.state === 'known' && entry.status !== 'failed' && entry.status !== 'cancelled';
}

/**
 * What a failed payout is retried as, once its earlier retries are followed: `null` when any
 * attempt of a retry of it (not only the newest: two drafts may hold one id) was paid, is in
 * flight, processing or has an unknown outcome (it is never retried again: that is paying twice;
 * test/console/retry-blocked.test.ts); `{ reuse }` when its latest retry was refused (never created: its id is unspent);
 * otherwise `{ from }`, the last failed payout of the chain, to derive the next id from.
 */
export function retryTarget(retries: Map<string, RetryEntry[]>, externalId: string): { from: string; isRetry: boolean } | { reuse: string; retryOf: string } | null {
  let current = externalId;
  for (let depth = 0; depth < 1000; depth += 1) {
    const sent = retries.get(current) ?? [];
    if (sent.length === 0) return { from: current, isRetry: current !== externalId };
    if (sent.some(mayBeMoney)) return null;
    const failed = sent.find((entry) => entry.state === 'known');
    if (!failed) return { reuse: sent[0]!.externalId, retryOf: current };
    current = failed.externalId;
  }
  return null;
}

/**
 * The external ids earlier imports of the same file gave its rows (by row number), for rows
 * without their own: the same row imported again is the same payout, so the service's duplicate
 * check refuses a second payment (and the row adopts the first) instead of paying it again.
 * Each row takes the id of the earliest sent import holding it, else of the earliest draft: two
 * drafts of one file made before either was sent hold the same ids, and a row dropped from one
 * import keeps the id another import gave it.
 */
export function earlierRowIds(db: JournalDb, fileHash: string, fileRows: readonly FileRow[] = [], environment?: string): Map<number, string> {
  const rows = db
    .prepare(`SELECT br.row_number, br.external_id FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq
      WHERE b.file_hash = ? ORDER BY b.state = 'draft', b.created_at, b.seq`)
    .all(fileHash) as { row_number: number; external_id: string }[];
  const ids = firstIdsByRow(rows);
  if (ids.size > 0 || environment === undefined) return ids;
  return fixedCopyIds(db, fileRows, environment);
}

/** Each row number's first external id, from rows in preference order (sent imports first, oldest first). */
export function firstIdsByRow(rows: readonly { row_number: number; external_id: string }[]): Map<number, string> {
  const ids = new Map<number, string>();
  for (const row of rows) if (!ids.has(row.row_number)) ids.set(row.row_number, row.external_id);
  return ids;
}

/** How many recent sent imports a file is compared with, row by row (bounds the work of an import). */
export const FIXED_COPY_CANDIDATES = 50;
const sameCells = (values: BatchRowValues) => canonicalJson({ ...values, external_id: '' });

/**
 * The same file with its invalid rows fixed (or rows added) has another rows hash, yet its rows
 * sent earlier are the same payouts: when every row an earlier sent import could send (its valid
 * rows) is in this file, unchanged, at the same row number, this file's rows take that import's
 * ids (the earliest such import), so the rows already sent are named and never paid again.
 * A file without that import's rows cannot be told from a new one: its rows get new ids.
 */
function fixedCopyIds(db: JournalDb, fileRows: readonly FileRow[], environment: string): Map<number, string> {
  const candidates = db
    .prepare(`SELECT seq, id FROM batches WHERE retry_of IS NULL AND state != 'draft' AND environment = ? ORDER BY created_at DESC, seq DESC LIMIT ${FIXED_COPY_CANDIDATES}`)
    .all(environment) as { seq: number; id: string }[];
  const rowsOf = db.prepare('SELECT row_number, cells, request IS NOT NULL AS valid, external_id FROM batch_rows WHERE batch_seq = ?');
  return fixedCopyMatch(
    fileRows,
    candidates.map(({ seq, id }) => ({ id, rows: (rowsOf.all(seq) as (Omit<CandidateRow, 'valid'> & { valid: number })[]).map((row) => ({ ...row, valid: row.valid === 1 })) })),
  );
}

/** A row of an earlier sent import, compared with the file's row of the same number. */
export interface CandidateRow {
  row_number: number;
  cells: string;
  valid: boolean;
  external_id: string;
}

/** The ids of the earliest candidate (candidates newest first) whose valid rows are all in the file unchanged; none when no candidate is. */
export function fixedCopyMatch(fileRows: readonly FileRow[], candidates: readonly { id: string; rows: readonly CandidateRow[] }[]): Map<number, string> {
  const byNumber = new Map(fileRows.map((row) => [row.rowNumber, sameCells(row.values)]));
  let match: { id: string; rows: readonly CandidateRow[] } | null = null;
  for (const { id, rows } of candidates) {
    const sent = rows.filter((row) => row.valid);
    if (sent.length > 0 && sent.every((row) => byNumber.get(row.row_number) === sameCells(JSON.parse(row.cells) as BatchRowValues))) match = { id, rows };
  }
  if (!match) return new Map();
  // A row dropped from that import (invalid) takes the id the import gave it, which its invalid
  // rows file carries: fixed and sent from that file, it is named here as sent.
  const ids = new Map<number, string>(fileRows.map((row) => [row.rowNumber, `${match.id}-${row.rowNumber}`]));
  for (const row of match.rows) ids.set(row.row_number, row.external_id);
  return ids;
}

/**
 * A draft's valid rows whose external id another journal entry already holds as sent: created at
 * the service (`known`), in flight, or with an unknown outcome. Entries refused, never sent or
 * looked up and not found do not count: their id never made money.
 */
const SENT_SQL = `SELECT br.row_number AS rowNumber, br.external_id AS externalId, e.batch_id AS batchId, e.state, e.status
  FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
  JOIN entries e INDEXED BY entries_by_external_id ON e.external_id = br.external_id
  WHERE b.id = ? AND br.request IS NOT NULL AND e.kind = 'payout' AND e.environment = b.environment
    AND (e.state IN ('known', 'pending') OR (e.state = 'outcome_unknown' AND e.resolution IS NULL))
  ORDER BY br.row_number, (e.state = 'known') DESC, e.created_at DESC`;

function outcomeOf(state: string, status: string | null): SentEarlierOutcome {
  if (state !== 'known') return 'unknown';
  if (status === 'completed') return 'completed';
  if (status === 'failed' || status === 'cancelled') return 'failed';
  return 'processing';
}

export function sentEarlier(db: JournalDb, batchId: string): SentEarlier {
  const found = db.prepare(SENT_SQL).all(batchId) as SentRow[];
  const valid = (db.prepare('SELECT COUNT(*) AS n FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = ? AND br.request IS NOT NULL').get(batchId) as { n: number }).n;
  return summarizeSentEarlier(found, valid);
}

/** An entry holding a draft row's external id as sent (SENT_SQL's row). */
export interface SentRow {
  rowNumber: number;
  externalId: string;
  batchId: string | null;
  state: string;
  status: string | null;
}

/** SENT_SQL's rows (a row's best entry first) and the draft's valid row count, as the draft shows them. */
export function summarizeSentEarlier(found: readonly SentRow[], valid: number): SentEarlier {
  const summary: SentEarlier = { count: 0, completed: 0, processing: 0, failed: 0, unknown: 0, neverLeft: valid, rows: [] };
  let last = -1;
  for (const entry of found) {
    if (entry.rowNumber === last) continue; // the best entry of a row comes first (known, newest)
    last = entry.rowNumber;
    const outcome = outcomeOf(entry.state, entry.status);
    summary.count += 1;
    summary[outcome] += 1;
    if (summary.rows.length < SENT_EARLIER_LISTED) summary.rows.push({ rowNumber: entry.rowNumber, externalId: entry.externalId, batchId: entry.batchId, outcome });
  }
  summary.neverLeft = valid - summary.count;
  return summary;
}

/** The row numbers of a draft whose id was sent earlier (all of them, for "Drop the sent rows"). */
export function sentEarlierRowNumbers(db: JournalDb, batchId: string): number[] {
  return [...new Set((db.prepare(SENT_SQL).all(batchId) as { rowNumber: number }[]).map((row) => row.rowNumber))];
}
