/**
 * What the service said, written to the journal: an initiate's answer, a status seen, a look-up found or not
 * found. Each in one SQLite transaction through the entry state table (./phase.ts).
 */
import type { TransactionStatus } from '../../../shared/contract';
import { ALREADY_EXISTS_CODE, type JournalState, type JournalTransaction, type TransactionKind } from '../../../shared/api';
import type { InitiateOutcome } from '../outcome';
import type { JournalDb } from './database';
import { assertKnown, moveEntry, phaseOf, type ErrorRecord } from './phase';
import { entriesHolding, findByTransactionId, getEntry } from './reads';
import type { ServiceTransaction } from './rows';
import { addEvent, insertEntry, requireAnswerRow, requireRow, type JournalProfile } from './entry-writes';

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
    const row = requireAnswerRow(db, id);
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
    const row = requireAnswerRow(db, id);
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
  // The payout's own entry (one record per payout): found by its external id when it has no transaction id yet.
  const own = input.tx.external_id
    ? entriesHolding(db, input.tx.external_id, input.kind, input.profile.environment).find((held) => held.profile_id === input.profile.id)
    : undefined;
  if (own) return recordObserved(db, own.id, input.tx, { type: 'status_seen', httpStatus: input.httpStatus, message: 'looked up by its external id' }, input.at).entry;
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
      // Read tolerantly: a field the service left out is written empty (the entry's columns are required).
      phoneNumber: tx.account_number ?? '',
      paymentMethod: tx.payment_method?.code ?? '',
      customer: { first_name: tx.customer?.first_name ?? '', last_name: tx.customer?.last_name ?? '', email: tx.customer?.email ?? '' },
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

