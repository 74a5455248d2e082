/**
 * Reading journal entries: one entry (with its request, for a follow-up), its timeline, and the
 * entries of a service transaction. Writes are in entries.ts.
 */
import type { Environment, TransactionRequest } from '../../../shared/contract';
import type { JournalTransaction, TimelineEvent, TransactionKind } from '../../../shared/api';
import type { HeldEntry } from './payout-identity';
import type { JournalDb } from './database';
import { toJournalTransaction, toTimelineEvent, type EntryRow, type TimelineRow } from './rows';

export function rowById(db: JournalDb, id: string): EntryRow | null {
  return (db.prepare('SELECT * FROM entries WHERE id = ?').get(id) as EntryRow | undefined) ?? null;
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

/**
 * The journal's lookups by an id within one profile name their index: without statistics SQLite's
 * planner takes `entries_overview` (profile_id = ? AND environment = ?, two equalities) over the id's
 * own index and reads every row of the profile (2 ms a lookup at 10,000 rows, a second at a million).
 */
export const SCOPED_BY_TRANSACTION_ID =
  'SELECT * FROM entries INDEXED BY entries_by_transaction_id WHERE transaction_id = ? AND profile_id = ? AND environment = ? ORDER BY created_at DESC';
export const SCOPED_BY_EXTERNAL_ID = `SELECT * FROM entries INDEXED BY entries_by_external_id
  WHERE external_id = ? AND kind = ? AND profile_id = ? AND environment = ?
  ORDER BY (state = 'known') DESC, created_at DESC LIMIT 1`;

/** Journal entries the console knows for a service transaction id (a lookup, an engine event). */
export function findByTransactionId(db: JournalDb, transactionId: string, scope?: { profileId: string; environment: Environment }): JournalTransaction[] {
  const rows = scope
    ? (db
        .prepare(SCOPED_BY_TRANSACTION_ID)
        .all(transactionId, scope.profileId, scope.environment) as EntryRow[])
    : (db.prepare('SELECT * FROM entries WHERE transaction_id = ? ORDER BY created_at DESC').all(transactionId) as EntryRow[]);
  return rows.map(toJournalTransaction);
}

/** Every entry holding an external id in one environment and kind (any profile), newest first, by its index. */
export const HOLDING_EXTERNAL_ID = `SELECT id, profile_id, profile_name, kind, external_id, state, resolution, last_error, status, batch_id, batch_row, created_at
  FROM entries INDEXED BY entries_by_external_id
  WHERE external_id = ? AND kind = ? AND environment = ?
  ORDER BY created_at DESC, seq DESC`;

/** The entries holding this external id (./payout-identity.ts reads them). */
export function entriesHolding(db: JournalDb, externalId: string, kind: TransactionKind, environment: string): HeldEntry[] {
  return db.prepare(HOLDING_EXTERNAL_ID).all(externalId, kind, environment) as HeldEntry[];
}
