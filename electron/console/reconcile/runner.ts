/**
 * Running a reconciliation: rows in chunks, each matched against the journal and, where the
 * journal does not know it or it is not final, against the service (a few look-ups in flight,
 * waiting out a 429's Retry-After); then the journal's entries the file does not have; then an
 * optional Verify of the rows still processing. Every chunk is saved before the next one starts,
 * so a stop at any point resumes from the rows not yet checked.
 */
import pLimit from 'p-limit';
import { isFinalStatus, matchesExternalId, type ServiceStatus } from '../../../shared/contract';
import type { JournalTransaction, ReconcileProgress } from '../../../shared/api';
import { DEFAULT_RECONCILE_CONCURRENCY } from '../../../shared/api/reconcile';
import type { ServiceTransaction } from '../journal/rows';
import { HandlerFailure, type Context } from '../handlers/context';
import { isNotFound, transactionOf } from '../handlers/outcomes';
import type { ClientResult } from '../deps';
import { categorize, type Found } from './categorize';
import type { UnknownToMerchant } from '../storage/reconcile-rows-port';
import type { RowOutcome, StoredRow } from './store';

const CHUNK_ROWS = 250;
/** A row's detail when the team's journal answered it (the report names it in both languages). */
export const TEAM_JOURNAL = 'TEAM_JOURNAL:';
/** Journal entries read per page while looking for the ones the file does not have. */
const CANDIDATES_PAGE = 5000;
/** How many times one row waits out a 429 before it is reported as not checked. */
const MAX_RATE_LIMIT_WAITS = 30;

export interface ReconcileRunner {
  /** Matches the rows not yet checked (a new run or a resume), then finishes the report; resolves once the run is `running`. */
  match(id: string): Promise<void>;
  /** Resolves once the run is `running` again, verifying. */
  verify(id: string): Promise<void>;
  /** Stops a run after the look-ups in flight; resolves once its state is saved. */
  cancel(id: string): Promise<void>;
  isRunning(id: string): boolean;
  /** Resolves when no run is going (tests, shutdown). */
  idle(): Promise<void>;
}

type Profile = ReturnType<Context['resolveProfile']>;

