/**
 * Bulk payouts, reading: a batch's summary and detail, one page of its rows, the list, and the
 * checks every other step starts with (the batch exists; it is still a draft). Each step takes
 * only the journal and the time (`BatchJournal`).
 */
import type { BatchDetail, BatchRowFilter, BatchRowsPage, BatchSummary } from '../../../shared/api';
import type { Language } from '../../../shared/i18n';
import { reportCsv } from '../../../shared/batch';
import type { JournalDb } from '../journal/entries';
import { adoptedDifferingCount } from '../batch/adopted';
import { remainingBatch, sentEarlier } from '../batch/identity';
import { retryLeft } from '../batch/retry-plan';
import { earlierImports, getSummary, listSummaries, loadRows, rehearsalOf, rowsPage } from '../batch/store';
import { DEFAULT_CURRENCY, HandlerFailure } from './context';

/** What a step that reads or writes batches needs: the journal, and the console's time. */
export interface BatchJournal {
  db: JournalDb;
  now(): number;
}

/** A file name's time stamp (`2026-11-24-05-10-00`). */
export function fileStamp(now: number): string {
  return new Date(now).toISOString().slice(0, 19).replace(/[:T]/g, '-');
}

export function summaryOf(db: JournalDb, batchId: string): BatchSummary {
  const summary = getSummary(db, batchId);
  if (!summary) throw new HandlerFailure('NOT_FOUND', `No batch ${batchId}.`);
  return summary;
}

/** The batch without its rows (those come page by page: rowsPageOf). */
export function detailOf(db: JournalDb, batchId: string): BatchDetail {
  const batch = summaryOf(db, batchId);
  const base: BatchDetail = { batch, importedBefore: earlierImports(db, batch.fileHash, batchId), rehearsal: rehearsalOf(db, batchId) };
  const differing = batch.state === 'draft' ? 0 : adoptedDifferingCount(db, batchId);
  const retry = retryLeft(db, batch);
  const detail = { ...base, ...(differing > 0 ? { adoptedDiffering: differing } : {}), ...(retry ? { retryLeft: retry } : {}) };
  if (batch.state === 'cancelled') {
    const remaining = remainingBatch(db, batch);
    return remaining ? { ...detail, remainingBatch: remaining } : detail;
  }
  if (batch.state !== 'draft') return detail;
  // A draft names its rows already sent under the same external id (a re-import), and how they ended.
  const sent = sentEarlier(db, batchId);
  return sent.count > 0 ? { ...detail, sentEarlier: sent } : detail;
}

export function requireDraft(db: JournalDb, batchId: string): BatchSummary {
  const batch = summaryOf(db, batchId);
  if (batch.state !== 'draft') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a draft can be changed.`, { reason: { key: 'draftOnly', params: { state: batch.state } } });
  }
  return batch;
}

/** `batches:rows`: a page past the end is empty (the list shrank under the table), not an error. */
export function rowsPageOf(db: JournalDb, input: { batchId: string; filter: BatchRowFilter; offset: number; limit: number }): BatchRowsPage {
  summaryOf(db, input.batchId);
  const { total, rows } = rowsPage(db, input.batchId, input.filter, input.offset, input.limit);
  return { batchId: input.batchId, filter: input.filter, total, offset: input.offset, rows };
}

export function listBatches(db: JournalDb): { batches: BatchSummary[] } {
  return { batches: listSummaries(db) };
}

/** `batches:report`: every row's final status, as CSV. */
export function reportFile({ db, now }: BatchJournal, input: { batchId: string; language: Language }) {
  summaryOf(db, input.batchId);
  return reportCsv(input.language, input.batchId, loadRows(db, input.batchId), DEFAULT_CURRENCY, fileStamp(now()));
}
