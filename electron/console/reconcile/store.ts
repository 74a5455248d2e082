/**
 * Reconciliations in the journal database: the run, its rows, category totals and paging. Every
 * function takes the database first; each write is one SQLite transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Environment, ServiceStatus } from '../../../shared/contract';
import {
  RECONCILE_CATEGORIES,
  type CategoryTotal,
  type ReconcileCategory,
  type ReconciliationRow,
  type ReconciliationSummary,
  type ReconcilePhase,
  type ReconcileStatus,
} from '../../../shared/api/reconcile';
import { RECONCILE_STATE_TABLE } from '../states/tables';
import type { JournalDb } from '../journal/entries';
import type { MerchantRow } from './parse';

export interface RunRow {
  id: string;
  file_name: string;
  profile_id: string;
  profile_name: string;
  environment: Environment;
  status: ReconcileStatus;
  phase: ReconcilePhase;
  total_rows: number;
  processing_minutes: number;
  period_from: number | null;
  period_to: number | null;
  period_source: 'file' | 'picked' | null;
  unknown_done: number;
  rate_limit_waits: number;
  ignored_columns: string | null;
  currency: string;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface StoredRow {
  row_number: number;
  source: 'file' | 'journal';
  external_id: string | null;
  kind: 'payment' | 'payout';
  amount: number | null;
  expected_raw: string | null;
  expected: MerchantRow['expected'];
  row_date: string | null;
  category: ReconcileCategory | null;
  journal_id: string | null;
  transaction_id: string | null;
  service_status: ServiceStatus | null;
  service_amount: number | null;
  service_created_at: number | null;
  currency: string | null;
  detail: string | null;
  verified: number;
}

/** What a check found out about one row. */
export interface RowOutcome {
  category: ReconcileCategory;
  journalId: string | null;
  transactionId: string | null;
  serviceStatus: ServiceStatus | null;
  serviceAmount: number | null;
  serviceCreatedAt: number | null;
  currency: string | null;
  detail: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Rows per write transaction while a file is saved (the event loop runs between them). */
const INSERT_CHUNK = 1000;

/**
 * Saves a checked file. The rows go in chunks of 1,000, each in its own transaction with a turn
 * of the event loop between, under the status `importing`; one last transaction makes the run
 * `running`. A stop in between leaves an `importing` run that nothing shows and the next start
 * removes, never a half-saved reconciliation.
 */
export async function createReconciliation(
  db: JournalDb,
  input: {
    fileName: string;
    profile: { id: string; name: string; environment: Environment };
    rows: MerchantRow[];
    ignoredColumns: string[];
    processingMinutes: number;
    period: { from: number; to: number; source: 'file' | 'picked' } | null;
    currency: string;
    at: number;
  },
  alive: () => boolean = () => true,
): Promise<string | null> {
  const id = randomUUID();
  db.prepare(
    `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes,
       period_from, period_to, period_source, ignored_columns, currency, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'importing', 'matching', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    input.fileName,
    input.profile.id,
    input.profile.name,
    input.profile.environment,
    input.rows.length,
    input.processingMinutes,
    input.period?.from ?? null,
    input.period?.to ?? null,
    input.period?.source ?? null,
    JSON.stringify(input.ignoredColumns),
    input.currency,
    input.at,
    input.at,
  );
  const insert = db.prepare(
    `INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, amount, expected_raw, expected, row_date)
     VALUES (?, ?, 'file', ?, ?, ?, ?, ?, ?)`,
  );
  for (let start = 0; start < input.rows.length; start += INSERT_CHUNK) {
    db.transaction(() => {
      for (const row of input.rows.slice(start, start + INSERT_CHUNK)) {
        insert.run(id, row.row, row.externalId, row.kind, row.amount, row.expectedRaw, row.expected, row.dateRaw);
      }
    })();
    await new Promise((resolve) => setImmediate(resolve));
    if (!alive()) return null;
  }
  moveRun(db, id, 'running', input.at);
  return id;
}

/** At start: a file whose saving was cut off is removed (its rows go with it). */
export function removeUnfinishedImports(db: JournalDb): number {
  return db.prepare(`DELETE FROM reconciliations WHERE status = 'importing'`).run().changes;
}

/** File rows with a category, and Verify's count, for progress events. */
export function progressCounts(db: JournalDb, id: string): { checked: number; verify: { done: number; total: number } } {
  const { checked } = db
    .prepare(`SELECT COUNT(*) AS checked FROM reconciliation_rows WHERE reconciliation_id = ? AND source = 'file' AND category IS NOT NULL`)
    .get(id) as { checked: number };
  const verify = db
    .prepare(
      `SELECT COUNT(*) AS total, COALESCE(SUM(verified), 0) AS done FROM reconciliation_rows
       WHERE reconciliation_id = ? AND (verified = 1 OR category IN ('still_processing', 'processing_recent'))`,
    )
    .get(id) as { total: number; done: number };
  return { checked, verify };
}

function runRow(db: JournalDb, id: string): RunRow | null {
  return (db.prepare(`SELECT * FROM reconciliations WHERE id = ? AND status != 'importing'`).get(id) as RunRow | undefined) ?? null;
}

export function reconciliationExists(db: JournalDb, id: string): boolean {
  return runRow(db, id) !== null;
}

export function getSummary(db: JournalDb, id: string): ReconciliationSummary | null {
  const run = runRow(db, id);
  if (!run) return null;
  const totals = db
    .prepare(
      `SELECT category, COUNT(*) AS count, COALESCE(SUM(amount), 0) AS amount, COALESCE(SUM(service_amount), 0) AS service_amount
       FROM reconciliation_rows WHERE reconciliation_id = ? AND category IS NOT NULL GROUP BY category`,
    )
    .all(id) as CategoryCount[];
  const verify =
    run.phase === 'verifying'
      ? (db
          .prepare(
            `SELECT COUNT(*) AS total, COALESCE(SUM(verified), 0) AS done FROM reconciliation_rows
             WHERE reconciliation_id = ? AND (verified = 1 OR category IN ('still_processing', 'processing_recent'))`,
          )
          .get(id) as { total: number; done: number })
      : null;
  return summaryOf(run, totals, verify);
}

/** One category's rows as a store counts them. */
export interface CategoryCount {
  category: ReconcileCategory;
  count: number;
  amount: number;
  service_amount: number;
}

/** A run's summary from its row, its categories' totals and Verify's count (both stores). */
export function summaryOf(run: RunRow, totals: readonly CategoryCount[], verifyCounts: { total: number; done: number } | null): ReconciliationSummary {
  const categories = Object.fromEntries(RECONCILE_CATEGORIES.map((c) => [c, { count: 0, amount: 0, serviceAmount: 0 }])) as Record<ReconcileCategory, CategoryTotal>;
  let checked = 0;
  for (const total of totals) {
    // Journal entries missing from the file carry their amount as the service's.
    const unknown = total.category === 'unknown_to_merchant';
    categories[total.category] = { count: total.count, amount: unknown ? total.service_amount : total.amount, serviceAmount: total.service_amount };
    if (!unknown) checked += total.count;
  }
  const verify: ReconciliationSummary['verify'] = run.phase === 'verifying' && verifyCounts ? { done: verifyCounts.done, total: verifyCounts.total } : null;
  return {
    id: run.id,
    fileName: run.file_name,
    profileId: run.profile_id,
    profileName: run.profile_name,
    environment: run.environment,
    status: run.status,
    phase: run.phase,
    totalRows: run.total_rows,
    checkedRows: checked,
    verify,
    processingMinutes: run.processing_minutes,
    period: run.period_from !== null && run.period_to !== null && run.period_source ? { from: iso(run.period_from), to: iso(run.period_to), source: run.period_source } : null,
    currency: run.currency,
    categories,
    rateLimitWaits: run.rate_limit_waits,
    ignoredColumns: run.ignored_columns === null ? [] : (JSON.parse(run.ignored_columns) as string[]),
    createdAt: iso(run.created_at),
    updatedAt: iso(run.updated_at),
    finishedAt: run.finished_at === null ? null : iso(run.finished_at),
  };
}

export function listSummaries(db: JournalDb, limit = 100): ReconciliationSummary[] {
  const ids = db.prepare(`SELECT id FROM reconciliations WHERE status != 'importing' ORDER BY created_at DESC LIMIT ?`).all(limit) as { id: string }[];
  return ids.map((row) => getSummary(db, row.id)!);
}

export function runInfo(db: JournalDb, id: string) {
  const run = runRow(db, id);
  return run ? runDetailOf(run) : null;
}

/** What the runner needs to know of a run, from its row (both stores). */
export function runDetailOf(run: RunRow) {
  return {
    status: run.status,
    phase: run.phase,
    totalRows: run.total_rows,
    profileId: run.profile_id,
    environment: run.environment,
    processingMinutes: run.processing_minutes,
    period: run.period_from !== null && run.period_to !== null ? { from: run.period_from, to: run.period_to } : null,
    unknownDone: run.unknown_done === 1,
  };
}

/** The one write of a run's status: checked against RECONCILE_STATE_TABLE in the same transaction. */
function moveRun(db: JournalDb, id: string, status: ReconcileStatus, at: number, phase?: ReconcilePhase): void {
  db.transaction(() => {
    const current = db.prepare('SELECT status FROM reconciliations WHERE id = ?').get(id) as { status: ReconcileStatus | 'importing' } | undefined;
    if (!current) throw new Error(`reconciliation ${id} does not exist`);
    RECONCILE_STATE_TABLE.assertMove(current.status, status, id);
    db.prepare(
      `UPDATE reconciliations SET status = ?, phase = COALESCE(?, phase), updated_at = ?,
         finished_at = CASE WHEN ? = 'done' THEN ? ELSE NULL END WHERE id = ?`,
    ).run(status, phase ?? null, at, status, at, id);
  })();
}

export function setStatus(db: JournalDb, id: string, status: ReconcileStatus, at: number, phase?: ReconcilePhase): void {
  moveRun(db, id, status, at, phase);
}

/** At start: runs that were going when the console stopped are interrupted (they can be resumed). */
export function markInterrupted(db: JournalDb, at: number): number {
  const ids = (db.prepare(`SELECT id FROM reconciliations WHERE status = 'running'`).all() as { id: string }[]).map((row) => row.id);
  for (const id of ids) moveRun(db, id, 'interrupted', at);
  return ids.length;
}

export function countRateLimitWait(db: JournalDb, id: string): void {
  db.prepare('UPDATE reconciliations SET rate_limit_waits = rate_limit_waits + 1 WHERE id = ?').run(id);
}

/** The next file rows not yet checked, in file order. */
export function uncheckedRows(db: JournalDb, id: string, limit: number): StoredRow[] {
  return db
    .prepare(`SELECT * FROM reconciliation_rows WHERE reconciliation_id = ? AND category IS NULL ORDER BY row_number LIMIT ?`)
    .all(id, limit) as StoredRow[];
}

/** Rows a resume should check again: the ones the service could not be asked about. */
export function reopenNotChecked(db: JournalDb, id: string): void {
  db.prepare(`UPDATE reconciliation_rows SET category = NULL, detail = NULL WHERE reconciliation_id = ? AND category = 'not_checked' AND source = 'file'`).run(id);
}

export function saveOutcomes(db: JournalDb, id: string, outcomes: { rowNumber: number; outcome: RowOutcome; verified?: boolean }[], at: number): void {
  const update = db.prepare(
    `UPDATE reconciliation_rows SET category = ?, journal_id = ?, transaction_id = ?, service_status = ?, service_amount = ?,
       service_created_at = ?, currency = ?, detail = ?, verified = MAX(verified, ?) WHERE reconciliation_id = ? AND row_number = ?`,
  );
  db.transaction(() => {
    for (const { rowNumber, outcome, verified } of outcomes) {
      const o = outcome;
      update.run(o.category, o.journalId, o.transactionId, o.serviceStatus, o.serviceAmount, o.serviceCreatedAt, o.currency, o.detail, verified ? 1 : 0, id, rowNumber);
    }
    db.prepare('UPDATE reconciliations SET updated_at = ? WHERE id = ?').run(at, id);
  })();
}

/** The file's (kind, external id) pairs, for "unknown to the merchant"; read 5,000 rows per event-loop turn. */
export async function fileKeys(db: JournalDb, id: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const page = db.prepare(
    `SELECT row_number, kind, external_id FROM reconciliation_rows WHERE reconciliation_id = ? AND source = 'file' AND row_number > ? ORDER BY row_number LIMIT 5000`,
  );
  for (let after = 0; ; ) {
    const rows = page.all(id, after) as { row_number: number; kind: string; external_id: string }[];
    if (rows.length === 0) return keys;
    for (const row of rows) keys.add(`${row.kind}:${row.external_id}`);
    after = rows[rows.length - 1]!.row_number;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export function addUnknownToMerchant(
  db: JournalDb,
  id: string,
  entries: { journalId: string; kind: 'payment' | 'payout'; externalId: string | null; transactionId: string | null; status: ServiceStatus | null; amount: number; currency: string; createdAt: number }[],
  at: number,
): void {
  db.transaction(() => {
    const { next } = db.prepare('SELECT COALESCE(MAX(row_number), 0) + 1 AS next FROM reconciliation_rows WHERE reconciliation_id = ?').get(id) as { next: number };
    const insert = db.prepare(
      `INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, category, journal_id, transaction_id,
         service_status, service_amount, service_created_at, currency)
       VALUES (?, ?, 'journal', ?, ?, 'unknown_to_merchant', ?, ?, ?, ?, ?, ?)`,
    );
    entries.forEach((e, index) => insert.run(id, next + index, e.externalId, e.kind, e.journalId, e.transactionId, e.status, e.amount, e.createdAt, e.currency));
    db.prepare('UPDATE reconciliations SET unknown_done = 1, updated_at = ? WHERE id = ?').run(at, id);
  })();
}

/** Rows still processing that Verify has not asked about yet. */
export function rowsToVerify(db: JournalDb, id: string, limit: number): StoredRow[] {
  return db
    .prepare(
      `SELECT * FROM reconciliation_rows WHERE reconciliation_id = ? AND category IN ('still_processing', 'processing_recent') AND verified = 0
       ORDER BY row_number LIMIT ?`,
    )
    .all(id, limit) as StoredRow[];
}

export function toReportRow(row: StoredRow, fallbackCurrency: string): ReconciliationRow {
  return {
    row: row.source === 'file' ? row.row_number : null,
    externalId: row.external_id,
    kind: row.kind,
    amount: row.amount,
    expectedStatus: row.expected_raw,
    date: row.row_date,
    category: row.category,
    journalId: row.journal_id,
    transactionId: row.transaction_id,
    serviceStatus: row.service_status,
    serviceAmount: row.service_amount,
    currency: row.currency ?? fallbackCurrency,
    detail: row.detail,
  };
}

export function pageRows(db: JournalDb, id: string, category: ReconcileCategory | undefined, offset: number, limit: number) {
  const run = runRow(db, id)!;
  const where = category ? 'reconciliation_id = ? AND category = ?' : 'reconciliation_id = ?';
  const params = category ? [id, category] : [id];
  const rows = db.prepare(`SELECT * FROM reconciliation_rows WHERE ${where} ORDER BY row_number LIMIT ? OFFSET ?`).all(...params, limit, offset) as StoredRow[];
  const { total } = db.prepare(`SELECT COUNT(*) AS total FROM reconciliation_rows WHERE ${where}`).get(...params) as { total: number };
  return { rows: rows.map((row) => toReportRow(row, run.currency)), total, offset, limit };
}
