/**
 * The SQLite side of moving a desktop's journal into a team workspace (./move-in.ts): a consistent
 * snapshot of the journal file (SQLite's online backup, WAL included, so a file whose console is
 * still open reads whole), taken into a temporary folder and brought to this Paydesk's journal
 * version there. The person's own file is only read, never changed.
 *
 * The copy is then started the way a console starts its journal: entries left `pending` become
 * outcome unknown (to be looked up by external id, never resent blindly), `sending` batches and
 * `running` reconciliations become interrupted. The workspace receives what a restarted desktop
 * would show, never a row that looks in flight on a desktop that is not sending it.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openJournal, type JournalDb } from '../../journal/database';
import { MIGRATIONS } from '../../journal/migrations';
import { markStalePending } from '../../journal/entries';
import { markInterruptedBatches } from '../../batch/store';
import { markInterrupted } from '../../reconcile/store';

export class MoveInError extends Error {
  constructor(
    readonly code: 'NOT_A_JOURNAL' | 'JOURNAL_NEWER' | 'NO_PERMISSION' | 'UNKNOWN_COLUMNS',
    message: string,
  ) {
    super(message);
    this.name = 'MoveInError';
  }
}

export interface JournalSnapshot {
  db: JournalDb;
  /** The file's journal version before the snapshot was brought up to date. */
  version: number;
  /** What starting the copy did, as a console start does. */
  atStart: { outcomeUnknown: number; batchesInterrupted: number; reconcilesInterrupted: number };
  close(): void;
}

const TABLES = ['entries', 'timeline', 'batches', 'batch_rows', 'reconciliations', 'reconciliation_rows'];

/** Reads `file` into a temporary snapshot; the caller closes it (the folder goes with it). */
export async function snapshotJournal(file: string, at: number): Promise<JournalSnapshot> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new MoveInError('NOT_A_JOURNAL', `${file} is not a file: give the path of a Paydesk journal (journal.db in the console's user-data folder).`);
  let source: Database.Database;
  try {
    source = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new MoveInError('NOT_A_JOURNAL', `${file} cannot be opened as a SQLite database (${error instanceof Error ? error.message : String(error)}).`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'paydesk-move-in-'));
  const discard = () => rmSync(folder, { recursive: true, force: true });
  let version: number;
  try {
    const found = new Set((source.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((row) => row.name));
    version = source.pragma('user_version', { simple: true }) as number;
    const missing = TABLES.filter((table) => !found.has(table));
    if (version < 1 || !found.has('entries')) throw new MoveInError('NOT_A_JOURNAL', `${file} is a SQLite database but not a Paydesk journal (no journal tables).`);
    if (missing.length > 0 && version >= 3) throw new MoveInError('NOT_A_JOURNAL', `${file} lacks the journal tables ${missing.join(', ')}: it is not a whole Paydesk journal.`);
    const known = MIGRATIONS.at(-1)!.version;
    if (version > known) {
      throw new MoveInError('JOURNAL_NEWER', `${file} was written by a newer Paydesk (journal version ${version}; this one knows up to ${known}): update Paydesk here, then move in again. Nothing was copied.`);
    }
    await source.backup(join(folder, 'journal.db'));
  } catch (error) {
    discard();
    throw error;
  } finally {
    source.close();
  }
  let db: JournalDb;
  try {
    db = openJournal(join(folder, 'journal.db'));
  } catch (error) {
    discard();
    throw error;
  }
  const atStart = {
    outcomeUnknown: markStalePending(db, at).length,
    batchesInterrupted: markInterruptedBatches(db, at).length,
    reconcilesInterrupted: markInterrupted(db, at),
  };
  return {
    db,
    version,
    atStart,
    close() {
      db.close();
      discard();
    },
  };
}

/** A table's column names in the snapshot. */
export function snapshotColumns(db: JournalDb, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((row) => row.name);
}
