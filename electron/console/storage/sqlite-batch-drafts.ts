/**
 * The Bulk payouts screens' part of the port (./batch-drafts-port.ts) on one desktop's SQLite
 * journal: the journal's own functions (../batch/store.ts, identity.ts, adopted.ts), each run
 * synchronously inside a resolved promise, so a single desktop keeps its behaviour and figures.
 */
import { adoptedDifferingCount } from '../batch/adopted';
import { batchMadeFrom, earlierRowIds, idInJournal, retriesByOrigin, sentEarlier, sentEarlierRowNumbers } from '../batch/identity';
import { loadRows, progressCounts, rehearsalOf, replaceDraftRows, rowInputs, rowsByNumber, rowsPage, saveRehearsal } from '../batch/store';
import type { JournalDb } from '../journal/entries';
import type { BatchDraftsPort } from './batch-drafts-port';

export function sqliteBatchDrafts(db: JournalDb): BatchDraftsPort {
  return {
    rows: async (id) => loadRows(db, id),
    rowsPage: async (id, filter, offset, limit) => rowsPage(db, id, filter, offset, limit),
    rowsByNumber: async (id, rowNumbers) => rowsByNumber(db, id, rowNumbers),
    progressCounts: async (id) => progressCounts(db, id),
    rowInputs: async (id) => rowInputs(db, id),
    replaceDraftRows: async (id, rows, at) => replaceDraftRows(db, id, rows, at),
    rehearsal: async (id) => rehearsalOf(db, id),
    saveRehearsal: async (id, summary, results, at) => saveRehearsal(db, id, summary, results, at),
    adoptedDifferingCount: async (id) => adoptedDifferingCount(db, id),
    sentEarlier: async (id) => sentEarlier(db, id),
    sentEarlierRowNumbers: async (id) => sentEarlierRowNumbers(db, id),
    earlierRowIds: async (fileHash, fileRows, environment) => earlierRowIds(db, fileHash, fileRows, environment),
    batchMadeFrom: async (batchId, fileName) => batchMadeFrom(db, batchId, fileName),
    retriesByOrigin: async (environment) => retriesByOrigin(db, environment),
    externalIdInJournal: async (externalId) => idInJournal(db, externalId),
  };
}
