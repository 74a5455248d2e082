/**
 * The storage port: everything the console records, behind one asynchronous interface with two
 * implementations, the embedded SQLite journal of one desktop (./sqlite-store.ts, an adapter over
 * the journal's own functions) and a team workspace on PostgreSQL (./postgres/store.ts).
 *
 * The console's journal paths go through it: the batch runner (../batch/runner.ts: row claims,
 * entries, answers, look-ups), a single send and its resend (../handlers/send.ts), the follow-ups
 * (../handlers/follow-up.ts: Look up, Verify, History, a transaction's page), the sweeper, the
 * watcher, start-up's pending entries, the Bulk payouts screens (../handlers/batch-*.ts;
 * ./batch-drafts-port.ts), the Overview, History's export, "refused, paid later"
 * (./journal-reads-port.ts) and reconciliation (./reconcile-rows-port.ts) (issue 24). The contract suite
 * (test/storage/contract.test.ts) runs every behaviour here against both stores, so a behaviour
 * cannot exist on one store only. Times are milliseconds from the caller's clock, as in the journal.
 */
import type { Environment, ServiceStatus, TransactionRequest, TransactionStatus } from '../../../shared/contract';
import type {
  BatchCounts,
  BatchRow,
  BatchRowState,
  BatchState,
  BatchSummary,
  EarlierImport,
  JournalTransaction,
  SearchPage,
  SearchQuery,
  TimelineEvent,
  TransactionKind,
} from '../../../shared/api';
import type { ReconcilePhase, ReconcileStatus } from '../../../shared/api/reconcile';
import type { JournalProfile } from '../journal/entries';
import type { KnownPayout } from '../journal/payout-identity';
import type { ErrorRecord } from '../journal/phase';
import type { ServiceTransaction } from '../journal/rows';
import type { InitiateOutcome } from '../outcome';
import type { MerchantRow } from '../reconcile/parse';
import type { BatchDraftsPort, NewBatchRow } from './batch-drafts-port';
import type { BatchRunsPort } from './batch-runs-port';
import type { ChangesPort } from './changes-port';
import type { JournalReads } from './journal-reads-port';
import type { ReconcileRows } from './reconcile-rows-port';
import type { ApprovalsPort } from './approvals-port';
import type { PeoplePort } from './people-port';
import type { AuditPort } from './audit-port';
import type { TeamProfilesPort } from './team-profiles-port';
import type { TeamSandboxPort } from './team-sandbox-port';
import type { SendAsksPort } from './send-asks-port';
import type { LoginRightsPort } from './login-rights-port';

/** The outcome a lost lease gives a row in flight (its entry still pending): it may have been sent. */
export const LEASE_LOST_MESSAGE = 'the desktop sending this row lost its claim before the answer came: look it up by its external id';

/** Why a batch row's entry was not written: the row has one already, or another desktop holds it. */
export function rowTakenMessage(batchId: string, row: number): string {
  return `batch ${batchId} row ${row} already has its journal entry or is held by another desktop: it is not sent again`;
}

/** The JSON array both stores keep of a reconciliation's ignored columns (NULL for runs saved before: none). */
export function readIgnoredColumns(text: string | null): string[] {
  return text === null ? [] : (JSON.parse(text) as string[]);
}

export interface RequestInput {
  profile: JournalProfile;
  kind: TransactionKind;
  request: TransactionRequest;
  currency: string;
  at: number;
  /** The batch row this entry sends: written with the entry, and the row linked to it, in one transaction. */
  batch?: { id: string; row: number };
  /** The external id of the failed payout this one retries (its own is derived from it: <id>-r1); SQLite journal migration 9, workspace 10. */
  retryOf?: string | null;
}

export interface ObservedEvent {
  type: 'status_seen' | 'verify_result' | 'sandbox_status';
  httpStatus?: number | null;
  message?: string | null;
  quietUnlessChanged?: boolean;
}

