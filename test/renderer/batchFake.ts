/**
 * An in-memory stand-in for main's batch handlers, for the screen's component tests: files are read
 * and rows checked with the real shared code (parseBatchCsv, checkRows), so the table shows the
 * same errors and duplicates main would. Sending is driven by the test (setRows, emit progress).
 */
import type { BatchCounts, BatchDetail, BatchRow, BatchRowFilter, BatchState, BatchSummary, EarlierImport } from '../../shared/api';
import { checkRows, parseBatchCsv, reportCsv, invalidRowsCsv, templateCsv } from '../../shared/batch';
import { sandboxOutcomeFor } from '../../shared/contract';
import { fail, ok, type Handlers } from './fakeApi';

/**
 * jsdom lays nothing out, so a virtual list would see a 0-pixel viewport and render no rows: while
 * installed, every element reports the client box of a 1200×600 window.
 */
export function withLayout() {
  return {
    install() {
      Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1200 });
      Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
    },
    remove() {
      delete (HTMLElement.prototype as { clientWidth?: number }).clientWidth;
      delete (HTMLElement.prototype as { clientHeight?: number }).clientHeight;
    },
  };
}

const FEE = (amount: number) => Math.round(amount * 0.01) + 50;

export function countsOf(rows: readonly BatchRow[]): BatchCounts {
  const c: BatchCounts = { rows: rows.length, valid: 0, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 0, rejected: 0, unknown: 0, completed: 0, failed: 0, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 };
  for (const row of rows) {
    if (Object.keys(row.errors).length) c.invalid += 1;
    else c.valid += 1;
    if (row.duplicates.length) c.duplicates += 1;
    const state = row.state === 'not_sent' ? 'notSent' : row.state;
    c[state] += 1;
    if (row.state === 'accepted') {
      if (row.status === 'completed') c.completed += 1;
      else if (row.status === 'failed') c.failed += 1;
      else if (row.status === 'cancelled') c.cancelled += 1;
      else c.processing += 1;
    }
  }
  return c;
}

/** A batch as the fake keeps it: the detail main answers, and its rows (answered page by page). */
type Stored = BatchDetail & { rows: BatchRow[] };

const FILTERS: Record<BatchRowFilter, (row: BatchRow) => boolean> = {
  all: () => true,
  invalid: (row) => row.request === null,
  duplicates: (row) => row.duplicates.length > 0,
  wouldFail: (row) => row.rehearsal?.wouldFail === true,
  failed: (row) => row.state === 'rejected' || (row.state === 'accepted' && (row.status === 'failed' || row.status === 'cancelled')),
  unknown: (row) => row.state === 'unknown',
};

const withoutRows = ({ rows: _rows, ...detail }: Stored): BatchDetail => detail;

