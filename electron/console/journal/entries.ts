/**
 * The journal of transactions: every query takes the database first (a test passes a temp file).
 *
 * A request is written as `pending` BEFORE it is sent and completed after, each step in one SQLite
 * transaction, so a crash in between leaves an entry that the next start marks outcome unknown.
 */
import { randomUUID } from 'node:crypto';
import type { Environment, TransactionRequest, TransactionStatus } from '../../../shared/contract';
import { ALREADY_EXISTS_CODE, type JournalState, type JournalTransaction, type TimelineEventType, type TransactionKind } from '../../../shared/api';
import type { InitiateOutcome } from '../outcome';
import { ENTRY_STATES } from '../states/tables';
import type { JournalDb } from './database';
import { assertKnown, moveEntry, phaseOf, type ErrorRecord } from './phase';
import { findByTransactionId, getEntry, rowById } from './reads';
import type { EntryRow, ServiceTransaction } from './rows';

// The connection (database.ts) and the reads (reads.ts) live in their own files; the console reaches
// the journal's entries through this module alone.
export { openJournal, type JournalDb } from './database';
export { findByTransactionId, getEntry, getEntryForFollowUp, getTimeline, SCOPED_BY_EXTERNAL_ID, SCOPED_BY_TRANSACTION_ID } from './reads';

export interface JournalProfile {
  id: string;
  name: string;
  environment: Environment;
}

interface TimelineInput {
  type: TimelineEventType;
  status?: string | null;
  httpStatus?: number | null;
  code?: string | null;
  message?: string | null;
  outcome?: 'not-sent' | 'unknown' | null;
}

