/**
 * Bulk payouts, the draft: a file read and checked into a new batch, a cell fixed, rows dropped,
 * the invalid rows as a file, and a new draft of a stopped batch's failed rows. Parsing and
 * checking are the shared module's (shared/batch); each step takes only what it touches, and
 * reads and writes through the store's batches (a desktop's journal or a team workspace).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BatchDetail, BatchRowValues, BatchSummary } from '../../../shared/api';
import { BATCH_COLUMNS, BATCH_DEFAULT_CONCURRENCY, META_PREFIX } from '../../../shared/api';
import { checkRows, invalidRowsCsv, parseBatchCsv, type RowInput } from '../../../shared/batch';
import type { Language } from '../../../shared/i18n';
import { remainingName } from '../batch/identity';
import { failedRows, retryName, retryRows } from '../batch/retry-plan';
import { BatchStateChanged, RowsStillClaimed, type NewBatchRow } from '../storage/batch-drafts-port';
import type { NewBatch } from '../storage/port';
import { canonicalJson } from '../confirmations';
import type { Logger } from '../deps';
import type { Context } from './context';
import { HandlerFailure } from './context';
import { detailOf, fileStamp, requireDraft, summaryOf, type BatchJournal } from './batch-read';

/** The profile a new draft is imported under. */
type ActiveProfile = Pick<Context, 'activeProfile'>;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function newBatchId(now: number): string {
  return `B-${now.toString(36)}${randomBytes(3).toString('hex')}`;
}

export { retryName } from '../batch/retry-plan';

/** Checks the rows again as a whole; a row's own line error (cell count) stays until it is edited. */
function recheck(batch: BatchSummary, inputs: RowInput[]) {
  return checkRows(inputs, { batchId: batch.id, defaultPaymentMethod: batch.paymentMethod });
}

/** `batches:import`: the file parsed and every row checked, a new draft. */
export async function importBatch(
  { batches, now, logger }: BatchJournal & { logger?: Logger | undefined },
  profiles: ActiveProfile,
  input: { fileName: string; text: string; paymentMethod?: string | undefined },
): Promise<BatchDetail> {
  const { fileName, paymentMethod } = input;
  const parsed = parseBatchCsv(input.text);
  if (!parsed.ok) throw new HandlerFailure('INVALID_INPUT', `${fileName} cannot be read as a batch file.`, { fields: { text: parsed.errors } });
  const profile = profiles.activeProfile();
  const id = newBatchId(now());
  const fileHash = sha256(canonicalJson(parsed.file.rows.map((row) => row.values)));
  // The same file sent before: its rows without their own external id take the ones they were
  // sent under, so the service refuses a second payment and the row adopts the first.
  const earlierIds = await batches.earlierRowIds(fileHash, parsed.file.rows, profile.environment);
  const inputs = parsed.file.rows.map((row) => {
    const earlier = row.values.external_id.trim() === '' ? earlierIds.get(row.rowNumber) : undefined;
    return earlier ? { ...row, values: { ...row.values, external_id: earlier } } : row;
  });
  const rows = checkRows(inputs, { batchId: id, defaultPaymentMethod: paymentMethod ?? null });
  await batches.create({
    id,
    fileName,
    fileHash,
    profile: { id: profile.id, name: profile.name, environment: profile.environment },
    paymentMethod: paymentMethod ?? null,
    concurrency: BATCH_DEFAULT_CONCURRENCY,
    retryOf: null,
    rows,
    at: now(),
  });
  logger?.info('batch imported', { batchId: id, rows: rows.length });
  return detailOf(batches, id);
}

/** The cells of one row with the given ones replaced (`meta.KEY` for metadata); unknown columns are errors. */
function withCells(current: BatchRowValues, values: Record<string, string>): BatchRowValues {
  const fields: Record<string, string[]> = {};
  const next: BatchRowValues = { ...current, meta: { ...current.meta } };
  for (const [key, value] of Object.entries(values)) {
    if (key.startsWith(META_PREFIX) && key.length > META_PREFIX.length) {
      const metaKey = key.slice(META_PREFIX.length);
      if (value.trim() === '') delete next.meta[metaKey];
      else next.meta[metaKey] = value.trim();
    } else if ((BATCH_COLUMNS as readonly string[]).includes(key)) {
      next[key as (typeof BATCH_COLUMNS)[number]] = value.trim();
    } else {
      fields[`values.${key.slice(0, 60)}`] = ['is not a column of a batch file'];
    }
  }
  if (Object.keys(fields).length > 0) throw new HandlerFailure('INVALID_INPUT', 'Invalid input for batches:updateRow.', { fields });
  return next;
}