/** An entry with what following it up needs: the request as sent (a resend sends it again) and its resolution. */
export interface FollowUpEntry {
  entry: JournalTransaction;
  request: TransactionRequest | null;
  resolution: 'not_found' | null;
  /**
   * A team workspace's `local-sandbox` entry written by another login: the login whose desktop's own
   * engine holds it (this desktop's engine does not; docs/decisions/local-sandbox-follow-ups.md).
   */
  heldElsewhereBy?: string | null;
}

/** A transaction a Look up found: recorded on the entry that has its transaction id, or a new entry. */
export interface LookedUpInput {
  profile: JournalProfile;
  kind: TransactionKind;
  tx: ServiceTransaction;
  httpStatus: number;
  at: number;
}

/** A follow-up read (Verify) that failed: recorded on the timeline, the entry's phase unchanged. */
export type ReadFailure = { kind: 'api-error'; error: ErrorRecord } | { kind: 'transport'; outcome: 'not-sent' | 'unknown'; message: string };

/** Following an entry up: Look up, Verify, a resend, the watcher's status pushes. */
export interface FollowUpJournal {
  /** The entry with its request and resolution (Verify, Look up by external id, Resend). */
  getForFollowUp(id: string): Promise<FollowUpEntry | null>;
  /** The payout (or payment) an external id already names in this environment (any profile) as money, or null (../journal/payout-identity.ts). */
  knownPayout(kind: TransactionKind, environment: Environment, externalId: string): Promise<KnownPayout | null>;
  /** Entries holding this service transaction id, newest first; within one profile and environment when scoped. */
  findByTransactionId(transactionId: string, scope?: { profileId: string; environment: Environment }): Promise<JournalTransaction[]>;
  /** A Look up's transaction: the entry with its transaction id (same profile and environment) records it, else a new `known` entry. */
  recordLookedUp(input: LookedUpInput): Promise<JournalTransaction>;
  /** A failed follow-up read: one timeline event; the entry's phase stays (a read changes nothing at the service). */
  recordReadFailure(id: string, failure: ReadFailure, at: number): Promise<JournalTransaction>;
  /** A status known only by its status (a push whose transaction could not be read): the status and one event. */
  recordStatusEvent(id: string, status: TransactionStatus, message: string, at: number): Promise<{ entry: JournalTransaction; changed: boolean }>;
}

/** Journal entries and their timeline (History, a transaction's page, sending one payout). */
export interface JournalPort extends FollowUpJournal, JournalReads {
  /** Writes the request `pending` BEFORE it is sent; returns the entry's id. */
  writeRequest(input: RequestInput): Promise<string>;
  /** The same entry `pending` again, for a resend with the same external id (only from not_sent / not_found). */
  writeResend(id: string, at: number): Promise<void>;
  /**
   * A batch row whose external id the journal already holds as a payout (ExternalIdKnown) is never
   * sent: it is linked to that payout instead ("paid by batch X, row N"). False when the row has an
   * entry already (or another desktop holds it).
   */
  linkRowToPayout(batch: { id: string; row: number }, journalId: string): Promise<boolean>;
  writeInitiateOutcome(id: string, outcome: InitiateOutcome, at: number): Promise<void>;
  recordObserved(id: string, tx: ServiceTransaction, event: ObservedEvent, at: number): Promise<{ entry: JournalTransaction; changed: boolean }>;
  /** A lookup by external id found nothing: the entry may be sent again with the same external id. */
  recordNotFound(id: string, at: number, message: string): Promise<JournalTransaction>;
  /** Entries still `pending` (their sender stopped) become outcome unknown; returns their ids. */
  markStalePending(at: number): Promise<string[]>;
  getEntry(id: string): Promise<JournalTransaction | null>;
  /** Newest first. */
  getTimeline(id: string): Promise<TimelineEvent[]>;
  /** History: paged, newest first, with the search box's text and the exact filters. */
  search(query: SearchQuery, offset: number, limit: number): Promise<SearchPage>;
}

