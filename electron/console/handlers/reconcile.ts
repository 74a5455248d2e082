/**
 * Reconciliation channels: the file arrives in parts, is parsed and checked in main, saved, and
 * matched in the background (progress pushed as `reconcile:progress`); the report is read in pages.
 * Runs and rows live in the store (this desktop's journal or a team workspace: storage/port.ts).
 */
import { randomUUID } from 'node:crypto';
import { duplicateNote, RECONCILE_MAX_CHARS } from '../../../shared/api/reconcile';
import { parseMerchantFile } from '../reconcile/parse';
import { createReconcileRunner, type ReconcileRunner } from '../reconcile/runner';
import { exportReport } from '../reconcile/export';
import { DEFAULT_CURRENCY, HandlerFailure, type Context, type HandlerImpls } from './context';

/** Files being sent: a few at once, dropped after an hour. */
const MAX_UPLOADS = 4;
const UPLOAD_TTL_MS = 60 * 60 * 1000;

type ReconcileChannel =
  | 'reconcile:begin'
  | 'reconcile:append'
  | 'reconcile:import'
  | 'reconcile:list'
  | 'reconcile:get'
  | 'reconcile:rows'
  | 'reconcile:cancel'
  | 'reconcile:resume'
  | 'reconcile:verify'
  | 'reconcile:export';

