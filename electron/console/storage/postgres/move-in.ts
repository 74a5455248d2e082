/**
 * Moving in (issue 24 item 8): an existing desktop's SQLite journal copied into a team workspace,
 * once. Idempotent: what a previous run copied is recognised by its id and counted "already
 * there", so running it again copies nothing new. All of it is one transaction: a failure leaves
 * the workspace as it was. Who did what: the workspace's triggers stamp the importing login
 * (`session_user`) on every copied entry, event, batch and run; times (created_at, an event's at)
 * are the desktop's own.
 *
 * Refused, with why (the file keeps them; the report names them):
 * - an entry of a payout (profile, environment, kind, external id) the workspace already holds
 *   under another entry (another desktop moved in first, or the team sent it): History keeps one
 *   entry per payout. The file's batch and Reconcile rows that pointed to it point to the
 *   workspace's entry of that payout instead.
 * - a record whose id the workspace holds for something else (another entry, batch or run).
 * - a batch whose row's entry was refused that way: a batch row never loses its entry (a row
 *   without one would be sent again).
 * - a reconciliation whose file was still being saved when its console stopped.
 */
import type pg from 'pg';
import { checkWorkspaceSchema } from './migrate';
import { inTransaction, type WorkspacePool } from './db';
import { MoveInError, snapshotColumns, snapshotJournal, type JournalSnapshot } from './move-in-source';
import { ROLES } from './schema-names';

export interface Counted {
  copied: number;
  alreadyThere: number;
  refused: number;
}

export interface MoveInReport {
  journal: string;
  journalVersion: number;
  importedBy: string;
  entries: Counted;
  timeline: Counted;
  batches: Counted;
  batchRows: Counted;
  reconciliations: Counted;
  reconciliationRows: Counted;
  refused: { what: 'entry' | 'batch' | 'reconciliation'; id: string; externalId: string | null; why: string }[];
  /** What starting the snapshot did, as a console start does (pending entries, sending batches, running runs). */
  atStart: JournalSnapshot['atStart'];
}

/** Columns the workspace fills itself (keys, who did what, search text, claims), never copied. */
const OWN_COLUMNS: Record<string, string[]> = {
  entries: ['seq', 'search_text', 'created_by', 'updated_by'],
  timeline: ['id', 'entry_seq', 'recorded_by'],
  batches: ['seq', 'created_by', 'updated_by'],
  batch_rows: ['batch_seq', 'claimed_by', 'claim_holder', 'lease_until'],
  reconciliations: ['created_by', 'updated_by'],
  reconciliation_rows: [],
};
/** Read from the snapshot beside the table's own columns: the parent's id in place of its seq. */
const SOURCE_SQL: Record<string, (columns: string) => string> = {
  entries: (c) => `SELECT ${c}, seq AS src_order FROM entries ORDER BY seq`,
  timeline: (c) => `SELECT ${c.replace(/\b(\w+)\b/g, 't.$1')}, e.id AS parent_id, t.id AS src_order FROM timeline t JOIN entries e ON e.seq = t.entry_seq ORDER BY t.id`,
  batches: (c) => `SELECT ${c}, seq AS src_order FROM batches ORDER BY seq`,
  batch_rows: (c) => `SELECT ${c.replace(/\b(\w+)\b/g, 'r.$1')}, b.id AS parent_id, row_number() OVER (ORDER BY r.batch_seq, r.row_number) AS src_order FROM batch_rows r JOIN batches b ON b.seq = r.batch_seq`,
  reconciliations: (c) => `SELECT ${c}, row_number() OVER (ORDER BY created_at, id) AS src_order FROM reconciliations`,
  reconciliation_rows: (c) => `SELECT ${c}, reconciliation_id AS parent_id, row_number() OVER (ORDER BY reconciliation_id, row_number) AS src_order FROM reconciliation_rows`,
};
const CHUNK = 2000;
/** Any fixed number: two moves into one workspace take turns. */
const MOVE_IN_LOCK = 0x6d6f_7665;