function foundOf(tx: { status: ServiceStatus; amount: number; created_at: string | null }, fallbackMs: number): Found {
  // A service that leaves created_at out (or says it unreadably) is aged from when the console first saw it.
  const created = tx.created_at === null ? Number.NaN : Date.parse(tx.created_at);
  return { status: tx.status, amount: tx.amount, createdAtMs: Number.isNaN(created) ? fallbackMs : created };
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

export function createReconcileRunner(context: Context, options: { concurrency?: number } = {}): ReconcileRunner {
  const { deps } = context;
  // The store: this desktop's journal or a team workspace (storage/port.ts).
  const store = deps.storage.reconcile;
  const journal = deps.storage.journal;
  const concurrency = options.concurrency ?? DEFAULT_RECONCILE_CONCURRENCY;
  const runs = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const now = () => deps.clock.now();
  /** False once the console is closing: nothing more is written (the database closes next). */
  const alive = () => !deps.signal?.aborted;

  /**
   * Pushes where a run is. During a run the caller passes its own counts (a GROUP BY over 100,000
   * rows after every chunk would cost more than the chunk); otherwise they are counted once.
   */
  async function progress(id: string, counts?: { checked: number; verify: { done: number; total: number } | null }): Promise<void> {
    const info = await store.detail(id);
    if (!info) return;
    const { checked, verify } = counts ?? (await store.progressCounts(id));
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

  async function profileFor(id: string): Promise<Profile> {
    const info = (await store.detail(id))!;
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
          await store.countRateLimitWait(id);
        }
        continue;
      }
      return result;
    }
  }

  /** Where a payout can be looked up: the local engine has `GET /v1/payouts/{id}`; the spec does not. */
  const canAskAbout = (profile: Profile, kind: 'payment' | 'payout') => kind === 'payment' || profile.builtIn;

  /**
   * A workspace's entry for a merchant row the profile's own entries miss: any entry of the team
   * holding the external id as money in this kind and environment (another profile, a colleague's
   * desktop), so a payout the team sent is matched, never "missing" (team-screens-read-the-journal-first.md).
   */
  async function teamEntryFor(profile: Profile, kind: 'payment' | 'payout', externalId: string): Promise<JournalTransaction | null> {
    if (!context.teamProfiles.onWorkspace()) return null;
    const known = await journal.knownPayout(kind, profile.environment, externalId);
    return known ? journal.getEntry(known.journalId) : null;
  }

  /** Whether the team's entry may name money: a payout the team sent is never "missing at the service". */
  const mayBeMoney = (entry: JournalTransaction | null): entry is JournalTransaction =>
    entry !== null && (entry.state === 'pending' || entry.state === 'outcome_unknown' || entry.state === 'known');

  /** The row answered from the team's journal (the service here does not know it, or cannot be asked). */
  function fromTeamJournal(row: StoredRow, entry: JournalTransaction, minutes: number, why: string): RowOutcome {
    if (entry.state === 'known' && entry.status !== null) return outcomeFromEntry(row, entry, now(), minutes, `${TEAM_JOURNAL} from the team's journal,${why}`);
    return notChecked(row, `${TEAM_JOURNAL} from the team's journal,${why}; it is ${entry.state === 'pending' ? 'being sent' : 'sent with an unknown outcome'}`, entry);
  }

  async function checkRow(id: string, profile: Profile, row: StoredRow, gate: { resumeAt: number }, signal: AbortSignal, minutes: number): Promise<RowOutcome | null> {
    const entry = row.external_id === null ? null : ((await store.entryFor(profile, row.kind, row.external_id)) ?? (await teamEntryFor(profile, row.kind, row.external_id)));
    if (entry && entry.state === 'known' && entry.status !== null && isFinalStatus(entry.status)) return outcomeFromEntry(row, entry, now(), minutes);
    const onWorkspace = context.teamProfiles.onWorkspace();
    if (onWorkspace && mayBeMoney(entry)) {
      // A colleague's local-sandbox payout lives in their desktop's engine: this one's would say "not found".
      const heldElsewhereBy = (await journal.getForFollowUp(entry.id))?.heldElsewhereBy;
      if (heldElsewhereBy) return fromTeamJournal(row, entry, minutes, ` it lives in the local sandbox of ${heldElsewhereBy}'s desktop`);
    }
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
      if (onWorkspace && mayBeMoney(entry)) return fromTeamJournal(row, entry, minutes, ' the service here does not know it');
      return { category: 'missing_at_service', journalId: entry?.id ?? null, transactionId: null, serviceStatus: null, serviceAmount: null, serviceCreatedAt: null, currency: null, detail: null };
    }
    if (result.kind !== 'success') return notChecked(row, describe(result), entry);
    const tx = transactionOf(result.data);
    if (!tx) return notChecked(row, 'BAD_RESPONSE: the service answered, but not with a transaction', entry);
    // Asked by external id, answered with another: not this row's transaction (never recorded as it).
    if (!matchesExternalId(tx, externalId)) return notChecked(row, `BAD_RESPONSE: asked for external id ${externalId}, the service answered with ${tx.external_id}`, entry);
    const recorded = await record(profile, row.kind, entry, tx, result.httpStatus);
    const found = foundOf(tx, Date.parse(recorded.createdAt));
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
  async function record(profile: Profile, kind: 'payment' | 'payout', entry: JournalTransaction | null, tx: ServiceTransaction, httpStatus: number): Promise<JournalTransaction> {
    if (entry && (entry.transactionId === null || entry.transactionId === tx.transaction_id)) {
      return (await journal.recordObserved(entry.id, tx, { type: 'status_seen', httpStatus, message: 'found by reconciliation' }, now())).entry;
    }
    return journal.recordLookedUp({ profile: { id: profile.id, name: profile.name, environment: profile.environment }, kind, tx, httpStatus, at: now() });
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
    const info = (await store.detail(id))!;
    const entries: UnknownToMerchant[] = [];
    if (info.period) {
      const keys = await store.fileKeys(id);
      if (!alive()) return;
      for (let after = 0; ; ) {
        const rows = await store.journalCandidates(profile, after, CANDIDATES_PAGE);
        if (rows.length === 0) break;
        after = rows[rows.length - 1]!.seq;
        for (const { seq: _seq, ...entry } of rows) {
          if (entry.createdAt < info.period.from || entry.createdAt > info.period.to) continue;
          if (entry.externalId !== null && keys.has(`${entry.kind}:${entry.externalId}`)) continue;
          entries.push(entry);
        }
        await new Promise((resolve) => setImmediate(resolve));
        if (!alive()) return;
      }
    }
    await store.addUnknownToMerchant(id, entries, now());
  }

  async function runMatching(id: string, signal: AbortSignal): Promise<void> {
    const profile = await profileFor(id);
    const info = (await store.detail(id))!;
    const gate = { resumeAt: 0 };
    let { checked } = await store.progressCounts(id);
    for (;;) {
      const rows = await store.uncheckedRows(id, CHUNK_ROWS);
      if (rows.length === 0) break;
      const results = await pool(rows, signal, (row) => checkRow(id, profile, row, gate, signal, info.processingMinutes));
      if (!alive()) return;
      await store.saveOutcomes(id, results.map(({ item, result }) => ({ rowNumber: item.row_number, outcome: result })), now());
      checked += results.length;
      // One "changed" push per chunk (not per row): History and an open timeline fetch again.
      const recorded = results.findLast(({ result }) => result.journalId !== null && result.serviceStatus !== null);
      if (recorded) deps.emit('transaction:changed', { journalId: recorded.result.journalId!, status: recorded.result.serviceStatus, state: 'known' });
      await progress(id, { checked, verify: null });
      if (signal.aborted) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!(await store.detail(id))!.unknownDone) await findUnknownToMerchant(id, profile);
  }

  async function runVerify(id: string, signal: AbortSignal): Promise<void> {
    const profile = await profileFor(id);
    const info = (await store.detail(id))!;
    const gate = { resumeAt: 0 };
    const counts = await store.progressCounts(id);
    for (;;) {
      const rows = await store.rowsToVerify(id, CHUNK_ROWS);
      if (rows.length === 0) break;
      const results = await pool(rows, signal, async (row) => {
        const entry = row.journal_id ? await journal.getEntry(row.journal_id) : null;
        if (!entry || entry.transactionId === null) return { ...keep(row), detail: 'VERIFY_UNAVAILABLE: no transaction id to verify' };
        if (!canAskAbout(profile, entry.kind)) return { ...keep(row), detail: 'VERIFY_UNAVAILABLE: this service has no payout verify' };
        const client = context.clientFor(profile);
        const transactionId = entry.transactionId;
        const result = await ask(id, gate, signal, () => (entry.kind === 'payment' ? client.verifyPayment(transactionId) : client.verifyPayout(transactionId)));
        if (result === null) return null;
        const tx = result.kind === 'success' ? transactionOf(result.data) : null;
        if (result.kind !== 'success' || !tx) return { ...keep(row), detail: result.kind === 'success' ? 'BAD_RESPONSE: not a transaction' : describe(result) };
        const observed = await journal.recordObserved(entry.id, tx, { type: 'verify_result', httpStatus: result.httpStatus, message: result.message ?? 'verified by reconciliation' }, now());
        if (observed.changed) deps.emit('transaction:changed', { journalId: entry.id, status: observed.entry.status, state: observed.entry.state });
        return outcomeFromEntry(row, observed.entry, now(), info.processingMinutes, `verified: ${tx.status}`);
      });
      if (!alive()) return;
      await store.saveOutcomes(id, results.map(({ item, result }) => ({ rowNumber: item.row_number, outcome: result, verified: true })), now());
      counts.verify.done += results.length;
      await progress(id, counts);
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

  /**
   * Starts a run: resolves once it is `running` in the store (the caller shows its summary next).
   * The run is in `runs` from the first moment, so a second start is refused, not raced.
   */
  function launch(id: string, phase: 'matching' | 'verifying', work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (runs.has(id)) throw new HandlerFailure('CONFLICT', 'This reconciliation is already running.');
    const controller = new AbortController();
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const started = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const done = (async () => {
      try {
        await store.setStatus(id, 'running', now(), phase);
      } catch (error) {
        runs.delete(id);
        settle.reject(error);
        return;
      }
      settle.resolve();
      try {
        await progress(id);
        await work(controller.signal);
        if (!alive()) return;
        await store.setStatus(id, controller.signal.aborted ? 'cancelled' : 'done', now());
      } catch (error) {
        if (!alive()) return;
        deps.logger?.error('reconciliation stopped by an error', { error: error instanceof Error ? error.name : 'unknown' });
        await store.setStatus(id, 'interrupted', now()).catch(() => undefined);
      } finally {
        runs.delete(id);
      }
      if (alive()) await progress(id).catch(() => undefined);
    })();
    runs.set(id, { controller, done });
    return started;
  }

  return {
    async match(id) {
      await profileFor(id);
      await launch(id, 'matching', (signal) => runMatching(id, signal));
    },
    async verify(id) {
      await profileFor(id);
      await launch(id, 'verifying', (signal) => runVerify(id, signal));
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
