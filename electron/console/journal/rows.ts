/**
 * SQLite rows of the journal and their mapping to the shared domain types.
 */
import { FINAL_STATUSES, matchesExternalId, readServiceTransaction, TRANSACTION_STATUSES, type Environment, type ServiceFailedCode, type ServiceStatus, type ServiceTransaction, type TransactionRequest } from '../../../shared/contract';
import { adoptedDifference, REQUEST_CURRENCY, type JournalState, type JournalTransaction, type TimelineEvent, type TimelineEventType, type TransactionKind } from '../../../shared/api';

/** A transaction object as the service returns it, read tolerantly (shared/contract/reading.ts). */
export type { ServiceTransaction };

export interface EntryRow {
  seq: number;
  id: string;
  profile_id: string;
  profile_name: string;
  environment: Environment;
  kind: TransactionKind;
  state: JournalState;
  resolution: 'not_found' | null;
  transaction_id: string | null;
  external_id: string | null;
  status: ServiceStatus | null;
  failed_code: ServiceFailedCode | null;
  amount: number;
  currency: string;
  fee: number | null;
  net_amount: number | null;
  phone_number: string;
  payment_method: string;
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  description: string | null;
  metadata: string | null;
  request: string | null;
  last_error: string | null;
  transaction_json: string | null;
  created_at: number;
  updated_at: number;
  /** Set for a bulk payout's row (journal version 2). */
  batch_id?: string | null;
  batch_row?: number | null;
  /** When the service said this entry's external id already existed (journal version 7). */
  already_sent_at?: number | null;
  /** The external id this entry retries (journal version 7). */
  retry_of?: string | null;
}

export interface TimelineRow {
  id: number;
  journal_id: string;
  type: TimelineEventType;
  at: number;
  status: ServiceStatus | null;
  http_status: number | null;
  code: string | null;
  message: string | null;
  outcome: 'not-sent' | 'unknown' | null;
}

export function toJournalTransaction(row: EntryRow): JournalTransaction {
  return {
    id: row.id,
    profileId: row.profile_id,
    profileName: row.profile_name,
    environment: row.environment,
    kind: row.kind,
    state: row.state,
    transactionId: row.transaction_id,
    externalId: row.external_id,
    status: row.status,
    failedCode: row.failed_code,
    amount: row.amount,
    currency: row.currency,
    fee: row.fee,
    netAmount: row.net_amount,
    phoneNumber: row.phone_number,
    paymentMethod: row.payment_method,
    customer: { first_name: row.customer_first_name, last_name: row.customer_last_name, email: row.customer_email },
    description: row.description,
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : null,
    lastError: row.last_error ? (JSON.parse(row.last_error) as JournalTransaction['lastError']) : null,
    transaction: row.transaction_json ? (JSON.parse(row.transaction_json) as ServiceTransaction) : null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    ...(row.batch_id ? { batch: { batchId: row.batch_id, rowNumber: row.batch_row ?? 0 } } : {}),
    ...(row.already_sent_at ? { alreadySent: true } : {}),
    ...(row.already_sent_at ? adoptedDiffers(row.request, row.transaction_json) : row.state === 'known' ? answerDiffers(row.request, row.transaction_json) : {}),
    ...(row.retry_of ? { retryOf: row.retry_of } : {}),
  };
}

export function toTimelineEvent(row: TimelineRow): TimelineEvent {
  return {
    id: row.id,
    journalId: row.journal_id,
    type: row.type,
    at: new Date(row.at).toISOString(),
    status: row.status,
    httpStatus: row.http_status,
    code: row.code,
    message: row.message,
    outcome: row.outcome,
  };
}

/**
 * An adopted entry whose transaction is not what its request asked (another recipient, amount or
 * currency): read from the request as sent and the transaction as last read (shared/api/adopted.ts).
 */
export function adoptedDiffers(request: string | null, transaction: string | null): { adoptedDiffers?: JournalTransaction['adoptedDiffers'] } {
  if (!request || !transaction) return {};
  const difference = adoptedDifference(JSON.parse(request) as TransactionRequest, REQUEST_CURRENCY, JSON.parse(transaction) as ServiceTransaction);
  return difference ? { adoptedDiffers: difference } : {};
}

/**
 * SQL, both stores: a known entry's `status` column is open (to be followed up): none yet,
 * `initiated`, `processing`, or a status the spec does not list (`pending`). Written as ranges
 * around the final statuses (sorted as both databases sort these lowercase words), not as a
 * NOT IN: the status index serves ranges, and the sweeper reads open entries at every sweep.
 */