export function createBatchBackend(options: { balance?: number | null; environment?: 'sandbox' | 'live'; profileName?: string } = {}) {
  const batches = new Map<string, Stored>();
  let serial = 0;
  const hashes = new Map<string, string>();
  const tokens = new Set<string>();

  function touch(id: string, patch: Partial<BatchSummary> = {}, rows?: BatchRow[]): Stored {
    const detail = batches.get(id)!;
    const nextRows = rows ?? detail.rows;
    const next: Stored = {
      ...detail,
      rows: nextRows,
      batch: { ...detail.batch, ...patch, counts: countsOf(nextRows), totalAmount: nextRows.reduce((n, r) => n + (r.request?.amount ?? 0), 0) },
    };
    batches.set(id, next);
    return next;
  }
  function recheck(id: string, rows: BatchRow[]): BatchRow[] {
    const checked = checkRows(rows, { batchId: id, defaultPaymentMethod: batches.get(id)?.batch.paymentMethod ?? null });
    return checked.map((row, i) => ({ ...rows[i]!, ...row }));
  }
  function create(fileName: string, rows: BatchRow[], importedBefore: EarlierImport[], paymentMethod: string | null): Stored {
    serial += 1;
    const id = `b${serial}`;
    const now = new Date(Date.UTC(2026, 10, 23, 9, serial)).toISOString();
    const batch: BatchSummary = {
      id, fileName, state: 'draft', stateReason: null, profileId: 'local', profileName: options.profileName ?? 'Local sandbox',
      environment: options.environment ?? 'sandbox', paymentMethod, concurrency: 4, totalAmount: 0, counts: countsOf([]),
      fileHash: fileName, retryOf: null, createdAt: now, updatedAt: now, startedAt: null, finishedAt: null,
    };
    batches.set(id, { batch, rows: [], importedBefore, rehearsal: null });
    return touch(id, {}, recheck(id, rows));
  }
  /** A draft's rows whose id an earlier sent batch holds (row numbers), while they keep it. */
  const sentIds = new Map<string, Set<number>>();
  function sentEarlierOf(id: string) {
    const numbers = sentIds.get(id);
    const { rows } = batches.get(id)!;
    const sent = rows.filter((r) => numbers?.has(r.rowNumber));
    if (sent.length === 0) return undefined;
    return {
      count: sent.length, completed: sent.length, processing: 0, failed: 0, unknown: 0, neverLeft: rows.length - sent.length,
      rows: sent.map((r) => ({ rowNumber: r.rowNumber, externalId: r.externalId, batchId: 'b1', outcome: 'completed' as const })),
    };
  }
  function preview(id: string) {
    const { batch, rows } = batches.get(id)!;
    const valid = rows.filter((r) => r.request);
    const totalAmount = valid.reduce((n, r) => n + r.request!.amount, 0);
    const totalFees = valid.reduce((n, r) => n + FEE(r.request!.amount), 0);
    const balance = options.balance === undefined ? 10_000_000 : options.balance;
    return {
      batchId: id, profileId: batch.profileId, profileName: batch.profileName, environment: batch.environment, count: valid.length, totalAmount, totalFees,
      feesKnown: true, totalDebit: totalAmount + totalFees, currency: 'XAF', balance, overBalance: balance !== null && totalAmount + totalFees > balance,
      invalid: batch.counts.invalid, duplicates: batch.counts.duplicates,
    };
  }

  const handlers: Handlers = {
    'batches:list': () => ok({ batches: [...batches.values()].map((d) => d.batch).reverse() }),
    'batches:template': (input) => ok(templateCsv(input.language)),
    'batches:import': (input) => {
      const parsed = parseBatchCsv(input.text);
      if (!parsed.ok) return fail('INVALID_INPUT', `${input.fileName} cannot be read as a batch file.`, { text: parsed.errors });
      const rows = parsed.file.rows.map((r) => ({
        rowNumber: r.rowNumber, values: r.values, request: null, errors: {}, duplicates: [], externalId: '', state: 'not_sent' as const,
        journalId: null, transactionId: null, status: null, failedCode: null, fee: null, error: null, rehearsal: null,
      }));
      const same = [...batches.values()].filter((d) => hashes.get(d.batch.id) === input.text);
      const earlier = same.map((d) => ({ batchId: d.batch.id, fileName: d.batch.fileName, state: d.batch.state, createdAt: d.batch.createdAt }));
      // As main: the same file sent before takes the ids its rows were sent under; those accepted are named as sent earlier.
      const sentRows = same.find((d) => d.batch.state !== 'draft')?.rows ?? [];
      const idOf = new Map(sentRows.map((r) => [r.rowNumber, r.externalId]));
      const detail = create(input.fileName, rows.map((r) => (idOf.has(r.rowNumber) ? { ...r, values: { ...r.values, external_id: idOf.get(r.rowNumber)! } } : r)), earlier, input.paymentMethod ?? null);
      hashes.set(detail.batch.id, input.text);
      const accepted = sentRows.filter((r) => r.state === 'accepted');
      if (accepted.length > 0) {
        sentIds.set(detail.batch.id, new Set(accepted.map((r) => r.rowNumber)));
        batches.set(detail.batch.id, { ...detail, sentEarlier: sentEarlierOf(detail.batch.id) });
        return ok(withoutRows(batches.get(detail.batch.id)!));
      }
      return ok(withoutRows(detail));
    },
    'batches:get': (input) => (batches.has(input.batchId) ? ok(withoutRows(batches.get(input.batchId)!)) : fail('NOT_FOUND', 'no such batch')),
    'batches:rows': (input) => {
      const stored = batches.get(input.batchId);
      if (!stored) return fail('NOT_FOUND', 'no such batch');
      const filter = input.filter ?? 'all';
      const offset = input.offset ?? 0;
      const kept = stored.rows.filter(FILTERS[filter]);
      return ok({ batchId: input.batchId, filter, total: kept.length, offset, rows: kept.slice(offset, offset + (input.limit ?? 100)) });
    },
    'batches:updateRow': (input) => {
      const detail = batches.get(input.batchId)!;
      if (detail.batch.state !== 'draft') return fail('CONFLICT', 'only a draft can be edited');
      const rows = detail.rows.map((r) => (r.rowNumber === input.rowNumber ? { ...r, values: { ...r.values, ...input.values } } : r));
      return ok(withoutRows(touch(input.batchId, {}, recheck(input.batchId, rows))));
    },
    'batches:dropRows': (input) => {
      const dropping = (r: BatchRow) => (input.invalid ? r.request === null : (input.rowNumbers ?? []).includes(r.rowNumber));
      const rows = batches.get(input.batchId)!.rows.filter((r) => !dropping(r));
      return ok(withoutRows(touch(input.batchId, {}, recheck(input.batchId, rows))));
    },
    'batches:renewSentIds': (input) => {
      const stored = batches.get(input.batchId)!;
      if (stored.batch.state !== 'draft') return fail('CONFLICT', 'only a draft can be changed');
      const numbers = sentIds.get(input.batchId) ?? new Set<number>();
      const renewed = stored.rows.filter((r) => numbers.has(r.rowNumber)).map((r) => ({ rowNumber: r.rowNumber, from: r.externalId, to: `${r.externalId}-n1` }));
      if (input.dryRun || renewed.length === 0) return ok({ count: renewed.length, rows: renewed, applied: false, detail: withoutRows(stored) });
      const to = new Map(renewed.map((r) => [r.rowNumber, r.to]));
      const rows = stored.rows.map((r) => (to.has(r.rowNumber) ? { ...r, values: { ...r.values, external_id: to.get(r.rowNumber)! } } : r));
      sentIds.delete(input.batchId);
      const { sentEarlier: _gone, ...next } = touch(input.batchId, {}, recheck(input.batchId, rows));
      batches.set(input.batchId, next);
      return ok({ count: renewed.length, rows: renewed, applied: true, detail: withoutRows(next) });
    },
    'batches:invalidRows': (input) => ok(invalidRowsCsv(input.language, batches.get(input.batchId)!.rows, '20261123')),
    'batches:preview': (input) => ok(preview(input.batchId)),
    'batches:rehearse': (input) => {
      const rows = batches.get(input.batchId)!.rows.map((r) => {
        const outcome = sandboxOutcomeFor(r.values.phone_number);
        const wouldFail = outcome.finalStatus !== 'completed';
        return { ...r, rehearsal: { state: 'accepted' as const, status: outcome.finalStatus, failedCode: outcome.failedCode, code: null, message: null, wouldFail } };
      });
      const detail = touch(input.batchId, {}, rows);
      const summary = { at: '2026-11-23T09:30:00.000Z', rows: rows.length, accepted: rows.length, rejected: 0, wouldFail: rows.filter((r) => r.rehearsal.wouldFail).length };
      batches.set(input.batchId, { ...detail, rehearsal: summary });
      return ok(summary);
    },
    'batches:prepare': (input) => {
      const detail = batches.get(input.batchId)!;
      const p = preview(input.batchId);
      if (detail.batch.environment === 'live' && input.typedTotal !== p.totalDebit) return fail('CONFIRMATION_REQUIRED', 'type the total');
      if (detail.importedBefore.some((e) => e.state !== 'draft') && !input.acceptDuplicateFile) return fail('CONFLICT', 'imported before');
      const token = `token-${input.batchId}-${tokens.size}`;
      tokens.add(token);
      return ok({ ...p, profileId: 'local', batchHash: 'hash', confirmationToken: token, expiresAt: '2026-11-23T10:00:00.000Z' });
    },
    'batches:start': (input) => {
      if (!tokens.delete(input.confirmationToken)) return fail('CONFIRMATION_REQUIRED', 'token used');
      return ok(touch(input.batchId, { state: 'sending', concurrency: input.concurrency ?? 4 }).batch);
    },
    'batches:pause': (input) => ok(touch(input.batchId, { state: 'paused' }).batch),
    'batches:resume': (input) => ok(touch(input.batchId, { state: 'sending' }).batch),
    'batches:cancel': (input) => ok(touch(input.batchId, { state: 'cancelled' }).batch),
    // Another desktop sends it; this one's runner starts too (main's checks: state, not already here).
    'batches:join': (input) => {
      const stored = batches.get(input.batchId);
      if (!stored) return fail('NOT_FOUND', 'no such batch');
      if (stored.batch.state !== 'sending') return fail('CONFLICT', 'not sending');
      if (stored.sendingHere) return fail('CONFLICT', 'already sending here');
      batches.set(input.batchId, { ...stored, sendingHere: true });
      return ok(withoutRows(batches.get(input.batchId)!));
    },
    'batches:report': (input) => ok(reportCsv(input.language, input.batchId, batches.get(input.batchId)!.rows, 'XAF', '20261123')),
    'batches:retryFailed': (input) => {
      const failed = batches.get(input.batchId)!.rows.filter((r) => r.state === 'rejected' || r.status === 'failed' || r.status === 'cancelled');
      const rows = failed.map((r) => ({ ...r, values: { ...r.values, external_id: '' }, state: 'not_sent' as const, status: null, failedCode: null, journalId: null, transactionId: null, error: null, rehearsal: null }));
      const detail = create(`${batches.get(input.batchId)!.batch.fileName} (retry)`, rows, [], batches.get(input.batchId)!.batch.paymentMethod);
      return ok(withoutRows(touch(detail.batch.id, { retryOf: input.batchId })));
    },
  };

  return {
    handlers,
    batches,
    /** Sets the batch's state and lets the test change its rows (as the runner would). */
    update(id: string, state: BatchState, change: (row: BatchRow) => BatchRow = (r) => r) {
      return touch(id, { state }, batches.get(id)!.rows.map(change));
    },
    /** The rows of a batch as main holds them (a test builds a push's changed rows from them). */
    rowsOf(id: string): BatchRow[] {
      return batches.get(id)!.rows;
    },
  };
}
