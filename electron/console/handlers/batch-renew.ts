/**
 * `batches:renewSentIds`: a draft's rows sent earlier, paid again on purpose as new payouts.
 *
 * The journal never lets an external id it holds as money be POSTed again: a row whose id is
 * already a payout is only linked to it (docs/decisions/journal-is-the-idempotency-guard.md). To
 * pay such rows again, each takes a new id visibly derived from its own (`<id>-n1`, the first the
 * journal does not hold: ../batch/identity.ts renewedExternalId), written into the draft's cells
 * through the store's draft edit. The draft is then confirmed as any draft: `batches:prepare`
 * binds every row's request with its new id, so the person confirms the new ids and their total.
 * See docs/decisions/send-as-new-payouts.md.
 */
import { SENT_EARLIER_LISTED, type RenewedId, type RenewedIds } from '../../../shared/api';
import { checkRows } from '../../../shared/batch';
import { renewedExternalId } from '../batch/identity';
import type { Logger } from '../deps';
import { detailOf, requireDraft, type BatchJournal } from './batch-read';

export async function renewSentIds({ batches, now, logger }: BatchJournal & { logger?: Logger | undefined }, input: { batchId: string; dryRun?: true | undefined }): Promise<RenewedIds> {
  const { batchId } = input;
  const batch = await requireDraft(batches, batchId);
  const sent = new Set(await batches.sentEarlierRowNumbers(batchId));
  if (sent.size === 0) return { count: 0, rows: [], applied: false, detail: await detailOf(batches, batchId) };
  const rows = await batches.rows(batchId);
  // No two rows of the draft end with one id: every id the draft holds, and each new one, is taken.
  const taken = new Set(rows.map((row) => row.externalId));
  const renewed: RenewedId[] = [];
  for (const row of rows) {
    if (!sent.has(row.rowNumber) || row.request === null) continue;
    const to = await renewedExternalId((id) => batches.externalIdInJournal(id), row.externalId, taken);
    taken.add(to);
    renewed.push({ rowNumber: row.rowNumber, from: row.externalId, to });
  }
  const listed = renewed.slice(0, SENT_EARLIER_LISTED);
  if (input.dryRun) return { count: renewed.length, rows: listed, applied: false, detail: await detailOf(batches, batchId) };
  const newIds = new Map(renewed.map((row) => [row.rowNumber, row.to]));
  const inputs = await batches.rowInputs(batchId);
  const checked = checkRows(
    inputs.map((row) => {
      const to = newIds.get(row.rowNumber);
      return { rowNumber: row.rowNumber, values: to ? { ...row.values, external_id: to } : row.values, lineErrors: row.errors._ ?? [] };
    }),
    { batchId, defaultPaymentMethod: batch.paymentMethod },
  );
  // Refused by the store once the batch is not a draft (a confirm or a start came first).
  await batches.replaceDraftRows(batchId, checked, now());
  // A desktop's log line; a team workspace's audit log records the confirmation, which binds the new ids.
  logger?.info('batch rows renewed as new payouts', { batchId, rows: renewed.length, first: listed.slice(0, 3).map((row) => `${row.from} -> ${row.to}`) });
  return { count: renewed.length, rows: listed, applied: true, detail: await detailOf(batches, batchId) };
}
