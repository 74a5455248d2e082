/**
 * A batch's rows that adopted a payout which is not what they ask (shared/api/adopted.ts): the
 * report card counts them, so a batch never reads "all completed" over people who were not paid.
 */
import type { JournalDb } from '../journal/entries';
import { adoptedDiffers } from '../journal/rows';

/** How many rows of the batch adopted a transaction with another recipient, amount or currency. */
export function adoptedDifferingCount(db: JournalDb, batchId: string): number {
  // Only adopted rows and rows linked to a payout sent earlier are read (a handful at most), not the batch's 10,000.
  const rows = db
    .prepare(
      `SELECT br.request, e.transaction_json FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq JOIN entries e ON e.id = br.journal_id
       WHERE b.id = ? AND (e.already_sent_at IS NOT NULL OR e.batch_id IS NOT b.id)`,
    )
    .all(batchId) as { request: string | null; transaction_json: string | null }[];
  return rows.filter((row) => adoptedDiffers(row.request, row.transaction_json).adoptedDiffers !== undefined).length;
}
