/**
 * The journal of transactions: every query takes the database first (a test passes a temp file).
 *
 * A request is written as `pending` BEFORE it is sent and completed after, each step in one SQLite
 * transaction, so a crash in between leaves an entry that the next start marks outcome unknown.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Environment, TransactionRequest, TransactionStatus } from '../../../shared/contract';
import type { JournalState, JournalTransaction, TimelineEvent, TimelineEventType, TransactionKind } from '../../../shared/api';
import { migrate } from './migrations';
import { fold } from './text-search';
import { toJournalTransaction, type EntryRow, type TimelineRow, toTimelineEvent, type ServiceTransaction } from './rows';

export type JournalDb = Database.Database;

export function openJournal(file: string, options: { nativeBinding?: string } = {}): JournalDb {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 16 MiB of page cache keeps the search indexes' upper levels in memory at a million rows.
  db.pragma('cache_size = -16000');
  // History's search checks candidate rows with the index's own case and accent folding.
  db.function('paydesk_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : text));
  migrate(db);
  cacheStatements(db);
  return db;
}

/**
 * Every query here prepares its statement where it runs; compiling the same SQL again for each
 * row of a bulk batch cost about a quarter of the journal's time per row. Statements are
 * remembered by their text (bounded; none is used re-entrantly: iterations finish synchronously).
 */
function cacheStatements(db: JournalDb): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= 500) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as typeof db.prepare;
}

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

function rowById(db: JournalDb, id: string): EntryRow | null {
  return (db.prepare('SELECT * FROM entries WHERE id = ?').get(id) as EntryRow | undefined) ?? null;
}

function requireRow(db: JournalDb, id: string): EntryRow {
  const row = rowById(db, id);
  if (!row) throw new Error(`journal entry ${id} does not exist`);
  return row;
}

export function getEntry(db: JournalDb, id: string): JournalTransaction | null {
  const row = rowById(db, id);
  return row ? toJournalTransaction(row) : null;
}

/** The entry with what the console needs to follow it up (the request as sent, the resolution). */
export function getEntryForFollowUp(db: JournalDb, id: string): { entry: JournalTransaction; request: TransactionRequest | null; resolution: 'not_found' | null } | null {
  const row = rowById(db, id);
  if (!row) return null;
  return {
    entry: toJournalTransaction(row),
    request: row.request ? (JSON.parse(row.request) as TransactionRequest) : null,
    resolution: row.resolution,
  };
}

export function getTimeline(db: JournalDb, id: string): TimelineEvent[] {
  const rows = db
    .prepare(
      `SELECT t.*, e.id AS journal_id FROM timeline t JOIN entries e ON e.seq = t.entry_seq
       WHERE e.id = ? ORDER BY t.id DESC`,
    )
    .all(id) as TimelineRow[];
  return rows.map(toTimelineEvent);
}

