/**
 * Bulk payouts from a CSV file (issue 10): the batches:* channels. Parsing and checking are the
 * shared module's (shared/batch), sending is the runner's (../batch/runner.ts), the journal holds
 * the batch, its rows and each row's payout entry (../batch/store.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Channel, BatchDetail, BatchPreview, BatchRowValues, BatchSummary } from '../../../shared/api';
import { BATCH_COLUMNS, BATCH_DEFAULT_CONCURRENCY, META_PREFIX } from '../../../shared/api';
import { balanceSchema } from '../../../shared/contract';
import { checkRows, invalidRowsCsv, parseBatchCsv, reportCsv, templateCsv, type RowInput } from '../../../shared/batch';
import { createBatchRunner, type BatchRunner, type RunnerHooks } from '../batch/runner';
import { rehearseBatch } from '../batch/rehearsal';
import {
  createBatch,
  earlierImports,
  getSummary,
  listSummaries,
  loadRows,
  rehearsalOf,
  replaceDraftRows,
  rowInputs,
  setState,
} from '../batch/store';
import { canonicalJson } from '../confirmations';
import { DEFAULT_CURRENCY, HandlerFailure, type Context, type HandlerImpls } from './context';

type BatchChannel = Extract<Channel, `batches:${string}`>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function newBatchId(now: number): string {
  return `B-${now.toString(36)}${randomBytes(3).toString('hex')}`;
}

/** The hash a confirmation is bound to: profile, environment, and every request with its external id. */
export function batchBindingHash(profileId: string, environment: string, rows: readonly { rowNumber: number; request: unknown }[]): string {
  return sha256(canonicalJson({ profileId, environment, rows: rows.map((row) => ({ row: row.rowNumber, request: row.request })) }));
}