/** `batches:updateRow`: a draft's row fixed in place, and the whole batch checked again (duplicates span rows). */
export async function updateRow({ batches, now }: BatchJournal, input: { batchId: string; rowNumber: number; values: Record<string, string> }): Promise<BatchDetail> {
  const { batchId, rowNumber } = input;
  const batch = await requireDraft(batches, batchId);
  const inputs = await batches.rowInputs(batchId);
  const target = inputs.find((row) => row.rowNumber === rowNumber);
  if (!target) throw new HandlerFailure('NOT_FOUND', `Batch ${batchId} has no row ${rowNumber}.`);
  const next = withCells(target.values, input.values);
  const rows = recheck(
    batch,
    inputs.map((row) => (row.rowNumber === rowNumber ? { rowNumber, values: next } : { rowNumber: row.rowNumber, values: row.values, lineErrors: row.errors._ ?? [] })),
  );
  await batches.replaceDraftRows(batchId, rows, now());
  return detailOf(batches, batchId);
}

/** `batches:dropRows`: the given rows, or every row with errors (`invalid`), dropped from a draft. */
export async function dropRows(
  { batches, now }: BatchJournal,
  input: { batchId: string; rowNumbers?: number[] | undefined; invalid?: true | undefined; sent?: true | undefined },
): Promise<BatchDetail> {
  const { batchId } = input;
  const batch = await requireDraft(batches, batchId);
  const inputs = await batches.rowInputs(batchId);
  const rowNumbers = input.invalid
    ? inputs.filter((row) => Object.keys(row.errors).length > 0).map((row) => row.rowNumber)
    : input.sent
      ? await batches.sentEarlierRowNumbers(batchId)
      : (input.rowNumbers ?? []);
  if (rowNumbers.length === 0) {
    throw new HandlerFailure('CONFLICT', input.sent ? `Batch ${batchId} has no row that was sent earlier.` : `Batch ${batchId} has no row with errors to drop.`, {
      reason: { key: input.sent ? 'noSentRows' : 'noInvalidRows', params: {} },
    });
  }
  const dropping = new Set(rowNumbers);
  const missing = rowNumbers.filter((rowNumber) => !inputs.some((row) => row.rowNumber === rowNumber));
  if (missing.length > 0) throw new HandlerFailure('NOT_FOUND', `Batch ${batchId} has no row ${missing.slice(0, 10).join(', ')}.`);
  const rows = recheck(
    batch,
    inputs.filter((row) => !dropping.has(row.rowNumber)).map((row) => ({ rowNumber: row.rowNumber, values: row.values, lineErrors: row.errors._ ?? [] })),
  );
  await batches.replaceDraftRows(batchId, rows, now());
  return detailOf(batches, batchId);
}

/** `batches:invalidRows`: the rows with errors as a file to fix elsewhere. */
export async function invalidRowsFile({ batches, now }: BatchJournal, input: { batchId: string; language: Language }) {
  await summaryOf(batches, input.batchId);
  return invalidRowsCsv(input.language, await batches.rows(input.batchId), fileStamp(now()));
}

/**
 * `batches:retryFailed`: a new draft of a stopped batch's failed rows. A row refused by the service
 * (no transaction was created) keeps its external id, so the service's duplicate check still
 * guards it; a row whose transaction exists and ended failed/cancelled gets a new id derived from
 * it (`<id>-r1`), linked to it. Rows that adopted an earlier transaction are not retried.
 */