export const OPEN_STATUS_SQL = (() => {
  const finals = FINAL_STATUSES.map((status) => `'${status}'`).sort();
  const between = finals.slice(1).map((upper, index) => `(status > ${finals[index]} AND status < ${upper})`);
  return `(status IS NULL OR status < ${finals[0]} OR ${between.join(' OR ')} OR status > ${finals.at(-1)})`;
})();

/**
 * SQL, both stores: the status an Overview counts an entry under. A known entry without a status
 * counts as initiated; one whose status the spec does not list counts as processing (open and
 * followed up, never mistaken for the journal's own `pending`).
 */
export function overviewStatusSql(prefix: '' | 'e.'): string {
  const listed = TRANSACTION_STATUSES.map((status) => `'${status}'`).join(', ');
  return `CASE WHEN ${prefix}state = 'known' THEN CASE WHEN ${prefix}status IS NULL THEN 'initiated' WHEN ${prefix}status IN (${listed}) THEN ${prefix}status ELSE 'processing' END ELSE ${prefix}state END`;
}

/** What a read asked for: the answer must be that transaction, not another one. */
export interface AskedFor {
  /** Looked up by external id (or sent with it): an answer naming another external id is another payout's. */
  externalId?: string | null;
  /** Read by transaction id: an answer with another transaction id is not this entry's. */
  transactionId?: string | null;
}

/**
 * A success answer's data read for what was asked: the transaction, or what is missing or wrong
 * in what decides money, in words (`the answer has no transaction_id`).
 */
export function readAnswer(data: unknown, asked: AskedFor = {}): { ok: true; tx: ServiceTransaction } | { ok: false; missing: string } {
  const read = readServiceTransaction(data);
  if (!read.ok) return read;
  if (!matchesExternalId(read.tx, asked.externalId)) return { ok: false, missing: `the answer names external id ${read.tx.external_id}, not ${asked.externalId}` };
  if (asked.transactionId && read.tx.transaction_id !== asked.transactionId) return { ok: false, missing: `the answer names transaction ${read.tx.transaction_id}, not ${asked.transactionId}` };
  return read;
}

/**
 * The transaction object in a success answer, or null when what decides money is not readable in
 * it or names another transaction than the one asked for (the tolerant reader: every other field
 * is optional, shared/contract/reading.ts).
 */
export function transactionOf(data: unknown, asked: AskedFor = {}): ServiceTransaction | null {
  const read = readAnswer(data, asked);
  return read.ok ? read.tx : null;
}

/** An accepted entry whose service answer is not what its request sent: the same comparison as adoptedDiffers. */
export function answerDiffers(request: string | null, transaction: string | null): { answerDiffers?: JournalTransaction['answerDiffers'] } {
  const { adoptedDiffers: difference } = adoptedDiffers(request, transaction);
  return difference ? { answerDiffers: difference } : {};
}

/** What a request entry is written from, on either store (../storage/port.ts RequestInput has these). */
interface RequestColumns {
  kind: TransactionKind;
  request: TransactionRequest;
  currency: string;
  batch?: { id: string; row: number };
  retryOf?: string | null;
}

/**
 * The request's columns, in this order: amount, currency, phone_number, payment_method,
 * customer_first_name, customer_last_name, customer_email, description, metadata, request,
 * batch_id, batch_row. Both stores write a new entry and a continued attempt from them.
 */
export function requestColumnValues(input: RequestColumns): unknown[] {
  const { request } = input;
  return [
    request.amount,
    input.currency,
    request.phone_number,
    request.payment_method,
    request.customer.first_name,
    request.customer.last_name,
    request.customer.email,
    request.description ?? null,
    request.metadata ? JSON.stringify(request.metadata) : null,
    JSON.stringify(request),
    input.batch?.id ?? null,
    input.batch?.row ?? null,
  ];
}

/** The timeline's first line of a new entry (a retry names the payout it retries). */
export function requestSentMessage(input: RequestColumns): string {
  return input.retryOf ? `${input.kind} request sent (retry of ${input.retryOf})` : `${input.kind} request sent`;
}

/** The timeline line of an earlier attempt continued (it created nothing at the service). */
export function attemptContinuedMessage(input: RequestColumns): string {
  return `${input.kind} request sent again with the same external id (the earlier attempt created nothing)`;
}