export function reconcileHandlers(context: Context, runner: ReconcileRunner = createReconcileRunner(context)): HandlerImpls<ReconcileChannel> {
  const { deps } = context;
  const now = () => deps.clock.now();
  const store = deps.storage.reconcile;
  const uploads = new Map<string, { fileName: string; parts: string[]; chars: number; startedAt: number }>();
  // A run that was going when the console last stopped is interrupted; the user resumes it. Every
  // channel waits for this first (the store is asynchronous); if the store could not be reached,
  // the next channel tries again instead of failing for good.
  let started: Promise<void> | null = null;
  function cleanedUp(): Promise<void> {
    started ??= (async () => {
      // A login that may not write reconciliations (admin only) has none to clean: the runs are
      // their makers' (docs/decisions/start-up-by-role.md), and the list is still read.
      if (!(await deps.storage.loginRights()).followsUp) return;
      await store.removeUnfinishedImports();
      const interrupted = await store.markInterrupted(now());
      if (interrupted > 0) deps.logger?.warn('reconciliations interrupted by the last stop', { count: interrupted });
    })().catch((error: unknown) => {
      started = null;
      throw error;
    });
    return started;
  }
  // Its failure is the next channel's, not an unhandled rejection at start.
  cleanedUp().catch(() => undefined);

  async function summary(id: string) {
    await cleanedUp();
    const found = await store.summary(id);
    if (!found) throw new HandlerFailure('NOT_FOUND', `No reconciliation ${id}.`);
    return found;
  }

  function upload(uploadId: string) {
    const found = uploads.get(uploadId);
    if (!found) throw new HandlerFailure('NOT_FOUND', 'This file upload is unknown or expired: choose the file again.');
    return found;
  }

  return {
    async 'reconcile:begin'({ fileName }) {
      for (const [key, value] of uploads) if (now() - value.startedAt > UPLOAD_TTL_MS) uploads.delete(key);
      while (uploads.size >= MAX_UPLOADS) uploads.delete(uploads.keys().next().value!);
      const uploadId = randomUUID();
      uploads.set(uploadId, { fileName, parts: [], chars: 0, startedAt: now() });
      return { uploadId };
    },

    async 'reconcile:append'({ uploadId, text }) {
      const found = upload(uploadId);
      if (found.chars + text.length > RECONCILE_MAX_CHARS) {
        uploads.delete(uploadId);
        throw new HandlerFailure('INVALID_INPUT', `The file is over ${RECONCILE_MAX_CHARS.toLocaleString('en')} characters: split it.`, {
          fields: { text: [`the file is over ${RECONCILE_MAX_CHARS} characters`] },
        });
      }
      found.parts.push(text);
      found.chars += text.length;
      return { chars: found.chars };
    },

    async 'reconcile:import'({ uploadId, processingMinutes, period, utcOffsetMinutes }) {
      const found = upload(uploadId);
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      uploads.delete(uploadId);
      const parsed = await parseMerchantFile(found.parts.join(''), utcOffsetMinutes, deps.signal);
      if (!parsed.ok) return { accepted: false, rows: parsed.rows, errorCount: parsed.errorCount, errors: parsed.errors, ignoredColumns: parsed.ignoredColumns };
      // Every key the rows need is checked before anything is saved or sent.
      for (const kind of new Set(parsed.rows.map((row) => row.kind))) await context.requireSecret(profile, kind);
      let chosen: { from: number; to: number; source: 'file' | 'picked' } | null = null;
      if (period) {
        chosen = { from: Date.parse(period.from), to: Date.parse(period.to), source: 'picked' };
      } else {
        let from = Infinity;
        let to = -Infinity;
        for (const row of parsed.rows) {
          if (row.dateMs !== null) from = Math.min(from, row.dateMs);
          if (row.dateEndMs !== null) to = Math.max(to, row.dateEndMs);
        }
        if (Number.isFinite(from)) chosen = { from, to, source: 'file' };
      }
      await cleanedUp();
      let id: string;
      try {
        id = await store.create(
          {
        fileName: found.fileName,
        profile: { id: profile.id, name: profile.name, environment: profile.environment },
        rows: parsed.rows,
        ignoredColumns: parsed.ignoredColumns,
        processingMinutes,
        period: chosen,
        currency: DEFAULT_CURRENCY,
        at: now(),
          },
          () => !deps.signal?.aborted,
        );
      } catch (error) {
        if (deps.signal?.aborted) throw new HandlerFailure('INTERNAL', 'The console is closing: the file was not saved. Import it again.');
        throw error;
      }
      // A duplicate in the merchant's own records is a finding of its own, filed before matching starts (never looked up).
      const duplicates = parsed.rows.filter((row) => typeof row.duplicateOf === 'number');
      if (duplicates.length > 0) {
        const outcome = (row: (typeof duplicates)[number]) => ({ category: 'duplicate_in_records' as const, journalId: null, transactionId: null, serviceStatus: null, serviceAmount: null, serviceCreatedAt: null, currency: null, detail: duplicateNote(row.duplicateOf!) });
        await store.saveOutcomes(id, duplicates.map((row) => ({ rowNumber: row.row, outcome: outcome(row) })), now());
      }
      await runner.match(id);
      return { accepted: true, reconciliation: await summary(id) };
    },

    async 'reconcile:list'() {
      await cleanedUp();
      return { reconciliations: await store.list() };
    },

    async 'reconcile:get'({ id }) {
      return summary(id);
    },

    async 'reconcile:rows'({ id, category, offset, limit }) {
      await cleanedUp();
      if ((await store.detail(id)) === null) throw new HandlerFailure('NOT_FOUND', `No reconciliation ${id}.`);
      return store.pageRows(id, category, offset, limit);
    },

    async 'reconcile:cancel'({ id }) {
      const current = await summary(id);
      if (!runner.isRunning(id)) throw new HandlerFailure('CONFLICT', `This reconciliation is ${current.status}, not running: there is nothing to cancel.`);
      await runner.cancel(id);
      return summary(id);
    },

    async 'reconcile:resume'({ id }) {
      const current = await summary(id);
      if (runner.isRunning(id) || (current.status !== 'interrupted' && current.status !== 'cancelled')) {
        throw new HandlerFailure('CONFLICT', `This reconciliation is ${current.status}: only an interrupted or cancelled one can be resumed.`);
      }
      const profile = context.resolveProfile(current.profileId);
      context.requireAllowed(profile);
      if (current.phase === 'verifying') {
        await runner.verify(id);
      } else {
        await store.reopenNotChecked(id);
        await runner.match(id);
      }
      return summary(id);
    },

    async 'reconcile:verify'({ id }) {
      const current = await summary(id);
      if (runner.isRunning(id) || current.status !== 'done') {
        throw new HandlerFailure('CONFLICT', `This reconciliation is ${current.status}: Verify runs on a finished one.`);
      }
      if (current.categories.still_processing.count + current.categories.processing_recent.count === 0) {
        throw new HandlerFailure('CONFLICT', 'No row is still processing: there is nothing to verify.');
      }
      const profile = context.resolveProfile(current.profileId);
      context.requireAllowed(profile);
      await runner.verify(id);
      return summary(id);
    },

    async 'reconcile:export'({ id, category, language }) {
      const current = await summary(id);
      const { csv, rows } = await exportReport(store, id, category, language, current.currency);
      const stamp = new Date(now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return { filename: `paydesk-reconciliation-${stamp}.csv`, csv, rows };
    },
  };
}