export async function retryFailed({ batches, now }: BatchJournal, profiles: ActiveProfile, input: { batchId: string }): Promise<BatchDetail> {
  const { batchId } = input;
  const batch = await summaryOf(batches, batchId);
  if (batch.state === 'draft' || batch.state === 'sending') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: retry its failed rows once it has stopped.`, { reason: { key: 'notStopped', params: { state: batch.state } } });
  }
  const rows = await batches.rows(batchId);
  const open = rows.filter((row) => row.state === 'unknown' || row.state === 'pending').length;
  if (open > 0) {
    // A row whose outcome is unknown may have been paid: it is looked up, never retried blindly.
    throw new HandlerFailure('CONFLICT', `${open} row(s) of batch ${batchId} have an unknown outcome: they are being looked up by their external id. Retry the failed rows once that is done.`, {
      reason: { key: 'unknownRows', params: { count: open } },
    });
  }
  const failed = failedRows(rows);
  if (failed.length === 0) throw new HandlerFailure('CONFLICT', `Batch ${batchId} has no failed row to retry.`, { reason: { key: 'nothingToRetry', params: {} } });
  // The same plan the batch's detail shows (retryLeft): a row retried already is followed to the end of its chain.
  const retried = await retryRows(batches, batch.environment, failed);
  if (retried.length === 0) {
    const retriedIn = await batches.batchMadeFrom(batchId, retryName(batch.fileName));
    throw new HandlerFailure('CONFLICT', `The failed rows of batch ${batchId} were retried already${retriedIn ? ` in batch “${retriedIn.fileName}”` : ''}, and those retries were sent.`, {
      reason: { key: 'retriedAlready', params: { name: retriedIn?.fileName ?? batchId } },
    });
  }
  return newDraftOf(batches, profiles, batch, { fileName: retryName(batch.fileName), rows: retried, now: now() });
}

/**
 * `batches:sendRemaining`: a cancelled batch's rows never sent MOVED to a new draft with their own
 * external ids (never created at the service), confirmed through the batch's usual steps: the new
 * batch holds and counts them, the old one shows them as moved (one transaction in the store;
 * docs/decisions/a-row-belongs-to-one-batch.md). A second ask finds none left: it names the batch
 * they moved to.
 */
export async function sendRemaining({ batches, now }: BatchJournal, profiles: ActiveProfile, input: { batchId: string }): Promise<BatchDetail> {
  const { batchId } = input;
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'cancelled') throw notCancelled(batchId, batch.state);
  const at = now();
  let made: NewBatch | null;
  try {
    made = await batches.moveRemaining(batchId, at, (remaining) =>
      newBatchOf(profiles, batch, {
        fileName: remainingName(batch.fileName),
        rows: remaining.map((row) => ({ rowNumber: row.rowNumber, values: { ...row.values, external_id: row.externalId }, ...(row.retryOf ? { retryOf: row.retryOf } : {}) })),
        now: at,
      }),
    );
  } catch (error) {
    if (error instanceof BatchStateChanged) throw notCancelled(batchId, error.state);
    if (error instanceof RowsStillClaimed) {
      throw new HandlerFailure('CONFLICT', `${error.count} remaining row(s) of batch ${batchId} are still held by a desktop that was sending them: try again once it has let them go.`, {
        reason: { key: 'rowsStillClaimed', params: { count: error.count } },
      });
    }
    throw error;
  }
  if (!made) {
    const movedTo = await batches.batchMadeFrom(batchId, remainingName(batch.fileName));
    if (movedTo) {
      throw new HandlerFailure('CONFLICT', `The remaining rows of batch ${batchId} were moved to batch “${movedTo.fileName}” (${movedTo.batchId}): it sends them.`, {
        reason: { key: 'movedAlready', params: { name: movedTo.fileName, batchId: movedTo.batchId } },
      });
    }
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} has no row left to send.`, { reason: { key: 'nothingRemaining', params: {} } });
  }
  return detailOf(batches, made.id);
}

function notCancelled(batchId: string, state: BatchSummary['state']): HandlerFailure {
  return new HandlerFailure('CONFLICT', `Batch ${batchId} is ${state}: only a cancelled batch's remaining rows are sent this way.`, { reason: { key: 'notCancelled', params: { state } } });
}

/** A new batch (a draft) made of an earlier batch's rows (retry, remaining), linked to it. */
function newBatchOf(
  profiles: ActiveProfile,
  batch: BatchSummary,
  input: { fileName: string; rows: { rowNumber: number; values: BatchRowValues; retryOf?: string }[]; now: number },
): NewBatch {
  const profile = profiles.activeProfile();
  const id = newBatchId(input.now);
  const links = new Map(input.rows.map((row) => [row.rowNumber, row.retryOf]));
  const checked: NewBatchRow[] = checkRows(input.rows, { batchId: id, defaultPaymentMethod: batch.paymentMethod }).map((row) => ({ ...row, retryOf: links.get(row.rowNumber) }));
  return {
    id,
    fileName: input.fileName,
    fileHash: sha256(canonicalJson({ from: batch.id, fileName: input.fileName, rows: input.rows.map((row) => row.values) })),
    profile: { id: profile.id, name: profile.name, environment: profile.environment },
    paymentMethod: batch.paymentMethod,
    concurrency: batch.concurrency,
    retryOf: batch.id,
    rows: checked,
    at: input.now,
  };
}

/** A new draft made of an earlier batch's rows (a retry of its failed rows), linked to it. */
async function newDraftOf(
  batches: BatchJournal['batches'],
  profiles: ActiveProfile,
  batch: BatchSummary,
  input: { fileName: string; rows: { rowNumber: number; values: BatchRowValues; retryOf?: string }[]; now: number },
): Promise<BatchDetail> {
  const made = newBatchOf(profiles, batch, input);
  await batches.create(made);
  return detailOf(batches, made.id);
}