/** Writes the request before it is sent: state `pending`, timeline `request_sent`. */
export function recordRequest(
  db: JournalDb,
  input: { profile: JournalProfile; kind: TransactionKind; request: TransactionRequest; currency: string; at: number },
): JournalTransaction {
  const id = randomUUID();
  const { request } = input;
  db.transaction(() => {
    const result = db
      .prepare(
        `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency,
           phone_number, payment_method, customer_first_name, customer_last_name, customer_email, description, metadata,
           request, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.profile.id,
        input.profile.name,
        input.profile.environment,
        input.kind,
        request.external_id ?? null,
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
        input.at,
        input.at,
      );
    addEvent(db, Number(result.lastInsertRowid), input.at, { type: 'request_sent', message: `${input.kind} request sent` });
  })();
  return getEntry(db, id)!;
}

/** Marks an entry `pending` again for a resend with the same request and external id. */
export function recordResend(db: JournalDb, id: string, at: number): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    db.prepare(`UPDATE entries SET state = 'pending', resolution = NULL, updated_at = ? WHERE seq = ?`).run(at, row.seq);
    addEvent(db, row.seq, at, { type: 'request_sent', message: 'sent again with the same external id' });
  })();
  return getEntry(db, id)!;
}

function applyTransaction(db: JournalDb, seq: number, state: JournalState, tx: ServiceTransaction, at: number): void {
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

/** The service answered the initiate with a transaction. */
export function recordCreated(db: JournalDb, id: string, tx: ServiceTransaction, response: { httpStatus: number; message: string }, at: number): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    applyTransaction(db, row.seq, 'known', tx, at);
    addEvent(db, row.seq, at, { type: 'response', status: tx.status, httpStatus: response.httpStatus, message: response.message });
  })();
  return getEntry(db, id)!;
}

/**
 * The service answered an error envelope. For the initiate itself (`rejects`), nothing was
 * created: the entry becomes `rejected`; for a follow-up (verify, retrieve) the state stays.
 */
export function recordApiError(
  db: JournalDb,
  id: string,
  error: { code: string; message: string; httpStatus: number | null },
  options: { rejects: boolean; at: number },
): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    if (options.rejects) {
      db.prepare(`UPDATE entries SET state = 'rejected', last_error = ?, updated_at = ? WHERE seq = ?`).run(JSON.stringify(error), options.at, row.seq);
    } else {
      db.prepare(`UPDATE entries SET updated_at = ? WHERE seq = ?`).run(options.at, row.seq);
    }
    addEvent(db, row.seq, options.at, { type: 'api_error', httpStatus: error.httpStatus, code: error.code, message: error.message });
  })();
  return getEntry(db, id)!;
}

/**
 * The request failed in transport. For an initiate, `unknown` means it may have reached the
 * server (state `outcome_unknown`); `not-sent` means it did not (state `rejected`, NOT_SENT).
 */
export function recordTransportFailure(
  db: JournalDb,
  id: string,
  failure: { outcome: 'not-sent' | 'unknown'; message: string },
  options: { initiate: boolean; at: number },
): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    if (options.initiate) {
      const state: JournalState = failure.outcome === 'unknown' ? 'outcome_unknown' : 'rejected';
      const lastError = failure.outcome === 'unknown' ? null : JSON.stringify({ code: 'NOT_SENT', message: failure.message, httpStatus: null });
      db.prepare(`UPDATE entries SET state = ?, last_error = COALESCE(?, last_error), updated_at = ? WHERE seq = ?`).run(state, lastError, options.at, row.seq);
    }
    addEvent(db, row.seq, options.at, { type: 'transport_failure', outcome: failure.outcome, message: failure.message });
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
  event: { type: 'status_seen' | 'verify_result' | 'webhook_received' | 'sandbox_status'; httpStatus?: number | null; message?: string | null; quietUnlessChanged?: boolean },
  at: number,
): { entry: JournalTransaction; changed: boolean } {
  let changed = false;
  db.transaction(() => {
    const row = requireRow(db, id);
    changed = row.status !== tx.status || row.state !== 'known' || row.failed_code !== tx.failed_code;
    applyTransaction(db, row.seq, 'known', tx, at);
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

export function setResolution(db: JournalDb, id: string, resolution: 'not_found' | null, at: number, message: string): JournalTransaction {
  db.transaction(() => {
    const row = requireRow(db, id);
    db.prepare('UPDATE entries SET resolution = ?, updated_at = ? WHERE seq = ?').run(resolution, at, row.seq);
    addEvent(db, row.seq, at, { type: 'status_seen', code: resolution === 'not_found' ? 'NOT_FOUND' : null, message });
  })();
  return getEntry(db, id)!;
}

/** Journal entries the console knows for a service transaction id (a lookup, an engine event). */
export function findByTransactionId(db: JournalDb, transactionId: string, scope?: { profileId: string; environment: Environment }): JournalTransaction[] {
  const rows = scope
    ? (db
        .prepare('SELECT * FROM entries WHERE transaction_id = ? AND profile_id = ? AND environment = ? ORDER BY created_at DESC')
        .all(transactionId, scope.profileId, scope.environment) as EntryRow[])
    : (db.prepare('SELECT * FROM entries WHERE transaction_id = ? ORDER BY created_at DESC').all(transactionId) as EntryRow[]);
  return rows.map(toJournalTransaction);
}

/** A transaction found by a lookup: updates the entry the console has for it, or adds one. */
export function recordLookedUp(
  db: JournalDb,
  input: { profile: JournalProfile; kind: TransactionKind; tx: ServiceTransaction; httpStatus: number; at: number },
): JournalTransaction {
  const existing = findByTransactionId(db, input.tx.transaction_id, { profileId: input.profile.id, environment: input.profile.environment })[0];
  if (existing) return recordObserved(db, existing.id, input.tx, { type: 'status_seen', httpStatus: input.httpStatus, message: 'looked up' }, input.at).entry;
  const id = randomUUID();
  const { tx } = input;
  db.transaction(() => {
    const result = db
      .prepare(
        `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status,
           failed_code, amount, currency, phone_number, payment_method, customer_first_name, customer_last_name,
           customer_email, description, metadata, transaction_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'known', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.profile.id,
        input.profile.name,
        input.profile.environment,
        input.kind,
        tx.transaction_id,
        tx.external_id,
        tx.status,
        tx.failed_code,
        tx.amount,
        tx.currency,
        // The service returns the (partly masked) account number, not the phone number typed.
        tx.account_number,
        tx.payment_method.code,
        tx.customer.first_name,
        tx.customer.last_name,
        tx.customer.email,
        tx.description,
        tx.metadata ? JSON.stringify(tx.metadata) : null,
        JSON.stringify(tx),
        input.at,
        input.at,
      );
    const seq = Number(result.lastInsertRowid);
    applyTransaction(db, seq, 'known', tx, input.at);
    addEvent(db, seq, input.at, { type: 'status_seen', status: tx.status, httpStatus: input.httpStatus, message: 'looked up' });
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
    const rows = db.prepare(`SELECT seq, id FROM entries WHERE state = 'pending'`).all() as { seq: number; id: string }[];
    for (const row of rows) {
      db.prepare(`UPDATE entries SET state = 'outcome_unknown', updated_at = ? WHERE seq = ?`).run(at, row.seq);
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
