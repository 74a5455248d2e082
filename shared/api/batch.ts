/**
 * Bulk payouts from a CSV file: the domain types main and the renderer exchange (issue 10).
 *
 * A batch is imported as a `draft` (editable), rehearsed on the local engine, confirmed once
 * (a single-use token bound to a hash of every row), then sent; each row becomes an ordinary
 * journal entry linked to the batch, written `pending` before its POST.
 */
import type { Environment, ServiceStatus } from '../contract/codes';
import type { ServiceFailedCode } from '../contract/reading';
import type { FieldErrors, TransactionRequest } from '../contract/schemas';
import type { AdoptedDifference } from './adopted';

/**
 * - `draft`: imported, editable (fix a cell, drop rows), nothing sent;
 * - `sending`: the runner is sending rows;
 * - `paused`: the user paused; no new row is sent until Resume;
 * - `interrupted`: the console stopped (crash, kill) or the network failed mid-batch; Resume first
 *   looks every row whose outcome is unknown up by its external id, then sends the rest;
 * - `cancelled`: the user cancelled the rows not yet sent (those stay `not_sent`);
 * - `done`: every row was sent and answered (final statuses keep arriving afterwards).
 */
export const BATCH_STATES = ['draft', 'sending', 'paused', 'interrupted', 'cancelled', 'done'] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/**
 * A row's sending state (its journal entry's state, read through the batch):
 * - `not_sent`: nothing left the console for this row (not yet, cancelled, or refused before sending);
 * - `pending`: written to the journal, POST in flight;
 * - `accepted`: the service created the payout (its status follows in `status`);
 * - `rejected`: the service refused it (an error envelope): nothing was created;
 * - `unknown`: the POST may have reached the service and no answer came: looked up by external id
 *   before anything is sent again.
 */
export const BATCH_ROW_STATES = ['not_sent', 'pending', 'accepted', 'rejected', 'unknown'] as const;
export type BatchRowState = (typeof BATCH_ROW_STATES)[number];

/** The CSV columns (machine names; the template's headers are the catalogue's, see shared/batch). */
export const BATCH_COLUMNS = ['phone_number', 'amount', 'first_name', 'last_name', 'email', 'description', 'external_id', 'payment_method'] as const;
export type BatchColumn = (typeof BATCH_COLUMNS)[number];
/** Columns a file must have; the others are optional. */
export const REQUIRED_BATCH_COLUMNS: readonly BatchColumn[] = ['phone_number', 'amount', 'first_name', 'last_name', 'email'];
/** Metadata columns are `meta.KEY`. */
export const META_PREFIX = 'meta.';
export const BATCH_MAX_ROWS = 10_000;
export const BATCH_DEFAULT_CONCURRENCY = 4;
export const BATCH_MAX_CONCURRENCY = 16;

/** A row's cells as text, as in the file (or as the user fixed them). `meta` holds `meta.KEY` cells by KEY. */
export interface BatchRowValues {
  phone_number: string;
  amount: string;
  first_name: string;
  last_name: string;
  email: string;
  description: string;
  external_id: string;
  payment_method: string;
  meta: Record<string, string>;
}

export type DuplicateReason = 'phone_amount' | 'external_id';

export interface RehearsalRowResult {
  /** What the local engine answered to the initiate. */
  state: 'accepted' | 'rejected' | 'unknown';
  status: ServiceStatus | null;
  failedCode: ServiceFailedCode | null;
  /** The API error code when rejected (e.g. VALIDATION_ERROR). */
  code: string | null;
  message: string | null;
  /** True when the row would not end `completed`. */
  wouldFail: boolean;
}

/** A batch row after checking (shared/batch/validate.ts): its values, request, errors and duplicates. */
export interface CheckedRow {
  rowNumber: number;
  values: BatchRowValues;
  request: TransactionRequest | null;
  errors: FieldErrors;
  duplicates: { reason: DuplicateReason; rowNumbers: number[] }[];
  externalId: string;
}

