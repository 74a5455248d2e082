/**
 * What "Retry failed" takes from a stopped batch (batches:retryFailed), computed the same way for
 * the action and for the screen that offers it: a batch whose failed rows were all retried already
 * offers nothing, and says where they went (issue 23, review).
 */
import { BATCH_MAX_ROWS, batchFigures, type BatchRow, type BatchRowValues, type BatchSummary, type RetryLeft } from '../../../shared/api';
import type { BatchPort } from '../storage/port';
import { derivedExternalId, retryTarget } from './identity';

/**
 * A retry batch's own name: `october.csv` → `october (retry 1).csv`, and a retry of that one
 * `october (retry 2).csv`, so the list tells the original and its retries apart.
 */
export function retryName(fileName: string): string {
  const match = /^(.*?)(?: \(retry (\d+)\))?(\.[A-Za-z0-9]{1,5})?$/.exec(fileName);
  const stem = match?.[1] ?? fileName;
  const n = Number(match?.[2] ?? 0) + 1;
  return `${stem} (retry ${n})${match?.[3] ?? ''}`;
}

/** A row of the retry draft: its cells with the external id it is sent under, and what it retries. */
export interface RetryRow {
  rowNumber: number;
  values: BatchRowValues;
  retryOf?: string;
}

/** The failed rows of a batch: refused, or created and then failed or cancelled, not adopted. */
export function failedRows(rows: readonly BatchRow[]): BatchRow[] {
  return rows.filter((row) => !row.alreadySent && (row.state === 'rejected' || (row.state === 'accepted' && (row.status === 'failed' || row.status === 'cancelled'))));
}

/**
 * The rows a retry of these failed rows sends. A row refused by the service (no transaction was
 * created) keeps its external id, so the service's duplicate check still guards it; a row whose
 * transaction exists and ended failed/cancelled gets a new id derived from it (`<id>-r1`), linked
 * to it. A failed payout already retried (by an earlier retry of this batch or of its retry) is
 * retried from the end of that chain, and not at all once a retry of it was paid or may have been.
 */
export async function retryRows(batches: BatchPort, environment: string, failed: readonly BatchRow[]): Promise<RetryRow[]> {
  const retries = await batches.retriesByOrigin(environment);
  const inJournal = (externalId: string) => batches.externalIdInJournal(externalId);
  const taken = new Set<string>();
  const planned: RetryRow[] = [];
  // One row after the other: each derived id is taken before the next row's is chosen.
  for (const row of failed) {
    if (row.state === 'rejected') {
      planned.push({ rowNumber: row.rowNumber, values: { ...row.values, external_id: row.externalId }, ...(row.retryOf ? { retryOf: row.retryOf } : {}) });
      continue;
    }
    const target = retryTarget(retries, row.externalId);
    if (target === null) continue;
    const [externalId, retryOf] =
      'reuse' in target ? [target.reuse, target.retryOf] : [await derivedExternalId(inJournal, target.from, target.isRetry || row.retryOf ? target.from : null, taken), target.from];
    taken.add(externalId);
    planned.push({ rowNumber: row.rowNumber, values: { ...row.values, external_id: externalId }, retryOf });
  }
  return planned;
}

/**
 * A stopped batch with failed rows: how many a retry would take now, and its latest retry batch.
 * Null while it has no failed row, or is still a draft or sending (nothing to offer yet).
 */
export async function retryLeft(batches: BatchPort, batch: BatchSummary): Promise<RetryLeft | null> {
  if (batch.state === 'draft' || batch.state === 'sending' || batchFigures(batch.counts).failed === 0) return null;
  // Only the failed rows are read (the filter of the Failed list), not every row of the batch.
  const failed = failedRows((await batches.rowsPage(batch.id, 'failed', 0, BATCH_MAX_ROWS)).rows);
  if (failed.length === 0) return null;
  return { failed: failed.length, rows: (await retryRows(batches, batch.environment, failed)).length, retriedIn: await batches.batchMadeFrom(batch.id, retryName(batch.fileName)) };
}