function addEvent(db: JournalDb, seq: number, at: number, event: TimelineInput): void {
  db.prepare(
    `INSERT INTO timeline (entry_seq, type, at, status, http_status, code, message, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(seq, event.type, at, event.status ?? null, event.httpStatus ?? null, event.code ?? null, event.message ?? null, event.outcome ?? null);
}

function requireRow(db: JournalDb, id: string): EntryRow {
  const row = rowById(db, id);
  if (!row) throw new Error(`journal entry ${id} does not exist`);
  return row;
}

/** The columns a new entry is written with; the one INSERT of the journal's entries. */
interface NewEntry {
  profile: JournalProfile;
  kind: TransactionKind;
  state: 'pending' | 'known';
  transactionId: string | null;
  externalId: string | null;
  status: string | null;
  failedCode: string | null;
  amount: number;
  currency: string;
  phoneNumber: string;
  paymentMethod: string;
  customer: { first_name: string; last_name: string; email: string };
  description: string | null;
  metadata: unknown;
  request: TransactionRequest | null;
  transaction: ServiceTransaction | null;
  /** The batch row this entry sends, written with the entry (no second UPDATE per row). */
  batch?: { id: string; row: number };
  at: number;
}

/** Inserts an entry (checked against ENTRY_STATES as a new record); returns its id and seq. */
function insertEntry(db: JournalDb, entry: NewEntry): { id: string; seq: number } {
  const id = randomUUID();
  ENTRY_STATES.assertMove(null, entry.state, id);
  const result = db
    .prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status,
         failed_code, amount, currency, phone_number, payment_method, customer_first_name, customer_last_name,
         customer_email, description, metadata, request, transaction_json, batch_id, batch_row, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      entry.profile.id,
      entry.profile.name,
      entry.profile.environment,
      entry.kind,
      entry.state,
      entry.transactionId,
      entry.externalId,
      entry.status,
      entry.failedCode,
      entry.amount,
      entry.currency,
      entry.phoneNumber,
      entry.paymentMethod,
      entry.customer.first_name,
      entry.customer.last_name,
      entry.customer.email,
      entry.description,
      entry.metadata ? JSON.stringify(entry.metadata) : null,
      entry.request ? JSON.stringify(entry.request) : null,
      entry.transaction ? JSON.stringify(entry.transaction) : null,
      entry.batch?.id ?? null,
      entry.batch?.row ?? null,
      entry.at,
      entry.at,
    );
  return { id, seq: Number(result.lastInsertRowid) };
}

/** Writes the request before it is sent: state `pending`, timeline `request_sent`. */
export function recordRequest(db: JournalDb, input: RequestInput): JournalTransaction {
  return getEntry(db, writeRequest(db, input))!;
}

interface RequestInput {
  profile: JournalProfile;
  kind: TransactionKind;
  request: TransactionRequest;
  currency: string;
  at: number;
  batch?: { id: string; row: number };
  /** The external id this payout retries (its own is derived from it: <id>-r1). */
  retryOf?: string | null;
}

/**
 * recordRequest without reading the entry back: returns its id (a batch writes many rows per
 * transaction and needs nothing else).
 */
export function writeRequest(db: JournalDb, input: RequestInput): string {
  const { request } = input;
  return db.transaction(() => {
    const earlier = request.external_id ? attemptThatCreatedNothing(db, input, request.external_id) : null;
    if (earlier) {
      continueAttempt(db, earlier, input);
      return earlier.id;
    }
    const inserted = insertEntry(db, {
      profile: input.profile,
      kind: input.kind,
      state: 'pending',
      transactionId: null,
      externalId: request.external_id ?? null,
      status: null,
      failedCode: null,
      amount: request.amount,
      currency: input.currency,
      phoneNumber: request.phone_number,
      paymentMethod: request.payment_method,
      customer: request.customer,
      description: request.description ?? null,
      metadata: request.metadata ?? null,
      request,
      transaction: null,
      ...(input.batch ? { batch: input.batch } : {}),
      at: input.at,
    });
    if (input.retryOf) db.prepare('UPDATE entries SET retry_of = ? WHERE seq = ?').run(input.retryOf, inserted.seq);
    addEvent(db, inserted.seq, input.at, { type: 'request_sent', message: input.retryOf ? `${input.kind} request sent (retry of ${input.retryOf})` : `${input.kind} request sent` });
    return inserted.id;
  })();
}

/** The latest entry of this payout (profile, environment, kind, external id), by its index. */
export const LATEST_BY_EXTERNAL_ID = `SELECT * FROM entries INDEXED BY entries_by_external_id
  WHERE external_id = ? AND kind = ? AND profile_id = ? AND environment = ?
  ORDER BY created_at DESC, seq DESC LIMIT 1`;

/**
 * The entry of an earlier attempt with this external id that created nothing at the service (a
 * 429 or a request that never left: `not_sent`; looked up and not found: `not_found`). The
 * external id is the payout's identity: a new attempt continues that entry, so History keeps one
 * entry per payout with every attempt in its timeline, never a refused attempt of its own.
 */
function attemptThatCreatedNothing(db: JournalDb, input: RequestInput, externalId: string): EntryRow | null {
  const row = db.prepare(LATEST_BY_EXTERNAL_ID).get(externalId, input.kind, input.profile.id, input.profile.environment) as EntryRow | undefined;
  if (!row) return null;
  const phase = phaseOf(row);
  return phase === 'not_sent' || phase === 'not_found' ? row : null;
}

/** The earlier entry sent again: `pending` with the request as it is sent now (and its batch row, if any). */
function continueAttempt(db: JournalDb, row: EntryRow, input: RequestInput): void {
  const { request } = input;
  moveEntry(db, row, 'pending', input.at);
  db.prepare(
    `UPDATE entries SET amount = ?, currency = ?, phone_number = ?, payment_method = ?, customer_first_name = ?, customer_last_name = ?,
       customer_email = ?, description = ?, metadata = ?, request = ?, batch_id = COALESCE(?, batch_id), batch_row = COALESCE(?, batch_row)
     WHERE seq = ?`,
  ).run(
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
    row.seq,
  );
  addEvent(db, row.seq, input.at, { type: 'request_sent', message: `${input.kind} request sent again with the same external id (the earlier attempt created nothing)` });
}

/** Marks an entry `pending` again for a resend with the same request and external id. */
export function recordResend(db: JournalDb, id: string, at: number): JournalTransaction {
  writeResend(db, id, at);
  return getEntry(db, id)!;
}

/** recordResend without reading the entry back. */
export function writeResend(db: JournalDb, id: string, at: number): void {
  db.transaction(() => {
    const row = requireRow(db, id);
    moveEntry(db, row, 'pending', at);
    addEvent(db, row.seq, at, { type: 'request_sent', message: 'sent again with the same external id' });
  })();
}

/** Writes what the service says of the transaction; the entry becomes (or stays) `known`. */
function applyTransaction(db: JournalDb, seq: number, tx: ServiceTransaction, at: number): void {
  const state: JournalState = 'known';
  const full = tx as ServiceTransaction & { fee?: number; net_amount?: number };
  db.prepare(
    `UPDATE entries SET state = ?, transaction_id = ?, external_id = COALESCE(?, external_id), status = ?, failed_code = ?,
       amount = ?, currency = ?, fee = COALESCE(?, fee), net_amount = COALESCE(?, net_amount),
       last_error = CASE WHEN ? = 'known' THEN NULL ELSE last_error END,
       transaction_json = ?, updated_at = ? WHERE seq = ?`,
  ).run(
    state,
    tx.transaction_id,
    tx.external_id,
    tx.status,
    tx.failed_code,
    tx.amount,
    tx.currency,
    typeof full.fee === 'number' ? full.fee : null,
    typeof full.net_amount === 'number' ? full.net_amount : null,
    state,
    JSON.stringify(tx),
    at,
    seq,
  );
}

/**
 * A follow-up read (verify, retrieve) failed: the event is recorded; the entry's phase stays
 * (a read changes nothing at the service). An initiate's answer goes through recordInitiateOutcome.
 */
export function recordReadFailure(db: JournalDb, id: string, failure: { kind: 'api-error'; error: ErrorRecord } | { kind: 'transport'; outcome: 'not-sent' | 'unknown'; message: string }, at: number): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    db.prepare(`UPDATE entries SET updated_at = ? WHERE seq = ?`).run(at, row.seq);
    if (failure.kind === 'api-error') {
      addEvent(db, row.seq, at, { type: 'api_error', httpStatus: failure.error.httpStatus, code: failure.error.code, message: failure.error.message });
    } else {
      addEvent(db, row.seq, at, { type: 'transport_failure', outcome: failure.outcome, message: failure.message });
    }
  })();
  return getEntry(db, id)!;
}

/**
 * A status seen by retrieve, verify, a webhook or a sandbox status push: the whole transaction
 * object is stored. A `status_seen` with no change adds no timeline event (the watcher polls; the
 * timeline shows changes); `quietUnlessChanged` asks the same of another type (a late push).
 */
export function recordObserved(
  db: JournalDb,
  id: string,
  tx: ServiceTransaction,
  event: { type: 'status_seen' | 'verify_result' | 'sandbox_status'; httpStatus?: number | null; message?: string | null; quietUnlessChanged?: boolean },
  at: number,
): { entry: JournalTransaction; changed: boolean } {
  let changed = false;
  db.transaction(() => {
    const row = requireRow(db, id);
    changed = row.status !== tx.status || row.state !== 'known' || row.failed_code !== tx.failed_code;
    assertKnown(row);
    applyTransaction(db, row.seq, tx, at);
    const quiet = event.type === 'status_seen' || event.quietUnlessChanged === true;
    if (!quiet || changed) {
      addEvent(db, row.seq, at, { type: event.type, status: tx.status, httpStatus: event.httpStatus ?? null, message: event.message ?? null });
    }
  })();
  return { entry: getEntry(db, id)!, changed };
}

/**
 * A status change known only by its status (the sandbox said so, but reading the transaction
 * failed): the status is recorded; the rest of the object waits for the next read.
 */
export function recordStatusEvent(db: JournalDb, id: string, status: TransactionStatus, message: string, at: number): { entry: JournalTransaction; changed: boolean } {
  let changed = false;
  db.transaction(() => {
    const row = requireRow(db, id);
    changed = row.status !== status;
    db.prepare(`UPDATE entries SET status = ?, updated_at = ? WHERE seq = ?`).run(status, at, row.seq);
    addEvent(db, row.seq, at, { type: 'sandbox_status', status, message });
  })();
  return { entry: getEntry(db, id)!, changed };
}

/** A lookup by external id found nothing: the entry was never created (`not_found`), so it may be sent again. */
export function recordNotFound(db: JournalDb, id: string, at: number, message: string): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    if (phaseOf(row) === 'not_found') return; // another lookup (the follow-up sweep) said so already
    moveEntry(db, row, 'not_found', at);
    addEvent(db, row.seq, at, { type: 'status_seen', code: 'NOT_FOUND', message });
  })();
  return getEntry(db, id)!;
}

/**
 * The answer to an initiate, as classified by ../outcome.ts, written in one transaction: the
 * entry's move and its timeline event. A 5xx is recorded as the server error it is (an
 * `api_error` event), with the entry outcome unknown; a transport failure as a transport failure.
 */
export function recordInitiateOutcome(db: JournalDb, id: string, outcome: InitiateOutcome, at: number): JournalTransaction {
  writeInitiateOutcome(db, id, outcome, at);
  return getEntry(db, id)!;
}

/** recordInitiateOutcome without reading the entry back (a batch's answers, several per transaction). */
export function writeInitiateOutcome(db: JournalDb, id: string, outcome: InitiateOutcome, at: number): void {
  db.transaction(() => {
    const row = requireRow(db, id);
    switch (outcome.kind) {
      case 'accepted':
        assertKnown(row);
        applyTransaction(db, row.seq, outcome.tx, at);
        addEvent(db, row.seq, at, { type: 'response', status: outcome.tx.status, httpStatus: outcome.httpStatus, message: outcome.message ?? `${row.kind} created` });
        return;
      case 'refused':
        moveEntry(db, row, 'rejected', at, outcome.error);
        addEvent(db, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.error.message });
        return;
      case 'exists':
        // Not a failure: money under this external id may exist. The entry waits, outcome unknown,
        // for the look-up by external id that adopts the existing transaction (never a new id).
        moveEntry(db, row, 'outcome_unknown', at);
        db.prepare('UPDATE entries SET already_sent_at = COALESCE(already_sent_at, ?) WHERE seq = ?').run(at, row.seq);
        // Marked ALREADY_EXISTS (the service's own code stays in the message): the timeline says
        // what it means instead of "refused".
        addEvent(db, row.seq, at, {
          type: 'api_error',
          httpStatus: outcome.error.httpStatus,
          code: ALREADY_EXISTS_CODE,
          message: `${outcome.error.code}: ${outcome.error.message}`,
          outcome: 'unknown',
        });
        return;
      case 'retry-later':
        moveEntry(db, row, 'not_sent', at, outcome.error);
        addEvent(db, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.error.message, outcome: 'not-sent' });
        return;
      case 'not-sent':
        moveEntry(db, row, 'not_sent', at, { code: 'NOT_SENT', message: outcome.message, httpStatus: null });
        addEvent(db, row.seq, at, { type: 'transport_failure', outcome: 'not-sent', message: outcome.message });
        return;
      case 'may-exist':
        moveEntry(db, row, 'outcome_unknown', at);
        if (outcome.error) {
          addEvent(db, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.message, outcome: 'unknown' });
        } else {
          addEvent(db, row.seq, at, { type: 'transport_failure', outcome: 'unknown', message: outcome.message });
        }
        return;
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
  })();
}

/** A transaction found by a lookup: updates the entry the console has for it, or adds one. */
export function recordLookedUp(
  db: JournalDb,
  input: { profile: JournalProfile; kind: TransactionKind; tx: ServiceTransaction; httpStatus: number; at: number },
): JournalTransaction {
  const existing = findByTransactionId(db, input.tx.transaction_id, { profileId: input.profile.id, environment: input.profile.environment })[0];
  if (existing) return recordObserved(db, existing.id, input.tx, { type: 'status_seen', httpStatus: input.httpStatus, message: 'looked up' }, input.at).entry;
  const { tx } = input;
  const id = db.transaction(() => {
    const { id: newId, seq } = insertEntry(db, {
      profile: input.profile,
      kind: input.kind,
      state: 'known',
      transactionId: tx.transaction_id,
      externalId: tx.external_id,
      status: tx.status,
      failedCode: tx.failed_code,
      amount: tx.amount,
      currency: tx.currency,
      // The service returns the (partly masked) account number, not the phone number typed.
      phoneNumber: tx.account_number,
      paymentMethod: tx.payment_method.code,
      customer: tx.customer,
      description: tx.description,
      metadata: tx.metadata ?? null,
      request: null,
      transaction: tx,
      at: input.at,
    });
    applyTransaction(db, seq, tx, input.at);
    addEvent(db, seq, input.at, { type: 'status_seen', status: tx.status, httpStatus: input.httpStatus, message: 'looked up' });
    return newId;
  })();
  return getEntry(db, id)!;
}

/**
 * At startup: entries still `pending` were being sent when the console stopped; whether the
 * request reached the server is unknown, so they become `outcome_unknown`.
 */
export function markStalePending(db: JournalDb, at: number): string[] {
  const ids: string[] = [];
  db.transaction(() => {
    const rows = db.prepare(`SELECT * FROM entries WHERE state = 'pending'`).all() as EntryRow[];
    for (const row of rows) {
      moveEntry(db, row, 'outcome_unknown', at);
      addEvent(db, row.seq, at, {
        type: 'transport_failure',
        outcome: 'unknown',
        message: 'the console stopped before the answer came: look it up by its external id',
      });
      ids.push(row.id);
    }
  })();
  return ids;
}