/** A checked row (shared/batch) and where its sending stands. */
export interface BatchRow extends CheckedRow {
  state: BatchRowState;
  journalId: string | null;
  transactionId: string | null;
  /** The latest status the console saw (watcher, webhook, lookup). */
  status: ServiceStatus | null;
  failedCode: ServiceFailedCode | null;
  fee: number | null;
  /** The service's refusal, or why the row was not sent. */
  error: { code: string; message: string } | null;
  rehearsal: RehearsalRowResult | null;
  /**
   * The service refused this row's POST because its external id already existed: the row adopted
   * the existing transaction (its status is that one's), shown as "already sent earlier", never
   * offered for retry.
   */
  alreadySent?: true;
  /** Adopted, and the service's transaction is not what this row asks (another recipient or amount). */
  adoptedDiffers?: AdoptedDifference;
  /**
   * The row names a payout another batch (or a single send: batchId null) already made: linked to it,
   * never sent by this batch, counted there (counts.elsewhere).
   */
  paidBy?: { batchId: string | null; rowNumber: number | null };
  /**
   * The row was moved, not sent, to the batch made of a cancelled batch's remaining rows
   * (batches:sendRemaining): that batch holds and counts it, this one never sends it (counts.moved;
   * docs/decisions/a-row-belongs-to-one-batch.md).
   */
  movedTo?: { batchId: string; fileName: string };
  /** The external id of the failed payout this row retries (its own is derived: `<id>-r1`). */
  retryOf?: string;
}

/**
 * The row lists the Bulk payouts table offers (`batches:rows`):
 * - `invalid`: rows with errors (not sent); `duplicates`: rows flagged as a duplicate of another;
 * - `wouldFail`: rows the rehearsal says would not end completed;
 * - `failed`: refused, or created and then failed or cancelled (BatchFigures.failed: the list
 *   holds what the Failed counter counts);
 * - `unknown`: the outcome is unknown (BatchFigures.unknown), looked up before anything is sent again.
 */
export const BATCH_ROW_FILTERS = ['all', 'invalid', 'duplicates', 'wouldFail', 'failed', 'unknown'] as const;
export type BatchRowFilter = (typeof BATCH_ROW_FILTERS)[number];
/** The most rows one `batches:rows` page carries. */
export const BATCH_ROWS_PAGE_MAX = 500;

/** One page of a batch's rows, in row order, under a filter. */
export interface BatchRowsPage {
  batchId: string;
  filter: BatchRowFilter;
  /** Rows the filter keeps in the whole batch. */
  total: number;
  offset: number;
  rows: BatchRow[];
}

export interface BatchCounts {
  rows: number;
  valid: number;
  invalid: number;
  /** Rows flagged as duplicates of another row. */
  duplicates: number;
  notSent: number;
  pending: number;
  accepted: number;
  rejected: number;
  unknown: number;
  /** Of the accepted rows, by the latest status seen. */
  completed: number;
  failed: number;
  cancelled: number;
  processing: number;
  /**
   * Valid rows naming a payout another batch (or a single send) made: linked to it, never sent by
   * this batch, and counted there only (docs/decisions/journal-is-the-idempotency-guard.md).
   */
  elsewhere: number;
  /** Valid rows moved to another batch (a cancelled batch's remaining rows): that batch sends and counts them. */
  moved: number;
}

/**
 * The counters every screen and export shows, from one snapshot of the rows' counts, so they
 * always add up: sent = accepted + failed + unknown + in flight, and valid = sent + remaining.
 * - `accepted`: created at the service and not failed (completed or still processing);
 * - `failed`: refused by the service, or created and then failed or cancelled;
 * - `settled`: every row has a final status (nothing left to send, in flight, unknown or processing).
 */
export interface BatchFigures {
  sent: number;
  accepted: number;
  completed: number;
  failed: number;
  unknown: number;
  inFlight: number;
  processing: number;
  remaining: number;
  /** Rows created at the service whose status is final (completed, failed or cancelled). */
  final: number;
  settled: boolean;
  /** Rows linked to a payout sent earlier elsewhere (another batch, a single send): not sent, not counted here. */
  elsewhere: number;
  /** Rows moved to the batch of this one's remaining rows: sent and counted there only. */
  moved: number;
}

export function batchFigures(counts: BatchCounts): BatchFigures {
  const remaining = counts.notSent;
  return {
    // valid = sent + remaining + elsewhere + moved: a moved row is the other batch's, never this one's.
    sent: counts.valid - remaining - counts.elsewhere - counts.moved,
    accepted: counts.completed + counts.processing,
    completed: counts.completed,
    failed: counts.rejected + counts.failed + counts.cancelled,
    unknown: counts.unknown,
    inFlight: counts.pending,
    processing: counts.processing,
    remaining,
    final: counts.completed + counts.failed + counts.cancelled,
    settled: remaining === 0 && counts.pending === 0 && counts.unknown === 0 && counts.processing === 0,
    elsewhere: counts.elsewhere,
    moved: counts.moved,
  };
}

