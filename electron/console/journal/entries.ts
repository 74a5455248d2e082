/**
 * The journal of transactions: every query takes the database first (a test passes a temp file).
 *
 * A request is written as `pending` BEFORE it is sent and completed after, each step in one SQLite
 * transaction, so a crash in between leaves an entry that the next start marks outcome unknown.
 */
import type { TransactionRequest } from '../../../shared/contract';
import { type JournalTransaction, type TransactionKind } from '../../../shared/api';
import type { JournalDb } from './database';
import { moveEntry } from './phase';
import { entriesHolding, getEntry } from './reads';
import { attemptContinuedMessage, requestColumnValues, requestSentMessage, type EntryRow } from './rows';
import { addEvent, insertEntry, requireRow, type JournalProfile } from './entry-writes';
import { decideIdentity, ExternalIdKnown, type IdentityDecision } from './payout-identity';

// The connection (database.ts), the reads (reads.ts), the write primitives (entry-writes.ts) and the
// service's answers (answers.ts) live in their own files; this module writes the requests (sent,
// sent again, the stale ones at start), and the console reaches the journal's entries through it alone.
export { openJournal, type JournalDb } from './database';
export { entriesHolding, findByTransactionId, getEntry, getEntryForFollowUp, getTimeline, SCOPED_BY_EXTERNAL_ID, SCOPED_BY_TRANSACTION_ID } from './reads';
export { recordInitiateOutcome, recordLookedUp, recordNotFound, recordObserved, recordReadFailure, recordStatusEvent, writeInitiateOutcome } from './answers';
export type { JournalProfile } from './entry-writes';
export { ExternalIdKnown, type KnownPayout } from './payout-identity';

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
  return db.transaction(() => writeRequestInTransaction(db, input))();
}

/**
 * writeRequest's statements inside a transaction the caller holds (a batch row's request and its
 * link to the row share one savepoint of the group commit: no second savepoint of their own).
 */
export function writeRequestInTransaction(db: JournalDb, input: RequestInput): string {
  if (!db.inTransaction) throw new Error('writeRequestInTransaction needs an open transaction');
  const { request } = input;
  const decision = request.external_id ? identityOf(db, input, request.external_id) : ({ kind: 'new' } as const);
  if (decision.kind === 'known') throw new ExternalIdKnown(decision.known);
  if (decision.kind === 'continue') {
    const earlier = requireRow(db, decision.entry.id);
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
  addEvent(db, inserted.seq, input.at, { type: 'request_sent', message: requestSentMessage(input) });
  return inserted.id;
}

/**
 * What a request with this external id does (./payout-identity.ts): refused when the journal holds
 * it as money; the earlier attempt that created nothing continued (a 429, a request that never left,
 * a refusal, a look-up that found nothing), so History keeps one entry per payout with every
 * attempt on its timeline; else a new entry.
 */
function identityOf(db: JournalDb, input: RequestInput, externalId: string): IdentityDecision {
  return decideIdentity(entriesHolding(db, externalId, input.kind, input.profile.environment), input.profile.id);
}

/** The earlier entry sent again: `pending` with the request as it is sent now (and its batch row, if any). */
function continueAttempt(db: JournalDb, row: EntryRow, input: RequestInput): void {
  moveEntry(db, row, 'pending', input.at);
  db.prepare(
    `UPDATE entries SET amount = ?, currency = ?, phone_number = ?, payment_method = ?, customer_first_name = ?, customer_last_name = ?,
       customer_email = ?, description = ?, metadata = ?, request = ?, batch_id = COALESCE(?, batch_id), batch_row = COALESCE(?, batch_row)
     WHERE seq = ?`,
  ).run(...requestColumnValues(input), row.seq);
  addEvent(db, row.seq, input.at, { type: 'request_sent', message: attemptContinuedMessage(input) });
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
    // Another entry holding the same external id as money (another profile's, a look-up's) forbids the POST too.
    if (row.external_id) {
      const others = entriesHolding(db, row.external_id, row.kind, row.environment).filter((held) => held.id !== row.id);
      const decision = decideIdentity(others, row.profile_id);
      if (decision.kind === 'known') throw new ExternalIdKnown(decision.known);
    }
    moveEntry(db, row, 'pending', at);
    addEvent(db, row.seq, at, { type: 'request_sent', message: 'sent again with the same external id' });
  })();
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