export function batchHandlers(context: Context, hooks: RunnerHooks): { handlers: HandlerImpls<BatchChannel>; runner: BatchRunner } {
  const { deps } = context;
  const db = deps.journal;
  const now = () => deps.clock.now();
  const runner = createBatchRunner(context, hooks);
  const stamp = () => new Date(now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');

  function summaryOf(batchId: string): BatchSummary {
    const summary = getSummary(db, batchId);
    if (!summary) throw new HandlerFailure('NOT_FOUND', `No batch ${batchId}.`);
    return summary;
  }

  function detailOf(batchId: string): BatchDetail {
    const batch = summaryOf(batchId);
    return { batch, rows: loadRows(db, batchId), importedBefore: earlierImports(db, batch.fileHash, batchId), rehearsal: rehearsalOf(db, batchId) };
  }

  function requireDraft(batchId: string): BatchSummary {
    const batch = summaryOf(batchId);
    if (batch.state !== 'draft') throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a draft can be changed.`);
    return batch;
  }

  /** Checks the rows again as a whole; a row's own line error (cell count) stays until it is edited. */
  function recheck(batch: BatchSummary, inputs: RowInput[]) {
    return checkRows(inputs, { batchId: batch.id, defaultPaymentMethod: batch.paymentMethod });
  }

  async function balanceOf(profile: ReturnType<Context['activeProfile']>): Promise<{ balance: number; currency: string } | null> {
    const result = await context.clientFor(profile).getBalance();
    if (result.kind !== 'success') return null;
    const parsed = balanceSchema.safeParse(result.data);
    return parsed.success ? parsed.data : null;
  }

  async function preview(batchId: string, profile: ReturnType<Context['activeProfile']>): Promise<BatchPreview> {
    const batch = summaryOf(batchId);
    const rows = loadRows(db, batchId).filter((row) => row.request !== null);
    const feeOf = profile.builtIn && deps.engine?.feeFor ? deps.engine.feeFor.bind(deps.engine) : null;
    let totalFees: number | null = feeOf ? 0 : null;
    let totalAmount = 0;
    for (const row of rows) {
      totalAmount += row.request!.amount;
      const fee = feeOf ? feeOf('payout', profile.environment, row.request!.amount, row.request!.payment_method) : null;
      totalFees = totalFees === null || fee === null ? null : totalFees + fee;
    }
    const balance = await balanceOf(profile);
    const totalDebit = totalAmount + (totalFees ?? 0);
    return {
      batchId,
      profileId: profile.id,
      profileName: profile.name,
      environment: profile.environment,
      count: rows.length,
      totalAmount,
      totalFees,
      feesKnown: totalFees !== null,
      totalDebit,
      currency: balance?.currency ?? DEFAULT_CURRENCY,
      balance: balance?.balance ?? null,
      overBalance: balance !== null && totalDebit > balance.balance,
      invalid: batch.counts.invalid,
      duplicates: batch.counts.duplicates,
    };
  }

  function overBalance(quote: BatchPreview): HandlerFailure {
    return new HandlerFailure(
      'INSUFFICIENT_FUNDS',
      `This batch takes ${quote.totalDebit} ${quote.currency}${quote.feesKnown ? ' with fees' : ' before fees'} and the wallet holds ${quote.balance} ${quote.currency}: nothing was sent.`,
    );
  }

  function hashOf(batchId: string, profileId: string, environment: string): string {
    const rows = loadRows(db, batchId).filter((row) => row.request !== null);
    return batchBindingHash(profileId, environment, rows);
  }

  const handlers: HandlerImpls<BatchChannel> = {
    async 'batches:template'({ language }) {
      return templateCsv(language);
    },

    async 'batches:import'({ fileName, text, paymentMethod }) {
      const parsed = parseBatchCsv(text);
      if (!parsed.ok) throw new HandlerFailure('INVALID_INPUT', `${fileName} cannot be read as a batch file.`, { fields: { text: parsed.errors } });
      const profile = context.activeProfile();
      const id = newBatchId(now());
      const rows = checkRows(parsed.file.rows, { batchId: id, defaultPaymentMethod: paymentMethod ?? null });
      createBatch(db, {
        id,
        fileName,
        fileHash: sha256(canonicalJson(parsed.file.rows.map((row) => row.values))),
        profile: { id: profile.id, name: profile.name, environment: profile.environment },
        paymentMethod: paymentMethod ?? null,
        concurrency: BATCH_DEFAULT_CONCURRENCY,
        retryOf: null,
        rows,
        at: now(),
      });
      deps.logger?.info('batch imported', { batchId: id, rows: rows.length });
      return detailOf(id);
    },

    async 'batches:updateRow'({ batchId, rowNumber, values }) {
      const batch = requireDraft(batchId);
      const inputs = rowInputs(db, batchId);
      const target = inputs.find((row) => row.rowNumber === rowNumber);
      if (!target) throw new HandlerFailure('NOT_FOUND', `Batch ${batchId} has no row ${rowNumber}.`);
      const fields: Record<string, string[]> = {};
      const next: BatchRowValues = { ...target.values, meta: { ...target.values.meta } };
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
      const rows = recheck(
        batch,
        inputs.map((row) => (row.rowNumber === rowNumber ? { rowNumber, values: next } : { rowNumber: row.rowNumber, values: row.values, lineErrors: row.errors._ ?? [] })),
      );
      replaceDraftRows(db, batchId, rows, now());
      return detailOf(batchId);
    },

    async 'batches:dropRows'({ batchId, rowNumbers }) {
      const batch = requireDraft(batchId);
      const inputs = rowInputs(db, batchId);
      const dropping = new Set(rowNumbers);
      const missing = rowNumbers.filter((rowNumber) => !inputs.some((row) => row.rowNumber === rowNumber));
      if (missing.length > 0) throw new HandlerFailure('NOT_FOUND', `Batch ${batchId} has no row ${missing.slice(0, 10).join(', ')}.`);
      const rows = recheck(
        batch,
        inputs.filter((row) => !dropping.has(row.rowNumber)).map((row) => ({ rowNumber: row.rowNumber, values: row.values, lineErrors: row.errors._ ?? [] })),
      );
      replaceDraftRows(db, batchId, rows, now());
      return detailOf(batchId);
    },

    async 'batches:invalidRows'({ batchId, language }) {
      summaryOf(batchId);
      return invalidRowsCsv(language, loadRows(db, batchId), stamp());
    },

    async 'batches:preview'({ batchId }) {
      const batch = summaryOf(batchId);
      const profile = batch.state === 'draft' ? context.activeProfile() : context.resolveProfile(batch.profileId);
      context.requireAllowed(profile);
      return preview(batchId, profile);
    },

    async 'batches:rehearse'({ batchId }) {
      const batch = summaryOf(batchId);
      if (batch.counts.valid === 0) throw new HandlerFailure('CONFLICT', 'This batch has no valid row to rehearse.');
      return rehearseBatch(context, batchId);
    },

    async 'batches:prepare'({ batchId, typedTotal, acceptDuplicateFile }) {
      const batch = requireDraft(batchId);
      if (batch.counts.invalid > 0) {
        throw new HandlerFailure('CONFLICT', `${batch.counts.invalid} row(s) have errors: fix or drop them before confirming.`);
      }
      if (batch.counts.valid === 0) throw new HandlerFailure('CONFLICT', 'This batch has no row to send.');
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      context.requireSecret(profile, 'payout');
      const sentBefore = earlierImports(db, batch.fileHash, batchId).filter((earlier) => earlier.state !== 'draft');
      if (sentBefore.length > 0 && acceptDuplicateFile !== true) {
        const first = sentBefore[0]!;
        throw new HandlerFailure('CONFIRMATION_REQUIRED', `The same rows were already sent in batch ${first.batchId} (${first.fileName}, ${first.createdAt}): confirm that this is not a mistake.`, {
          fields: { acceptDuplicateFile: [`the same rows were sent in batch ${first.batchId}`] },
        });
      }
      const quote = await preview(batchId, profile);
      if (quote.overBalance) throw overBalance(quote);
      if (profile.environment === 'live' && typedTotal !== quote.totalDebit) {
        throw new HandlerFailure('CONFIRMATION_REQUIRED', 'This is a live batch: type its total again to confirm it.', {
          fields: { typedTotal: [typedTotal === undefined ? 'is required for a live batch' : 'does not match the total'] },
        });
      }
      // The batch is bound to the profile it is confirmed under.
      setState(db, batchId, 'draft', now(), { profile: { id: profile.id, name: profile.name, environment: profile.environment } });
      const batchHash = hashOf(batchId, profile.id, profile.environment);
      const { token, expiresAt } = context.confirmations.issue(`batch:${batchId}:${batchHash}`);
      return { ...quote, profileId: profile.id, batchHash, confirmationToken: token, expiresAt: new Date(expiresAt).toISOString() };
    },

    async 'batches:start'({ batchId, confirmationToken, concurrency }) {
      const found = summaryOf(batchId);
      const batchHash = hashOf(batchId, found.profileId, found.environment);
      // Used up before anything else, synchronously: a double submit finds it gone.
      const consumed = context.confirmations.consume(confirmationToken, `batch:${batchId}:${batchHash}`);
      if (!consumed.ok) {
        const why = { unknown: 'the confirmation is missing or was already used', expired: 'the confirmation has expired', mismatch: 'the batch, its rows, profile or environment changed since it was confirmed' }[consumed.reason];
        throw new HandlerFailure('CONFIRMATION_REQUIRED', `Confirm the batch again: ${why}. Nothing was sent.`);
      }
      const batch = requireDraft(batchId);
      const profile = context.resolveProfile(batch.profileId);
      context.requireAllowed(profile);
      context.requireSecret(profile, 'payout');
      setState(db, batchId, 'sending', now(), { started: true, concurrency: concurrency ?? batch.concurrency });
      deps.logger?.info('batch started', { batchId, rows: batch.counts.valid, environment: batch.environment });
      runner.run(batchId);
      return summaryOf(batchId);
    },

    async 'batches:pause'({ batchId }) {
      const batch = summaryOf(batchId);
      if (batch.state !== 'sending') throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a batch being sent can be paused.`);
      // Written before the answer: a crash right after cannot undo it.
      setState(db, batchId, 'paused', now(), { reason: runner.isRunning(batchId) ? 'Pausing: the rows in flight are being answered.' : null });
      runner.stop(batchId, 'pause');
      return summaryOf(batchId);
    },

    async 'batches:resume'({ batchId }) {
      const batch = summaryOf(batchId);
      if (batch.state !== 'paused' && batch.state !== 'interrupted') {
        throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a paused or interrupted batch can be resumed.`);
      }
      if (runner.isRunning(batchId)) throw new HandlerFailure('CONFLICT', `Batch ${batchId} is still finishing the rows in flight; try again in a moment.`);
      runner.run(batchId);
      return summaryOf(batchId);
    },

    async 'batches:cancel'({ batchId }) {
      const batch = summaryOf(batchId);
      if (batch.state === 'cancelled' || batch.state === 'done') {
        throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: there is nothing left to cancel.`);
      }
      // Written before the answer, whether or not rows are in flight: no row not yet sent is ever
      // sent after it, crash or not. The runner notices, and rewrites the reason once it has ended.
      const running = runner.isRunning(batchId);
      setState(db, batchId, 'cancelled', now(), {
        reason: running ? 'Cancelling: the rows in flight are being answered; no other row is sent.' : `Cancelled: ${batch.counts.notSent} row(s) were not sent.`,
        finished: true,
      });
      if (!runner.stop(batchId, 'cancel')) runner.emitProgress(batchId, 'send');
      return summaryOf(batchId);
    },

    async 'batches:get'({ batchId }) {
      return detailOf(batchId);
    },

    async 'batches:list'() {
      return { batches: listSummaries(db) };
    },

    async 'batches:retryFailed'({ batchId }) {
      const batch = summaryOf(batchId);
      if (batch.state === 'draft' || batch.state === 'sending') throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: retry its failed rows once it has stopped.`);
      const rows = loadRows(db, batchId);
      const open = rows.filter((row) => row.state === 'unknown' || row.state === 'pending').length;
      if (open > 0) {
        // A row whose outcome is unknown may have been paid: it is looked up, never retried blindly.
        throw new HandlerFailure('CONFLICT', `${open} row(s) of batch ${batchId} have an unknown outcome: they are being looked up by their external id. Retry the failed rows once that is done.`);
      }
      const failed = rows.filter((row) => row.state === 'rejected' || (row.state === 'accepted' && (row.status === 'failed' || row.status === 'cancelled')));
      if (failed.length === 0) throw new HandlerFailure('CONFLICT', `Batch ${batchId} has no failed row to retry.`);
      const profile = context.activeProfile();
      const id = newBatchId(now());
      // New external ids: the failed ones are spent at the service.
      const inputs = failed.map((row) => ({ rowNumber: row.rowNumber, values: { ...row.values, external_id: '' } }));
      createBatch(db, {
        id,
        fileName: batch.fileName,
        fileHash: sha256(canonicalJson({ retryOf: batchId, rows: inputs.map((row) => row.values) })),
        profile: { id: profile.id, name: profile.name, environment: profile.environment },
        paymentMethod: batch.paymentMethod,
        concurrency: batch.concurrency,
        retryOf: batchId,
        rows: checkRows(inputs, { batchId: id, defaultPaymentMethod: batch.paymentMethod }),
        at: now(),
      });
      return detailOf(id);
    },

    async 'batches:report'({ batchId, language }) {
      summaryOf(batchId);
      return reportCsv(language, batchId, loadRows(db, batchId), DEFAULT_CURRENCY, stamp());
    },
  };
  return { handlers, runner };
}