async function workspaceColumns(c: pg.ClientBase, table: string): Promise<string[]> {
  const { rows } = await c.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`, [table]);
  return rows.map((row) => row.column_name);
}

/** Loads a snapshot table into a temporary table `mi_<table>` (its copied columns, parent_id, src_order, fate, why, target_id). */
async function load(c: pg.ClientBase, snapshot: JournalSnapshot, table: string): Promise<string[]> {
  const own = new Set(OWN_COLUMNS[table]);
  const mine = (await workspaceColumns(c, table)).filter((column) => !own.has(column));
  const theirs = snapshotColumns(snapshot.db, table).filter((column) => !own.has(column));
  const unknown = theirs.filter((column) => !mine.includes(column));
  if (unknown.length > 0) throw new MoveInError('UNKNOWN_COLUMNS', `The journal's ${table} has columns this workspace does not keep (${unknown.join(', ')}): update the workspace, then move in again. Nothing was copied.`);
  const columns = mine.filter((column) => theirs.includes(column));
  const list = columns.join(', ');
  await c.query(`CREATE TEMP TABLE mi_${table} ON COMMIT DROP AS SELECT ${list}, NULL::text AS parent_id, 0::bigint AS src_order FROM ${table} WITH NO DATA`);
  await c.query(`ALTER TABLE mi_${table} ADD COLUMN fate text, ADD COLUMN why text, ADD COLUMN target_id text`);
  let chunk: unknown[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    await c.query(`INSERT INTO mi_${table} SELECT * FROM json_populate_recordset(NULL::mi_${table}, $1::json)`, [JSON.stringify(chunk)]);
    chunk = [];
  };
  for (const row of snapshot.db.prepare(SOURCE_SQL[table]!(list)).iterate()) {
    chunk.push(row);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  await c.query(`ANALYZE mi_${table}`);
  return columns;
}

async function counted(c: pg.ClientBase, sql: string): Promise<Counted> {
  const { rows } = await c.query<{ fate: 'copy' | 'already' | 'refused'; n: number }>(sql);
  const n = (fate: string) => Number(rows.find((row) => row.fate === fate)?.n ?? 0);
  return { copied: n('copy'), alreadyThere: n('already'), refused: n('refused') };
}

/** What is neither already there nor refused is copied, in the journal's order. */
async function copyRest(c: pg.ClientBase, table: string, columns: string[]): Promise<void> {
  await c.query(`UPDATE mi_${table} SET fate = 'copy' WHERE fate IS NULL`);
  await c.query(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM mi_${table} WHERE fate = 'copy' ORDER BY src_order`);
}

/** Moves the journal in `file` into the workspace reached by `pool`; one transaction. */
export async function moveJournalIn(pool: WorkspacePool, file: string, at: number = Date.now()): Promise<MoveInReport> {
  const snapshot = await snapshotJournal(file, at);
  try {
    return await inTransaction(pool, async (c) => {
      await checkWorkspaceSchema(c);
      const { rows: who } = await c.query<{ login: string; missing: string[] }>(
        `SELECT session_user AS login, array(SELECT t FROM unnest($1::text[]) t WHERE NOT has_table_privilege(t, 'INSERT')) AS missing`,
        [Object.keys(OWN_COLUMNS)],
      );
      const importedBy = who[0]!.login;
      if (who[0]!.missing.length > 0) {
        throw new MoveInError('NO_PERMISSION', `The login ${importedBy} may not copy a journal into this workspace (no right to add to ${who[0]!.missing.join(', ')}): move in with a login of the finance role (${ROLES.finance}). Nothing was copied.`);
      }
      await c.query('SELECT pg_advisory_xact_lock($1)', [MOVE_IN_LOCK]);
      const cols: Record<string, string[]> = {};
      for (const table of Object.keys(OWN_COLUMNS)) cols[table] = await load(c, snapshot, table);
      await c.query(`CREATE INDEX ON mi_entries (id); CREATE INDEX ON mi_timeline (parent_id); CREATE INDEX ON mi_batch_rows (parent_id); CREATE INDEX ON mi_reconciliation_rows (parent_id)`);

      // Entries: already there (same id, same payout, same creation), another record's id, or a payout the workspace holds.
      await c.query(`UPDATE mi_entries i SET fate = 'already' FROM entries e
        WHERE e.id = i.id AND e.created_at = i.created_at AND e.kind = i.kind AND e.profile_id = i.profile_id AND e.external_id IS NOT DISTINCT FROM i.external_id`);
      await c.query(`UPDATE mi_entries i SET fate = 'refused', why = 'the workspace holds another entry with this id' FROM entries e WHERE i.fate IS NULL AND e.id = i.id`);
      await c.query(`UPDATE mi_entries i SET fate = 'refused', target_id = w.id,
          why = 'the workspace already holds this payout (external id ' || i.external_id || ') as entry ' || w.id || ', written by ' || w.created_by
        FROM mi_entries j CROSS JOIN LATERAL (
          SELECT e.id, e.created_by FROM entries e
          WHERE e.external_id = j.external_id AND e.kind = j.kind AND e.profile_id = j.profile_id AND e.environment = j.environment
          ORDER BY e.created_at DESC, e.seq DESC LIMIT 1) w
        WHERE i.id = j.id AND i.fate IS NULL AND i.external_id IS NOT NULL`);
      await copyRest(c, 'entries', cols.entries!);
      await c.query(`INSERT INTO timeline (entry_seq, ${cols.timeline!.join(', ')})
        SELECT e.seq, ${cols.timeline!.map((col) => `t.${col}`).join(', ')} FROM mi_timeline t
        JOIN mi_entries m ON m.id = t.parent_id AND m.fate = 'copy' JOIN entries e ON e.id = t.parent_id ORDER BY t.src_order`);

      // Batches: a row's entry refused with no payout to point to refuses its batch.
      await c.query(`UPDATE mi_batches i SET fate = 'already' FROM batches b WHERE b.id = i.id AND b.created_at = i.created_at AND b.file_hash = i.file_hash`);
      await c.query(`UPDATE mi_batches i SET fate = 'refused', why = 'the workspace holds another batch with this id' FROM batches b WHERE i.fate IS NULL AND b.id = i.id`);
      await c.query(`UPDATE mi_batches i SET fate = 'refused', why = 'the entry of its row ' || r.row_number || ' was refused, and a row is never left without its entry'
        FROM mi_batch_rows r JOIN mi_entries m ON m.id = r.journal_id AND m.fate = 'refused' AND m.target_id IS NULL
        WHERE i.fate IS NULL AND r.parent_id = i.id`);
      await copyRest(c, 'batches', cols.batches!);
      const rowColumns = (own: string[]) =>
        own.map((col) => (col === 'journal_id' ? `CASE WHEN m.fate = 'refused' THEN m.target_id ELSE r.journal_id END` : `r.${col}`)).join(', ');
      await c.query(`INSERT INTO batch_rows (batch_seq, ${cols.batch_rows!.join(', ')})
        SELECT b.seq, ${rowColumns(cols.batch_rows!)} FROM mi_batch_rows r
        JOIN mi_batches p ON p.id = r.parent_id AND p.fate = 'copy' JOIN batches b ON b.id = r.parent_id
        LEFT JOIN mi_entries m ON m.id = r.journal_id ORDER BY r.src_order`);

      // Reconciliations.
      await c.query(`UPDATE mi_reconciliations SET fate = 'refused', why = 'its file was still being saved when its console stopped' WHERE status = 'importing'`);
      await c.query(`UPDATE mi_reconciliations i SET fate = 'already' FROM reconciliations r WHERE i.fate IS NULL AND r.id = i.id AND r.created_at = i.created_at AND r.file_name = i.file_name`);
      await c.query(`UPDATE mi_reconciliations i SET fate = 'refused', why = 'the workspace holds another reconciliation with this id' FROM reconciliations r WHERE i.fate IS NULL AND r.id = i.id`);
      await copyRest(c, 'reconciliations', cols.reconciliations!);
      await c.query(`INSERT INTO reconciliation_rows (${cols.reconciliation_rows!.join(', ')})
        SELECT ${rowColumns(cols.reconciliation_rows!)} FROM mi_reconciliation_rows r
        JOIN mi_reconciliations p ON p.id = r.parent_id AND p.fate = 'copy'
        LEFT JOIN mi_entries m ON m.id = r.journal_id ORDER BY r.src_order`);

      const refused = await c.query<{ what: 'entry' | 'batch' | 'reconciliation'; id: string; external_id: string | null; why: string }>(
        `SELECT 'entry' AS what, id, external_id, why, src_order FROM mi_entries WHERE fate = 'refused'
         UNION ALL SELECT 'batch', id, NULL, why, src_order FROM mi_batches WHERE fate = 'refused'
         UNION ALL SELECT 'reconciliation', id, NULL, why, src_order FROM mi_reconciliations WHERE fate = 'refused' ORDER BY 1, 5`,
      );
      const children = (child: string, parent: string) => `SELECT p.fate, count(*) AS n FROM mi_${child} x JOIN mi_${parent} p ON p.id = x.parent_id GROUP BY p.fate`;
      return {
        journal: file,
        journalVersion: snapshot.version,
        importedBy,
        entries: await counted(c, `SELECT fate, count(*) AS n FROM mi_entries GROUP BY fate`),
        timeline: await counted(c, children('timeline', 'entries')),
        batches: await counted(c, `SELECT fate, count(*) AS n FROM mi_batches GROUP BY fate`),
        batchRows: await counted(c, children('batch_rows', 'batches')),
        reconciliations: await counted(c, `SELECT fate, count(*) AS n FROM mi_reconciliations GROUP BY fate`),
        reconciliationRows: await counted(c, children('reconciliation_rows', 'reconciliations')),
        refused: refused.rows.map((row) => ({ what: row.what, id: row.id, externalId: row.external_id, why: row.why })),
        atStart: snapshot.atStart,
      };
    });
  } finally {
    snapshot.close();
  }
}

/** The report as the CLI prints it. */
export function formatMoveInReport(report: MoveInReport): string {
  const line = (label: string, n: Counted) => `  ${label.padEnd(20)} ${String(n.copied).padStart(8)} ${String(n.alreadyThere).padStart(14)} ${String(n.refused).padStart(8)}`;
  const lines = [
    `Moved ${report.journal} (journal version ${report.journalVersion}) into the workspace as ${report.importedBy}.`,
    `  ${''.padEnd(20)} ${'copied'.padStart(8)} ${'already there'.padStart(14)} ${'refused'.padStart(8)}`,
    line('entries', report.entries),
    line('timeline events', report.timeline),
    line('batches', report.batches),
    line('batch rows', report.batchRows),
    line('reconciliations', report.reconciliations),
    line('reconciliation rows', report.reconciliationRows),
  ];
  const { outcomeUnknown, batchesInterrupted, reconcilesInterrupted } = report.atStart;
  if (outcomeUnknown + batchesInterrupted + reconcilesInterrupted > 0) {
    lines.push(
      `As at a console start: ${outcomeUnknown} entries left pending are outcome unknown (to be looked up by external id), ${batchesInterrupted} sending batches and ${reconcilesInterrupted} running reconciliations are interrupted.`,
    );
  }
  if (report.refused.length > 0) lines.push('Refused (they stay in the journal file):', ...report.refused.map((r) => `  ${r.what} ${r.id}${r.externalId ? ` (${r.externalId})` : ''}: ${r.why}`));
  return lines.join('\n');
}
