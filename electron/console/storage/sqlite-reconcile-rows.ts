/**
 * A reconciliation's rows (./reconcile-rows-port.ts) on the SQLite journal: the journal's own
 * functions (../reconcile/store.ts), synchronous inside a resolved promise; the three reads the
 * runner and the report made with their own SQL are here.
 */
import type { Statement } from 'better-sqlite3';
import { SCOPED_BY_EXTERNAL_ID, type JournalDb } from '../journal/entries';
import { toJournalTransaction, type EntryRow } from '../journal/rows';
import {
  addUnknownToMerchant,
  countRateLimitWait,
  fileKeys,
  getSummary,
  listSummaries,
  pageRows,
  progressCounts,
  removeUnfinishedImports,
  reopenNotChecked,
  rowsToVerify,
  runInfo,
  saveOutcomes,
  uncheckedRows,
  type StoredRow,
} from '../reconcile/store';
import type { JournalCandidate, ReconcileRows } from './reconcile-rows-port';

/** The profile's known entries; the service's creation time read from the transaction it holds. */
const CANDIDATES = `SELECT seq, id, kind, external_id, transaction_id, status, amount, currency, created_at,
    json_extract(transaction_json, '$.created_at') AS tx_created
  FROM entries WHERE profile_id = ? AND environment = ? AND state = 'known' AND seq > ? ORDER BY seq LIMIT ?`;

type CandidateRow = Omit<JournalCandidate, 'journalId' | 'externalId' | 'transactionId' | 'createdAt'> & {
  id: string;
  external_id: string | null;
  transaction_id: string | null;
  created_at: number;
  tx_created: string | null;
};

export function candidateOf(row: CandidateRow): JournalCandidate {
  return {
    seq: row.seq,
    journalId: row.id,
    kind: row.kind,
    externalId: row.external_id,
    transactionId: row.transaction_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    createdAt: row.tx_created ? Date.parse(row.tx_created) : row.created_at,
  };
}

export function sqliteReconcileRows(db: JournalDb): ReconcileRows {
  let byExternalId: Statement<unknown[]> | null = null;
  return {
    removeUnfinishedImports: async () => removeUnfinishedImports(db),
    summary: async (id) => getSummary(db, id),
    list: async (limit) => listSummaries(db, limit),
    detail: async (id) => runInfo(db, id),
    progressCounts: async (id) => progressCounts(db, id),
    countRateLimitWait: async (id) => countRateLimitWait(db, id),
    uncheckedRows: async (id, limit) => uncheckedRows(db, id, limit),
    rowsToVerify: async (id, limit) => rowsToVerify(db, id, limit),
    reopenNotChecked: async (id) => reopenNotChecked(db, id),
    saveOutcomes: async (id, outcomes, at) => saveOutcomes(db, id, outcomes, at),
    fileKeys: (id) => fileKeys(db, id),
    journalCandidates: async (profile, afterSeq, limit) => (db.prepare(CANDIDATES).all(profile.id, profile.environment, afterSeq, limit) as CandidateRow[]).map(candidateOf),
    addUnknownToMerchant: async (id, entries, at) => addUnknownToMerchant(db, id, [...entries], at),
    pageRows: async (id, category, offset, limit) => pageRows(db, id, category, offset, limit),
    async rowsAfter(id, category, afterRow, limit) {
      const where = category ? 'reconciliation_id = ? AND category = ?' : 'reconciliation_id = ?';
      const params = category ? [id, category] : [id];
      return db.prepare(`SELECT * FROM reconciliation_rows WHERE ${where} AND row_number > ? ORDER BY row_number LIMIT ?`).all(...params, afterRow, limit) as StoredRow[];
    },
    async entryFor(profile, kind, externalId) {
      byExternalId ??= db.prepare(SCOPED_BY_EXTERNAL_ID);
      const found = byExternalId.get(externalId, kind, profile.id, profile.environment) as EntryRow | undefined;
      return found ? toJournalTransaction(found) : null;
    },
  };
}