export interface NewBatch {
  id: string;
  fileName: string;
  fileHash: string;
  profile: JournalProfile;
  paymentMethod: string | null;
  concurrency: number;
  retryOf: string | null;
  /** Each with the external id of the failed payout it retries, when it does (SQLite journal migration 9, workspace 10). */
  rows: readonly NewBatchRow[];
  at: number;
}

export interface BatchStateExtra {
  reason?: string | null;
  started?: boolean;
  finished?: boolean;
  concurrency?: number;
  profile?: JournalProfile;
  /** Moved only from this state, checked in the same transaction (else BatchStateChanged): two starts of one draft, one wins. */
  onlyFrom?: BatchState;
}

/** A lease on a few rows of a batch: only its holder sends them until `until`. */
export interface RowClaim {
  batchId: string;
  holder: string;
  until: number;
  rows: BatchRow[];
}

/** Batches, their rows and runs (Bulk payouts, the batch runner); the screens' drafts and reads in ./batch-drafts-port.ts. */
export interface BatchPort extends BatchDraftsPort, BatchRunsPort {
  create(input: NewBatch): Promise<void>;
  /**
   * A cancelled batch's remaining rows (valid, not sent, not moved) moved to the draft `make`
   * builds of them, in one transaction (docs/decisions/a-row-belongs-to-one-batch.md): the draft
   * written, each old row marked moved to it and never sent by the old batch. Null (nothing
   * written) when no row remains; BatchStateChanged when the batch is not cancelled;
   * RowsStillClaimed when a desktop's live claim still holds one of them (a lease live at `at`;
   * a workspace reads its database's clock).
   */
  moveRemaining(fromId: string, at: number, make: (remaining: BatchRow[]) => NewBatch): Promise<NewBatch | null>;
  summary(id: string): Promise<BatchSummary | null>;
  /** Newest first. */
  list(limit?: number): Promise<BatchSummary[]>;
  earlierImports(fileHash: string, exceptId: string): Promise<EarlierImport[]>;
  /** The one write of a batch's state, checked against BATCH_STATE_TABLE in the same transaction. */
  setState(id: string, state: BatchState, at: number, extra?: BatchStateExtra): Promise<void>;
  /** Valid rows in the given sending states, in row order. */
  rowsInState(id: string, states: readonly BatchRowState[]): Promise<BatchRow[]>;
  counts(id: string): Promise<{ counts: BatchCounts; totalAmount: number }>;
  /** Batches that were `sending` when their senders stopped become `interrupted`; returns their ids. */
  markInterrupted(at: number): Promise<string[]>;
  /**
   * Claims up to `limit` rows not sent, in row order, for `holder` until `at + leaseMs`: rows
   * another holder's live lease covers are skipped, and nothing is claimed unless the batch is
   * `sending` (a Pause or Cancel from any desktop stops every desktop's claims).
   */
  claimRows(batchId: string, holder: string, limit: number, leaseMs: number, at: number): Promise<RowClaim>;
  /**
   * Extends the holder's leases on the batch, only on `rowNumbers` when given; returns how many
   * of those rows (or of the batch's) it still holds.
   */
  renewClaims(batchId: string, holder: string, leaseMs: number, at: number, rowNumbers?: readonly number[]): Promise<number>;
  /** The holder is done with these rows (their answers are recorded). */
  releaseClaims(batchId: string, holder: string, rowNumbers: readonly number[]): Promise<void>;
  /**
   * Leases past `at`: their rows are freed, and a row whose entry is still `pending` (its holder
   * may have sent it) becomes outcome unknown, to be looked up by external id, never resent
   * blindly. Returns the rows made outcome unknown.
   */
  expireClaims(at: number): Promise<{ batchId: string; rowNumber: number; journalId: string }[]>;
}

export interface NewReconciliation {
  fileName: string;
  profile: JournalProfile;
  rows: readonly MerchantRow[];
  /** The file's columns Paydesk read past (SQLite journal migration 7, workspace migration 8); none when absent. */
  ignoredColumns?: readonly string[];
  processingMinutes: number;
  period: { from: number; to: number; source: 'file' | 'picked' } | null;
  currency: string;
  at: number;
}

