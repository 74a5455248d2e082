/**
 * Running a reconciliation: rows in chunks, each matched against the journal and, where the
 * journal does not know it or it is not final, against the service (a few look-ups in flight,
 * waiting out a 429's Retry-After); then the journal's entries the file does not have; then an
 * optional Verify of the rows still processing. Every chunk is saved before the next one starts,
 * so a stop at any point resumes from the rows not yet checked.
 */
import pLimit from 'p-limit';
import type { Statement } from 'better-sqlite3';
import { isFinalStatus, type TransactionStatus } from '../../../shared/contract';
import type { JournalTransaction, ReconcileProgress } from '../../../shared/api';
import { DEFAULT_RECONCILE_CONCURRENCY } from '../../../shared/api/reconcile';
import { getEntry, recordLookedUp, recordObserved, SCOPED_BY_EXTERNAL_ID, type JournalDb } from '../journal/entries';
import { toJournalTransaction, type EntryRow, type ServiceTransaction } from '../journal/rows';
import { HandlerFailure, type Context } from '../handlers/context';
import { isNotFound, transactionOf } from '../handlers/outcomes';
import type { ClientResult } from '../deps';
import { categorize, type Found } from './categorize';
import {
  addUnknownToMerchant,
  countRateLimitWait,
  fileKeys,
  progressCounts,
  runInfo,
  rowsToVerify,
  saveOutcomes,
  setStatus,
  uncheckedRows,
  type RowOutcome,
  type StoredRow,
} from './store';

const CHUNK_ROWS = 250;
/** How many times one row waits out a 429 before it is reported as not checked. */
const MAX_RATE_LIMIT_WAITS = 30;

export interface ReconcileRunner {
  /** Matches the rows not yet checked (a new run or a resume), then finishes the report. */
  match(id: string): void;
  verify(id: string): void;
  /** Stops a run after the look-ups in flight; resolves once its state is saved. */
  cancel(id: string): Promise<void>;
  isRunning(id: string): boolean;
  /** Resolves when no run is going (tests, shutdown). */
  idle(): Promise<void>;
}

type Profile = ReturnType<Context['resolveProfile']>;

function foundOf(tx: { status: TransactionStatus; amount: number; created_at: string }): Found {
  return { status: tx.status, amount: tx.amount, createdAtMs: Date.parse(tx.created_at) };
}

function outcomeFromEntry(row: StoredRow, entry: JournalTransaction, now: number, minutes: number, detail: string | null = null): RowOutcome {
  const created = entry.transaction?.created_at ? Date.parse(entry.transaction.created_at) : Date.parse(entry.createdAt);
  const found: Found = { status: entry.status!, amount: entry.amount, createdAtMs: created };
  return {
    category: categorize({ amount: row.amount!, expected: row.expected }, found, now, minutes),
    journalId: entry.id,
    transactionId: entry.transactionId,
    serviceStatus: entry.status,
    serviceAmount: entry.amount,
    serviceCreatedAt: created,
    currency: entry.currency,
    detail,
  };
}

function notChecked(row: StoredRow, detail: string, entry?: JournalTransaction | null): RowOutcome {
  return {
    category: 'not_checked',
    journalId: entry?.id ?? row.journal_id,
    transactionId: entry?.transactionId ?? row.transaction_id,
    serviceStatus: entry?.status ?? null,
    serviceAmount: null,
    serviceCreatedAt: null,
    currency: entry?.currency ?? null,
    detail,
  };
}

/** The journal's latest entry for a merchant row, a known one first (the statement prepared once per database). */
const entryStatements = new WeakMap<JournalDb, Statement<unknown[]>>();
function journalEntryFor(db: JournalDb, profile: Profile, row: StoredRow): JournalTransaction | null {
  let statement = entryStatements.get(db);
  if (!statement) {
    statement = db.prepare(SCOPED_BY_EXTERNAL_ID);
    entryStatements.set(db, statement);
  }
  const found = statement.get(row.external_id, row.kind, profile.id, profile.environment) as EntryRow | undefined;
  return found ? toJournalTransaction(found) : null;
}