export interface BatchSummary {
  id: string;
  fileName: string;
  state: BatchState;
  /** Why the batch is interrupted or stopped, in words (null otherwise). */
  stateReason: string | null;
  /** The profile the batch was imported under, then bound at confirmation. */
  profileId: string;
  profileName: string;
  environment: Environment;
  /** Used for rows without a `payment_method` cell. */
  paymentMethod: string | null;
  concurrency: number;
  /** Σ amount of the valid rows. */
  totalAmount: number;
  counts: BatchCounts;
  /** sha256 of the file's rows as imported (the same file imported again has the same one). */
  fileHash: string;
  /** The batch this one retries the failed rows of. */
  retryOf: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /**
   * A team workspace's batch on the Local sandbox put there from another desktop: the login that
   * imported it. Each desktop's Local sandbox is an engine of its own, so only that desktop sends,
   * resumes or helps send it (docs/decisions/local-sandbox-batch-stays-on-its-desktop.md).
   */
  sandboxElsewhereBy?: string;
}

/** An earlier import of the same rows. */
export interface EarlierImport {
  batchId: string;
  fileName: string;
  state: BatchState;
  createdAt: string;
  /** Rows of that batch (a cancelled batch's remaining-rows batch says how many it took). */
  rows?: number;
}

/**
 * A batch without its rows: a batch holds up to 10,000, so the rows come page by page
 * (`batches:rows`) and, while sending, as the rows that changed (BatchProgress.changedRows).
 */
export interface BatchDetail {
  batch: BatchSummary;
  /** The service's wait the runner is sitting out now (a batch reopened mid-wait shows it at once). */
  wait?: ServiceWait | null;
  /** This desktop's runner is sending the batch now (on a team workspace others may send it too: batches:join). */
  sendingHere?: boolean;
  /** Earlier batches with the same rows; a started one must be accepted explicitly at prepare. */
  importedBefore: EarlierImport[];
  rehearsal: RehearsalSummary | null;
  /** A draft's rows whose external id the journal already holds as sent (a re-import): see SentEarlier. */
  sentEarlier?: SentEarlier;
  /** A cancelled batch: the batch made of its remaining rows (batches:sendRemaining), the latest. */
  remainingBatch?: EarlierImport;
  /** Rows that adopted a payout sent earlier which is not what they ask (another recipient or amount): not paid as asked. */
  adoptedDiffering?: number;
  /** A stopped batch with failed rows: what "Retry failed" would take (see RetryLeft). */
  retryLeft?: RetryLeft;
}

/**
 * A stopped batch's failed rows against their retries (batches:retryFailed): `rows` is how many a
 * retry would take now; 0 when every failed row was retried already (and those retries were sent
 * or are drafts), `retriedIn` the latest retry batch, so the screen says where they went.
 */
export interface RetryLeft {
  failed: number;
  rows: number;
  retriedIn: EarlierImport | null;
}

/** How a row sent earlier under the same external id stands, as the journal last saw it. */
export type SentEarlierOutcome = 'completed' | 'processing' | 'failed' | 'unknown';

/**
 * A draft's rows whose external id was already sent (another batch or a single payout holds it,
 * created at the service or perhaps created): these must not be paid again; the rest never left.
 * `rows` lists at most SENT_EARLIER_LISTED of them, in row order; the counts cover them all.
 */
export interface SentEarlier {
  count: number;
  completed: number;
  processing: number;
  failed: number;
  unknown: number;
  /** Valid rows of the draft that were never sent. */
  neverLeft: number;
  rows: { rowNumber: number; externalId: string; batchId: string | null; outcome: SentEarlierOutcome }[];
}
export const SENT_EARLIER_LISTED = 200;

/** A draft's row sent earlier under its external id, and the new id it is paid again under (batches:renewSentIds). */
export interface RenewedId {
  rowNumber: number;
  from: string;
  to: string;
}

/**
 * What `batches:renewSentIds` did, or with `dryRun` would do: `count` rows take a new external id
 * (`rows` lists at most SENT_EARLIER_LISTED of them, in row order); `detail` is the draft after.
 */
export interface RenewedIds {
  count: number;
  rows: RenewedId[];
  applied: boolean;
  detail: BatchDetail;
}

