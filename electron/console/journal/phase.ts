/**
 * A journal entry's phase (see ENTRY_STATES in ../states/tables.ts) read from and written to its
 * columns. This is the only code that writes `entries.state`, `resolution` and the `NOT_SENT` mark;
 * each write is checked against the table first, inside the caller's transaction.
 */
import type { JournalState } from '../../../shared/api';
import { ENTRY_STATES, type EntryPhase } from '../states/tables';
import type Database from 'better-sqlite3';

/** The journal's database (entries.ts names it JournalDb; not imported from there: entries imports this module). */
type JournalDb = Database.Database;

/** The columns a phase is stored in. */
export interface PhaseColumns {
  state: JournalState;
  resolution: 'not_found' | null;
  last_error: string | null;
}

/** The error code that marks a `rejected` row as never sent (nothing reached the service). */
export const NOT_SENT_CODE = 'NOT_SENT';

export function phaseOf(row: PhaseColumns): EntryPhase {
  switch (row.state) {
    case 'pending':
      return 'pending';
    case 'known':
      return 'known';
    case 'outcome_unknown':
      return row.resolution === 'not_found' ? 'not_found' : 'outcome_unknown';
    case 'rejected':
      return errorCode(row.last_error) === NOT_SENT_CODE ? 'not_sent' : 'rejected';
    default: {
      const never: never = row.state;
      throw new Error(`unknown journal state ${String(never)}`);
    }
  }
}

function errorCode(lastError: string | null): string | null {
  if (!lastError) return null;
  try {
    return (JSON.parse(lastError) as { code?: string }).code ?? null;
  } catch {
    return null;
  }
}

/** SQL for the same reading as phaseOf, over an `entries` alias (batch row states, search). */
export function phaseSql(alias: string): string {
  return `CASE
    WHEN ${alias}.state = 'outcome_unknown' AND ${alias}.resolution = 'not_found' THEN 'not_found'
    WHEN ${alias}.state = 'rejected' AND json_extract(${alias}.last_error, '$.code') = '${NOT_SENT_CODE}' THEN 'not_sent'
    ELSE ${alias}.state END`;
}

export interface ErrorRecord {
  code: string;
  message: string;
  httpStatus: number | null;
}

/**
 * Moves an entry to `to`, refusing a move the table does not allow. `error` is the refusal for
 * `rejected` and the reason for `not_sent`; `known` is written by the caller with the transaction.
 */
export function moveEntry(db: JournalDb, entry: { seq: number; id: string } & PhaseColumns, to: Exclude<EntryPhase, 'known'>, at: number, error?: ErrorRecord): void {
  ENTRY_STATES.assertMove(phaseOf(entry), to, entry.id);
  const update = db.prepare('UPDATE entries SET state = ?, resolution = ?, last_error = ?, updated_at = ? WHERE seq = ?');
  switch (to) {
    case 'pending':
      update.run('pending', null, entry.last_error, at, entry.seq);
      return;
    case 'outcome_unknown':
      update.run('outcome_unknown', null, entry.last_error, at, entry.seq);
      return;
    case 'not_found':
      update.run('outcome_unknown', 'not_found', entry.last_error, at, entry.seq);
      return;
    case 'not_sent':
      update.run('rejected', null, JSON.stringify({ code: NOT_SENT_CODE, message: error?.message ?? 'not sent', httpStatus: error?.httpStatus ?? null, ...(error && error.code !== NOT_SENT_CODE ? { cause: error.code } : {}) }), at, entry.seq);
      return;
    case 'rejected':
      if (!error) throw new Error(`journal entry ${entry.id}: a refusal needs its error`);
      update.run('rejected', null, JSON.stringify(error), at, entry.seq);
      return;
    default: {
      const never: never = to;
      throw new Error(`unknown phase ${String(never)}`);
    }
  }
}

/** Checks a move to `known` (the caller writes the transaction's columns in the same transaction). */
export function assertKnown(entry: { id: string } & PhaseColumns): void {
  ENTRY_STATES.assertMove(phaseOf(entry), 'known', entry.id);
}