export function createReconcileRunner(context: Context, options: { concurrency?: number } = {}): ReconcileRunner {
  const { deps } = context;
  const concurrency = options.concurrency ?? DEFAULT_RECONCILE_CONCURRENCY;
  const runs = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const now = () => deps.clock.now();
  /** False once the console is closing: nothing more is written (the database closes next). */
  const alive = () => !deps.signal?.aborted;

  /**
   * Pushes where a run is. During a run the caller passes its own counts (a GROUP BY over 100,000
   * rows after every chunk would cost more than the chunk); otherwise they are counted once.
   */
  function progress(id: string, counts?: { checked: number; verify: { done: number; total: number } | null }): void {
    const info = runInfo(deps.journal, id);
    if (!info) return;
    const { checked, verify } = counts ?? progressCounts(deps.journal, id);
    const event: ReconcileProgress = {
      id,
      status: info.status,
      phase: info.phase,
      checkedRows: checked,
      totalRows: info.totalRows,
      verify: info.phase === 'verifying' ? verify : null,
    };
    deps.emit('reconcile:progress', event);
  }

  function profileFor(id: string): Profile {
    const info = runInfo(deps.journal, id)!;
    const profile = context.resolveProfile(info.profileId);
    if (profile.environment !== info.environment) {
      throw new HandlerFailure('CONFLICT', `The profile "${profile.name}" now points at ${profile.environment}, but this reconciliation is of ${info.environment}.`);
    }
    return profile;
  }

  /**
   * One call to the service, waiting out 429s (shared by every worker of the run: when one is
   * told to wait, all wait). Null when the run stopped meanwhile.
   */
  async function ask(id: string, gate: { resumeAt: number }, signal: AbortSignal, call: () => Promise<ClientResult>): Promise<ClientResult | null> {
    for (let waits = 0; ; waits += 1) {
      while (now() < gate.resumeAt) {
        try {
          await deps.clock.sleep(gate.resumeAt - now(), deps.signal);
        } catch {
          return null;
        }
      }
      if (signal.aborted || !alive()) return null;
      const sentAt = now();
      const result = await call();
      if (!alive()) return null;
      if (result.kind === 'api-error' && result.httpStatus === 429 && waits < MAX_RATE_LIMIT_WAITS) {
        // A 429 to a request sent before the current wait was decided is covered by that wait:
        // only a newer one moves the gate (four workers told at once wait once, not four times).
        if (sentAt >= gate.resumeAt) {
          gate.resumeAt = now() + (result.retryAfterSeconds ?? 1) * 1000;
          countRateLimitWait(deps.journal, id);
        }
        continue;
      }
      return result;
    }
  }

  /** Where a payout can be looked up: the local engine has `GET /v1/payouts/{id}`; the spec does not. */
  const canAskAbout = (profile: Profile, kind: 'payment' | 'payout') => kind === 'payment' || profile.builtIn;

  async function checkRow(id: string, profile: Profile, row: StoredRow, gate: { resumeAt: number }, signal: AbortSignal, minutes: number): Promise<RowOutcome | null> {
    const entry = journalEntryFor(deps.journal, profile, row);
    if (entry && entry.state === 'known' && entry.status !== null && isFinalStatus(entry.status)) return outcomeFromEntry(row, entry, now(), minutes);
    if (!canAskAbout(profile, row.kind)) {
      if (entry && entry.state === 'known' && entry.status !== null) return outcomeFromEntry(row, entry, now(), minutes, 'from the journal: this service has no payout look-up');
      return notChecked(row, 'PAYOUT_LOOKUP_UNAVAILABLE: this service has no payout look-up by external id, and the journal does not know this payout', entry);
    }
    const client = context.clientFor(profile);
    const by = { by: 'external_id' as const };
    const externalId = row.external_id!;
    const result = await ask(id, gate, signal, () => (row.kind === 'payment' ? client.retrievePayment(externalId, by) : client.retrievePayout(externalId, by)));
    if (result === null) return null;
    if (isNotFound(result)) {
      return { category: 'missing_at_service', journalId: entry?.id ?? null, transactionId: null, serviceStatus: null, serviceAmount: null, serviceCreatedAt: null, currency: null, detail: null };
    }
    if (result.kind !== 'success') return notChecked(row, describe(result), entry);
    const tx = transactionOf(result.data);
    if (!tx) return notChecked(row, 'BAD_RESPONSE: the service answered, but not with a transaction', entry);
    const recorded = record(profile, row.kind, entry, tx, result.httpStatus);
    const found = foundOf(tx);
    return {
      category: categorize({ amount: row.amount!, expected: row.expected }, found, now(), minutes),
      journalId: recorded.id,
      transactionId: tx.transaction_id,
      serviceStatus: tx.status,
      serviceAmount: tx.amount,
      serviceCreatedAt: found.createdAtMs,
      currency: tx.currency,
      detail: null,
    };
  }

  /** What was learned goes into the journal: the entry the console has for it, or a new one. */
  function record(profile: Profile, kind: 'payment' | 'payout', entry: JournalTransaction | null, tx: ServiceTransaction, httpStatus: number): JournalTransaction {
    if (entry && (entry.transactionId === null || entry.transactionId === tx.transaction_id)) {
      return recordObserved(deps.journal, entry.id, tx, { type: 'status_seen', httpStatus, message: 'found by reconciliation' }, now()).entry;
    }
    return recordLookedUp(deps.journal, { profile: { id: profile.id, name: profile.name, environment: profile.environment }, kind, tx, httpStatus, at: now() });
  }

  function describe(result: Exclude<ClientResult, { kind: 'success' }>): string {
    switch (result.kind) {
      case 'api-error':
        return `${result.code}: ${result.message}`;
      case 'bad-response':
        return `BAD_RESPONSE: ${result.message}`;
      case 'transport':
        return `NOT_SENT: ${result.message}`;
      default: {
        const never: never = result;
        return String(never);
      }
    }
  }

  /** Runs `work` on every item with at most `concurrency` at once (p-limit); stops taking items once aborted. */
  async function pool<T, R>(items: T[], signal: AbortSignal, work: (item: T) => Promise<R | null>): Promise<{ item: T; result: R }[]> {
    const limit = pLimit(concurrency);
    const results: { item: T; result: R }[] = [];
    await Promise.all(
      items.map((item) =>
        limit(async () => {
          if (signal.aborted || !alive()) return;
          const result = await work(item);
          if (result !== null) results.push({ item, result });
        }),
      ),
    );
    return results;
  }

  async function findUnknownToMerchant(id: string, profile: Profile): Promise<void> {
    const info = runInfo(deps.journal, id)!;
    const entries: Parameters<typeof addUnknownToMerchant>[2] = [];
    if (info.period) {
      const keys = await fileKeys(deps.journal, id);
      if (!alive()) return;
      const page = deps.journal.prepare(
        `SELECT seq, id, kind, external_id, transaction_id, status, amount, currency, created_at,
           json_extract(transaction_json, '$.created_at') AS tx_created
         FROM entries WHERE profile_id = ? AND environment = ? AND state = 'known' AND seq > ? ORDER BY seq LIMIT 5000`,
      );
      type Candidate = { seq: number; id: string; kind: 'payment' | 'payout'; external_id: string | null; transaction_id: string | null; status: TransactionStatus | null; amount: number; currency: string; created_at: number; tx_created: string | null };
      for (let after = 0; ; ) {
        const rows = page.all(profile.id, profile.environment, after) as Candidate[];
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!.seq;
        for (const entry of rows) {
          const at = entry.tx_created ? Date.parse(entry.tx_created) : entry.created_at;
          if (at < info.period.from || at > info.period.to) continue;
          if (entry.external_id !== null && keys.has(`${entry.kind}:${entry.external_id}`)) continue;
          entries.push({ journalId: entry.id, kind: entry.kind, externalId: entry.external_id, transactionId: entry.transaction_id, status: entry.status, amount: entry.amount, currency: entry.currency, createdAt: at });
        }
        await new Promise((resolve) => setImmediate(resolve));
        if (!alive()) return;
      }
    }
    addUnknownToMerchant(deps.journal, id, entries, now());
  }

  async function runMatching(id: string, signal: AbortSignal): Promise<void> {
    const profile = profileFor(id);
    const info = runInfo(deps.journal, id)!;
    const gate = { resumeAt: 0 };
    let { checked } = progressCounts(deps.journal, id);
    for (;;) {
      const rows = uncheckedRows(deps.journal, id, CHUNK_ROWS);
      if (rows.length === 0) break;
      const results = await pool(rows, signal, (row) => checkRow(id, profile, row, gate, signal, info.processingMinutes));
      if (!alive()) return;
      saveOutcomes(deps.journal, id, results.map(({ item, result }) => ({ rowNumber: item.row_number, outcome: result })), now());
      checked += results.length;
      // One "changed" push per chunk (not per row): History and an open timeline fetch again.
      const recorded = results.findLast(({ result }) => result.journalId !== null && result.serviceStatus !== null);
      if (recorded) deps.emit('transaction:changed', { journalId: recorded.result.journalId!, status: recorded.result.serviceStatus, state: 'known' });
      progress(id, { checked, verify: null });
      if (signal.aborted) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!runInfo(deps.journal, id)!.unknownDone) await findUnknownToMerchant(id, profile);
  }

  async function runVerify(id: string, signal: AbortSignal): Promise<void> {
    const profile = profileFor(id);
    const info = runInfo(deps.journal, id)!;
    const gate = { resumeAt: 0 };
    const counts = progressCounts(deps.journal, id);
    for (;;) {
      const rows = rowsToVerify(deps.journal, id, CHUNK_ROWS);
      if (rows.length === 0) break;
      const results = await pool(rows, signal, async (row) => {
        const entry = row.journal_id ? getEntry(deps.journal, row.journal_id) : null;
        if (!entry || entry.transactionId === null) return { ...keep(row), detail: 'VERIFY_UNAVAILABLE: no transaction id to verify' };
        if (!canAskAbout(profile, entry.kind)) return { ...keep(row), detail: 'VERIFY_UNAVAILABLE: this service has no payout verify' };
        const client = context.clientFor(profile);
        const transactionId = entry.transactionId;
        const result = await ask(id, gate, signal, () => (entry.kind === 'payment' ? client.verifyPayment(transactionId) : client.verifyPayout(transactionId)));
        if (result === null) return null;
        const tx = result.kind === 'success' ? transactionOf(result.data) : null;
        if (result.kind !== 'success' || !tx) return { ...keep(row), detail: result.kind === 'success' ? 'BAD_RESPONSE: not a transaction' : describe(result) };
        const observed = recordObserved(deps.journal, entry.id, tx, { type: 'verify_result', httpStatus: result.httpStatus, message: result.message ?? 'verified by reconciliation' }, now());
        if (observed.changed) deps.emit('transaction:changed', { journalId: entry.id, status: observed.entry.status, state: observed.entry.state });
        return outcomeFromEntry(row, observed.entry, now(), info.processingMinutes, `verified: ${tx.status}`);
      });
      if (!alive()) return;
      saveOutcomes(deps.journal, id, results.map(({ item, result }) => ({ rowNumber: item.row_number, outcome: result, verified: true })), now());
      counts.verify.done += results.length;
      progress(id, counts);
      if (signal.aborted) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The row as it is, for a verify that could not change it. */
  function keep(row: StoredRow): RowOutcome {
    return {
      category: row.category!,
      journalId: row.journal_id,
      transactionId: row.transaction_id,
      serviceStatus: row.service_status,
      serviceAmount: row.service_amount,
      serviceCreatedAt: row.service_created_at,
      currency: row.currency,
      detail: row.detail,
    };
  }

  function launch(id: string, phase: 'matching' | 'verifying', work: (signal: AbortSignal) => Promise<void>): void {
    if (runs.has(id)) throw new HandlerFailure('CONFLICT', 'This reconciliation is already running.');
    setStatus(deps.journal, id, 'running', now(), phase);
    const controller = new AbortController();
    const done = (async () => {
      try {
        await work(controller.signal);
        if (!alive()) return;
        setStatus(deps.journal, id, controller.signal.aborted ? 'cancelled' : 'done', now());
      } catch (error) {
        if (!alive()) return;
        deps.logger?.error('reconciliation stopped by an error', { error: error instanceof Error ? error.name : 'unknown' });
        setStatus(deps.journal, id, 'interrupted', now());
      } finally {
        runs.delete(id);
      }
      progress(id);
    })();
    runs.set(id, { controller, done });
    progress(id);
  }

  return {
    match(id) {
      profileFor(id);
      launch(id, 'matching', (signal) => runMatching(id, signal));
    },
    verify(id) {
      profileFor(id);
      launch(id, 'verifying', (signal) => runVerify(id, signal));
    },
    async cancel(id) {
      const run = runs.get(id);
      if (!run) return;
      run.controller.abort();
      await run.done;
    },
    isRunning: (id) => runs.has(id),
    async idle() {
      while (runs.size > 0) await Promise.all([...runs.values()].map((run) => run.done));
    },
  };
}