export interface ReconcileRunInfo {
  id: string;
  status: ReconcileStatus;
  phase: ReconcilePhase;
  totalRows: number;
  fileName: string;
  /** File rows not yet given a category. */
  unchecked: number;
  /** The file's columns read past, as saved (none for runs saved before they were kept). */
  ignoredColumns: string[];
}

/** Reconcile runs and their rows (./reconcile-rows-port.ts: the runner's matching, the report). */
export interface ReconcilePort extends ReconcileRows {
  /** Saves a file's rows and makes the run `running`; returns its id. Throws if `alive` turned false meanwhile (nothing saved shows). */
  create(input: NewReconciliation, alive?: () => boolean): Promise<string>;
  run(id: string): Promise<ReconcileRunInfo | null>;
  /** Checked against RECONCILE_STATE_TABLE in the same transaction. */
  setStatus(id: string, status: ReconcileStatus, at: number, phase?: ReconcilePhase): Promise<void>;
  /** Runs that were `running` when their console stopped become `interrupted`; returns how many. */
  markInterrupted(at: number): Promise<number>;
}

export interface OpenEntry {
  id: string;
  kind: TransactionKind;
  state: 'known' | 'outcome_unknown';
  status: ServiceStatus | null;
  transactionId: string | null;
  externalId: string | null;
  profileId: string;
  /** The environment it was sent in: followed up only while its profile still points there. */
  environment: Environment;
  batchId: string | null;
  /** Its last change (ms) and id: where the next page of a sweep starts (`OpenEntryCursor`). */
  updatedAtMs: number;
}

/** Where a page of open entries starts: after this (updated_at, id), in that order. */
export interface OpenEntryCursor {
  updatedAtMs: number;
  id: string;
}

/** The first page's cursor: before every entry. */
export const FIRST_OPEN_PAGE: OpenEntryCursor = { updatedAtMs: -1, id: '' };

/** The follow-up sweeper's work: entries not final yet, oldest change first (then by id). */
export interface SweeperPort {
  /**
   * Known but not final, or outcome unknown (with an external id, not yet resolved; single sends older than `singleSendsBefore`).
   * On a workspace, never another login's `local-sandbox` entries (their desktop's engine holds them).
   */
  openEntries(singleSendsBefore: number, limit: number, after?: OpenEntryCursor): Promise<OpenEntry[]>;
}

/** Settings that belong to the whole team (a workspace), not to one desktop. */
export interface TeamSettingsPort {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, at: number): Promise<void>;
}

export interface StoragePort extends LoginRightsPort {
  readonly kind: 'sqlite' | 'postgres';
  readonly journal: JournalPort;
  readonly batches: BatchPort;
  readonly reconcile: ReconcilePort;
  readonly sweeper: SweeperPort;
  readonly settings: TeamSettingsPort;
  /** What was committed, as it is committed (./changes-port.ts): this desktop's writes, or a workspace's. */
  readonly changes: ChangesPort;
  /** Four eyes (./approvals-port.ts): a team workspace's only; absent on one desktop's SQLite journal. */
  readonly approvals?: ApprovalsPort;
  /** People, roles and the changes a second admin applies (./people-port.ts): a team workspace's only. */
  readonly people?: PeoplePort;
  /** The audit log, read (./audit-port.ts): a team workspace's only, like approvals. */
  readonly audit?: AuditPort;
  /** Connection definitions the team shares (./team-profiles-port.ts): a workspace's; one desktop's journal answers "unavailable". */
  readonly teamProfiles?: TeamProfilesPort;
  /** The team sandbox the sender serves, its control API for admins (./postgres/team-sandbox.ts): a team workspace's only. */
  readonly teamSandbox?: TeamSandboxPort;
  /** Asks of the team sender (./send-asks-port.ts): a team workspace's only. */
  readonly sendAsks?: SendAsksPort;
  close(): Promise<void>;
}
