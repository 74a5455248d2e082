/**
 * What the Bulk payouts screens read and write besides sending (issue 24, item 1): a draft's rows
 * and their edits, a batch's rows page by page, its progress counters, its rehearsal, and the
 * journal reads that keep the external id a payout's identity (rows sent earlier, earlier imports'
 * ids, retries of failed payouts). Part of BatchPort (./port.ts), so the batch handlers use the
 * store they were given, a desktop's SQLite journal or a team workspace, and never the journal
 * directly. The contract suite (test/storage/contract-batch-drafts.test.ts) runs each on both.
 */
import type {
  BatchCounts,
  BatchRow,
  BatchRowFilter,
  BatchRowValues,
  BatchState,
  CheckedRow,
  EarlierImport,
  RehearsalRowResult,
  RehearsalSummary,
  SentEarlier,
} from '../../../shared/api';
import type { FieldErrors } from '../../../shared/contract';

/** A checked row, and the external id of the failed payout it retries (a retry draft's row). */
export type NewBatchRow = CheckedRow & { retryOf?: string | undefined };

/** A journal entry sent to retry another payout (`entries.retry_of`). */
export interface RetryEntry {
  externalId: string;
  state: string;
  status: string | null;
  resolution: string | null;
}

/** A row of a file being imported, as parsed (earlier imports' ids are matched on it). */
export interface FileRow {
  rowNumber: number;
  values: BatchRowValues;
}

/** A draft's row as it was read from its file: its cells and its own line errors. */
export interface DraftRowInput {
  rowNumber: number;
  values: BatchRowValues;
  errors: FieldErrors;
}

/** A state move asked `onlyFrom` a state the batch is no longer in (another start, from this desktop or another, came first). */
export class BatchStateChanged extends Error {
  constructor(
    readonly batchId: string,
    readonly state: BatchState,
  ) {
    super(`batch ${batchId} is ${state} now`);
    this.name = 'BatchStateChanged';
  }
}

/** Rows a batch's remaining rows move would take are still held by a desktop's live claim (a workspace): nothing was moved. */
export class RowsStillClaimed extends Error {
  constructor(
    readonly batchId: string,
    readonly count: number,
  ) {
    super(`${count} row(s) of batch ${batchId} are still held by a desktop that was sending them`);
    this.name = 'RowsStillClaimed';
  }
}

export interface BatchDraftsPort {
  /** Every row of a batch, whole, in row order (with the adopted and retry marks). */
  rows(id: string): Promise<BatchRow[]>;
  /** One page of a batch's rows in row order under a filter, and how many rows the filter keeps. */
  rowsPage(id: string, filter: BatchRowFilter, offset: number, limit: number): Promise<{ total: number; rows: BatchRow[] }>;
  /** The given rows, whole, in row order (a progress push's changed rows). */
  rowsByNumber(id: string, rowNumbers: readonly number[]): Promise<BatchRow[]>;
  /** A progress event's state and counters (no amounts); null for no such batch. */
  progressCounts(id: string): Promise<{ state: BatchState; counts: BatchCounts } | null>;
  /** A draft's rows as read from the file, for an edit checked again as a whole. */
  rowInputs(id: string): Promise<DraftRowInput[]>;
  /** A draft's rows replaced by the ones checked again, in one transaction; refused once the batch is not a draft. */
  replaceDraftRows(id: string, rows: readonly CheckedRow[], at: number): Promise<void>;
  rehearsal(id: string): Promise<RehearsalSummary | null>;
  saveRehearsal(id: string, summary: RehearsalSummary, results: ReadonlyMap<number, RehearsalRowResult>, at: number): Promise<void>;
  /** How many rows adopted a payout with another recipient, amount or currency than they ask. */
  adoptedDifferingCount(id: string): Promise<number>;
  /** A draft's valid rows whose external id another entry holds as sent (created, in flight, unknown). */
  sentEarlier(id: string): Promise<SentEarlier>;
  /** The row numbers of all of those (for "Drop the sent rows"). */
  sentEarlierRowNumbers(id: string): Promise<number[]>;
  /** The external ids earlier imports of the same file gave its rows, by row number (../batch/identity.ts). */
  earlierRowIds(fileHash: string, fileRows: readonly FileRow[], environment?: string): Promise<Map<number, string>>;
  /** The latest batch of this name made from a batch's rows (retry, remaining), if any. */
  batchMadeFrom(batchId: string, fileName: string): Promise<EarlierImport | null>;
  /** Every payout entry of this environment that retries another, by the external id it retries, newest first. */
  retriesByOrigin(environment: string): Promise<Map<string, RetryEntry[]>>;
  /** Whether any journal entry (payment or payout, any profile) carries this external id. */
  externalIdInJournal(externalId: string): Promise<boolean>;
}
