/**
 * The journal's write primitives: the one INSERT of an entry, a timeline event, a row that must exist.
 * Used by the request side (./entries.ts) and the answer side (./answers.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Environment, TransactionRequest } from '../../../shared/contract';
import { type TimelineEventType, type TransactionKind } from '../../../shared/api';
import { ENTRY_STATES } from '../states/tables';
import type { JournalDb } from './database';
import { rowById } from './reads';
import type { EntryRow, ServiceTransaction } from './rows';

export interface JournalProfile {
  id: string;
  name: string;
  environment: Environment;
}

export interface TimelineInput {
  type: TimelineEventType;
  status?: string | null;
  httpStatus?: number | null;
  code?: string | null;
  message?: string | null;
  outcome?: 'not-sent' | 'unknown' | null;
}


export function addEvent(db: JournalDb, seq: number, at: number, event: TimelineInput): void {
  db.prepare(
    `INSERT INTO timeline (entry_seq, type, at, status, http_status, code, message, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(seq, event.type, at, event.status ?? null, event.httpStatus ?? null, event.code ?? null, event.message ?? null, event.outcome ?? null);
}

export function requireRow(db: JournalDb, id: string): EntryRow {
  const row = rowById(db, id);
  if (!row) throw new Error(`journal entry ${id} does not exist`);
  return row;
}

/** What an answer's write reads of its entry: its phase, status and kind, not the request and transaction JSON of a whole row. */
export type AnswerRow = Pick<EntryRow, 'seq' | 'id' | 'kind' | 'state' | 'resolution' | 'last_error' | 'status' | 'failed_code'>;

/**
 * requireRow for the answer writes of every row of a batch (its answer, its status pushes): a
 * whole row is ~40 columns with two JSON texts, copied into JavaScript strings and then dropped.
 */
export function requireAnswerRow(db: JournalDb, id: string): AnswerRow {
  const row = db.prepare('SELECT seq, id, kind, state, resolution, last_error, status, failed_code FROM entries WHERE id = ?').get(id) as AnswerRow | undefined;
  if (!row) throw new Error(`journal entry ${id} does not exist`);
  return row;
}

/** The columns a new entry is written with; the one INSERT of the journal's entries. */
export interface NewEntry {
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
export function insertEntry(db: JournalDb, entry: NewEntry): { id: string; seq: number } {
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

