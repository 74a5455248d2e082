/**
 * Bulk payouts, reading: a batch's summary and detail, one page of its rows, the list, and the
 * checks every other step starts with (the batch exists; it is still a draft). Each step takes
 * only the store's batches and the time (`BatchJournal`): a desktop's SQLite journal or a team
 * workspace, the same way (issue 24).
 */
import type { BatchDetail, BatchRowFilter, BatchRowsPage, BatchSummary } from '../../../shared/api';
import type { Language } from '../../../shared/i18n';
import { reportCsv } from '../../../shared/batch';
import { remainingName } from '../batch/identity';
import { retryLeft } from '../batch/retry-plan';
import type { BatchPort } from '../storage/port';
import { DEFAULT_CURRENCY, HandlerFailure } from './context';

/** What a step that reads or writes batches needs: the store's batches, and the console's time. */
export interface BatchJournal {
  batches: BatchPort;
  now(): number;
}

/** A file name's time stamp (`2026-11-24-05-10-00`). */
export function fileStamp(now: number): string {
  return new Date(now).toISOString().slice(0, 19).replace(/[:T]/g, '-');
}

export async function summaryOf(batches: BatchPort, batchId: string): Promise<BatchSummary> {
  const summary = await batches.summary(batchId);
  if (!summary) throw new HandlerFailure('NOT_FOUND', `No batch ${batchId}.`);
  return summary;
}

/** The batch without its rows (those come page by page: rowsPageOf). */
export async function detailOf(batches: BatchPort, batchId: string): Promise<BatchDetail> {
  const batch = await summaryOf(batches, batchId);
  const base: BatchDetail = { batch, importedBefore: await batches.earlierImports(batch.fileHash, batchId), rehearsal: await batches.rehearsal(batchId) };
  const differing = batch.state === 'draft' ? 0 : await batches.adoptedDifferingCount(batchId);
  const retry = await retryLeft(batches, batch);
  const detail = { ...base, ...(differing > 0 ? { adoptedDiffering: differing } : {}), ...(retry ? { retryLeft: retry } : {}) };
  if (batch.state === 'cancelled') {
    const remaining = await batches.batchMadeFrom(batch.id, remainingName(batch.fileName));
    return remaining ? { ...detail, remainingBatch: remaining } : detail;
  }
  if (batch.state !== 'draft') return detail;
  // A draft names its rows already sent under the same external id (a re-import), and how they ended.
  const sent = await batches.sentEarlier(batchId);
  return sent.count > 0 ? { ...detail, sentEarlier: sent } : detail;
}

export async function requireDraft(batches: BatchPort, batchId: string): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'draft') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a draft can be changed.`, { reason: { key: 'draftOnly', params: { state: batch.state } } });
  }
  return batch;
}

/** `batches:rows`: a page past the end is empty (the list shrank under the table), not an error. */
export async function rowsPageOf(batches: BatchPort, input: { batchId: string; filter: BatchRowFilter; offset: number; limit: number }): Promise<BatchRowsPage> {
  await summaryOf(batches, input.batchId);
  const { total, rows } = await batches.rowsPage(input.batchId, input.filter, input.offset, input.limit);
  return { batchId: input.batchId, filter: input.filter, total, offset: input.offset, rows };
}

export async function listBatches(batches: BatchPort): Promise<{ batches: BatchSummary[] }> {
  return { batches: await batches.list() };
}

/** `batches:report`: every row's final status, as CSV. */
export async function reportFile({ batches, now }: BatchJournal, input: { batchId: string; language: Language }) {
  await summaryOf(batches, input.batchId);
  return reportCsv(input.language, input.batchId, await batches.rows(input.batchId), DEFAULT_CURRENCY, fileStamp(now()));
}

/**
 * A team workspace's batch on another desktop's Local sandbox is sent from that desktop only: each
 * desktop's Local sandbox is an engine of its own, so Confirm, Start, Resume or Help send from here
 * would pay its rows on another service (docs/decisions/local-sandbox-batch-stays-on-its-desktop.md;
 * the workspace refuses the same with PD050, migration 50).
 */
export function refuseSandboxElsewhere(batch: BatchSummary): void {
  if (batch.sandboxElsewhereBy === undefined) return;
  throw new HandlerFailure(
    'CONFLICT',
    `Batch ${batch.id} is on the Local sandbox of another desktop (imported by ${batch.sandboxElsewhereBy}): each desktop's Local sandbox is a service of its own, so only that desktop sends it. Nothing was sent. A batch the team sends together goes on the Team sandbox profile.`,
    { reason: { key: 'sandboxBatchElsewhere', params: { login: batch.sandboxElsewhereBy } } },
  );
}