export interface RehearsalSummary {
  at: string;
  rows: number;
  accepted: number;
  rejected: number;
  /** Rows that would not complete (rejected, or failed/cancelled on the local engine). */
  wouldFail: number;
}

export interface BalanceUnread {
  /** null when no HTTP answer came (the network). */
  httpStatus: number | null;
  code: string;
  message: string;
  retryAfterSeconds: number | null;
}

export interface BatchPreview {
  batchId: string;
  profileId: string;
  profileName: string;
  environment: Environment;
  /** Valid rows that will be sent. */
  count: number;
  totalAmount: number;
  /** From the local sandbox's fee schedule; null where the service does not tell fees in advance. */
  totalFees: number | null;
  feesKnown: boolean;
  /** totalAmount + totalFees (totalAmount alone when fees are unknown: a lower bound). */
  totalDebit: number;
  currency: string;
  /** The wallet balance now; null when it could not be read (`balanceUnread` says why). */
  balance: number | null;
  /**
   * Why the balance is missing: the service's refusal (a 429 rate limit, a 503 maintenance, ...)
   * or the failure; a transient refusal, not a property of the service: the screen offers to check again.
   */
  balanceUnread?: BalanceUnread | null;
  overBalance: boolean;
  /**
   * True when the team sender holds this profile's keys (docs/team-sender.md): the sender sends the
   * batch and reads the wallet; this desktop has no key, so the balance is not read here (null).
   */
  bySender?: boolean;
  /** Rows with errors (not sent) and rows flagged as duplicates (sent unless dropped). */
  invalid: number;
  duplicates: number;
}

/** What the confirmation step restates; pass `confirmationToken` to `batches:start`. */
export interface BatchConfirmation extends BatchPreview {
  profileId: string;
  /** sha256 of (profile, environment, every request with its external id). */
  batchHash: string;
  confirmationToken: string;
  expiresAt: string;
}

/**
 * A wait the service asked for: its answer (429 rate limit, 503 maintenance, ...) in its own words,
 * and when the wait ends (its Retry-After, or the console's backoff).
 */
export interface ServiceWait {
  until: string;
  httpStatus: number | null;
  code: string;
  message: string;
}

export interface BatchProgress {
  batchId: string;
  /** `rehearsal`: a rehearsal on the local engine (state is the batch's own). */
  mode: 'send' | 'rehearsal';
  state: BatchState;
  sent: number;
  accepted: number;
  /** Refused rows plus created rows that ended failed or cancelled. */
  failed: number;
  unknown: number;
  /** Valid rows not sent yet. */
  remaining: number;
  /** Rows answered per second over the current run. */
  ratePerSecond: number;
  /** null until a rate is known. */
  etaSeconds: number | null;
  /** Of the rows created at the service: how many reached a final status. */
  final: number;
  /** Accepted rows whose status is not final yet. */
  processing?: number;
  /** Every row has a final status (see batchFigures). */
  settled?: boolean;
  /** Rows linked to a payout sent earlier elsewhere: not sent by this batch, counted where they were paid. */
  elsewhere?: number;
  /** Rows moved to the batch of this one's remaining rows: sent and counted there only. */
  moved?: number;
  /** While the runner waits out the service's 429/503 Retry-After: when the wait ends (ISO time). */
  waitingUntil?: string | null;
  /** The same wait with what the service said (maintenance, rate limit), so the screen can say it. */
  waitingFor?: ServiceWait | null;
  /** Rows answered over the last `rateWindowSeconds` (up to 60: since the start for a younger run); the rate shown. */
  answeredInWindow?: number;
  rateWindowSeconds?: number;
  /** Created rows whose status is completed (the report's figure, from the same count as the others). */
  completed?: number;
  /** A Pause or Cancel was written and the rows in flight are settling (the run has not ended yet). */
  stopping?: 'pause' | 'cancel' | null;
  /** Rows sent and not yet answered (the requests in flight), when the runner knows it: "Pausing… N rows". */
  inFlight?: number;
  /**
   * While sending: the rows whose state changed since the previous push, whole (a delta: the
   * screen patches the rows it holds instead of fetching the batch again). `null`: more rows
   * changed than a push carries (BATCH_DELTA_MAX), fetch the rows shown again. Absent: this push
   * says nothing about rows (a rehearsal, a state change from a Pause or Cancel, a follow-up).
   */
  changedRows?: BatchRow[] | null;
}

/** The most changed rows one progress push carries (about 250 ms of sending at 16 rows in flight). */
export const BATCH_DELTA_MAX = 1000;
