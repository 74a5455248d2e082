/**
 * A reconciliation's rows through the storage port (issue 24): the reads and writes the reconcile
 * runner, its handlers and its CSV report make, so a support agent reconciles on a team workspace
 * as on a desktop. The SQLite side is the journal's own functions (../reconcile/store.ts); the
 * workspace's is ./postgres/reconcile-rows.ts. Contract: test/storage/contract-reconcile.test.ts.
 */
import type { Environment, ServiceStatus } from '../../../shared/contract';
import type { JournalTransaction, TransactionKind } from '../../../shared/api';
import type { ReconcileCategory, ReconciliationRow, ReconciliationSummary, ReconcilePhase, ReconcileStatus } from '../../../shared/api/reconcile';
import type { RowOutcome, StoredRow } from '../reconcile/store';

/** What the runner needs to know of a run. */
export interface ReconcileRunDetail {
  status: ReconcileStatus;
  phase: ReconcilePhase;
  totalRows: number;
  profileId: string;
  environment: Environment;
  processingMinutes: number;
  period: { from: number; to: number } | null;
  /** The journal's entries missing from the file were added already. */
  unknownDone: boolean;
}

/** A journal entry of the profile, known to the service: "unknown to the merchant" unless the file has it. */
export interface JournalCandidate {
  /** The page's cursor: entries come in this order. */
  seq: number;
  journalId: string;
  kind: TransactionKind;
  externalId: string | null;
  transactionId: string | null;
  status: ServiceStatus | null;
  amount: number;
  currency: string;
  /** The service's creation time (ms) when the entry holds its transaction, else the entry's. */
  createdAt: number;
}

export type UnknownToMerchant = Omit<JournalCandidate, 'seq'>;

export interface ReconcileRows {
  /** At start: runs whose file saving was cut off (status `importing`) are removed; returns how many. */
  removeUnfinishedImports(): Promise<number>;
  summary(id: string): Promise<ReconciliationSummary | null>;
  /** Newest first. */
  list(limit?: number): Promise<ReconciliationSummary[]>;
  detail(id: string): Promise<ReconcileRunDetail | null>;
  /** File rows with a category, and Verify's count. */
  progressCounts(id: string): Promise<{ checked: number; verify: { done: number; total: number } }>;
  countRateLimitWait(id: string): Promise<void>;
  /** The next file rows not yet checked, in file order. */
  uncheckedRows(id: string, limit: number): Promise<StoredRow[]>;
  /** Rows still processing that Verify has not asked about yet, in order. */
  rowsToVerify(id: string, limit: number): Promise<StoredRow[]>;
  /** Rows the service could not be asked about are checked again by a resume. */
  reopenNotChecked(id: string): Promise<void>;
  /** One transaction: each row's outcome, and the run's `updated_at`. */
  saveOutcomes(id: string, outcomes: { rowNumber: number; outcome: RowOutcome; verified?: boolean }[], at: number): Promise<void>;
  /** The file's `kind:external id` pairs. */
  fileKeys(id: string): Promise<Set<string>>;
  /** The profile's known entries after `afterSeq`, in order, `limit` of them. */
  journalCandidates(profile: { id: string; environment: Environment }, afterSeq: number, limit: number): Promise<JournalCandidate[]>;
  /** One transaction: the entries as rows `unknown_to_merchant` after the file's, and the run marked done with them. */
  addUnknownToMerchant(id: string, entries: readonly UnknownToMerchant[], at: number): Promise<void>;
  /** The report's page, in row order, optionally one category. */
  pageRows(id: string, category: ReconcileCategory | undefined, offset: number, limit: number): Promise<{ rows: ReconciliationRow[]; total: number; offset: number; limit: number }>;
  /** The rows after `afterRow`, in row order (the CSV report's pages). */
  rowsAfter(id: string, category: ReconcileCategory | undefined, afterRow: number, limit: number): Promise<StoredRow[]>;
  /** The journal's latest entry for a merchant row (a known one first), in the profile and environment. */
  entryFor(profile: { id: string; environment: Environment }, kind: TransactionKind, externalId: string): Promise<JournalTransaction | null>;
}
