/**
 * The simulated mobile-money provider, with its own records (`provider_requests`).
 *
 * The service hands each transaction to the provider at initiation. The provider decides the
 * outcome from the phone number (sandbox table in shared/contract/outcomes.ts; in live every
 * transaction completes) at a set time, and then notifies the service, except for the
 * `needs-verify` row, whose notification never arrives: only verify, which asks the provider,
 * learns the outcome.
 */
import type Database from 'better-sqlite3';
import { sandboxOutcomeFor, type Environment, type FailedCode } from '../../../../shared/contract';
import type { TransactionKind } from '../events';
import type { ScenarioDecision } from '../scenarios/store';
import { statementsFor } from '../storage/statements';

export type ProviderView =
  | { state: 'pending' }
  | { state: 'completed' }
  | { state: 'failed'; failedCode: FailedCode }
  | { state: 'cancelled' };

export interface ProviderRequestRow {
  ref: string;
  kind: TransactionKind;
  phone_number: string;
  amount: number;
  final_status: 'completed' | 'failed' | 'cancelled';
  failed_code: FailedCode | null;
  decides_at: number;
  notifies: number;
  notified: number;
  created_at: number;
}

const statements = statementsFor((db) => ({
  insert: db.prepare(`
    INSERT INTO provider_requests (ref, kind, phone_number, amount, final_status, failed_code, decides_at, notifies, created_at, transaction_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  get: db.prepare('SELECT * FROM provider_requests WHERE ref = ?'),
  nextDue: db.prepare('SELECT MIN(decides_at) FROM provider_requests WHERE notifies = 1 AND notified = 0').pluck(),
  markNotified: db.prepare('UPDATE provider_requests SET notified = 1 WHERE ref = ?'),
  // The predicate of the due notifications' SELECT (store.ts `dueFromProvider`) and of the partial index.
  markDueNotified: db.prepare('UPDATE provider_requests SET notified = 1 WHERE notifies = 1 AND notified = 0 AND decides_at <= ?'),
  decideAt: db.prepare('UPDATE provider_requests SET decides_at = ? WHERE ref = ?'),
}));

export interface ProviderTiming {
  settleMs: number;
  expirySeconds: number;
}

/**
 * Hands a new transaction to the provider (inside the initiating write). Returns when the
 * provider will notify the service, or null when it never will (the needs-verify outcome).
 */
export function submitToProvider(
  db: Database.Database,
  request: { ref: string; transactionId: string; kind: TransactionKind; environment: Environment; phoneNumber: string; amount: number; now: number },
  timing: ProviderTiming,
  scenario: ScenarioDecision | null = null,
): number | null {
  if (scenario) return submitScenario(db, request, timing, scenario);
  const outcome = request.environment === 'sandbox' ? sandboxOutcomeFor(request.phoneNumber) : null;
  const settleAt = request.now + Math.round(timing.settleMs * 1000);
  let decidesAt = settleAt;
  let notifies = 1;
  switch (outcome?.behaviour ?? 'settles') {
    case 'settles':
      break;
    case 'expires':
      // The customer never answers: the prompt times out after the expiry window.
      decidesAt = request.now + Math.round(timing.expirySeconds * 1_000_000);
      break;
    case 'needs-verify':
      notifies = 0;
      break;
  }
  // Positional parameters: binding named ones from an object is markedly slower in better-sqlite3.
  statements(db).insert.run(
    request.ref,
    request.kind,
    request.phoneNumber,
    request.amount,
    outcome?.finalStatus ?? 'completed',
    outcome?.failedCode ?? null,
    decidesAt,
    notifies,
    request.now,
    request.transactionId,
  );
  return notifies === 1 ? decidesAt : null;
}

/** A transaction a scenario steers (scenarios/store.ts): its outcome, timing and notification as set there. */
function submitScenario(
  db: Database.Database,
  request: { ref: string; transactionId: string; kind: TransactionKind; phoneNumber: string; amount: number; now: number },
  timing: ProviderTiming,
  scenario: ScenarioDecision,
): number | null {
  const processingMicros = scenario.processingSeconds === null ? Math.round(timing.settleMs * 1000) : Math.round(scenario.processingSeconds * 1_000_000);
  const decidesAt = request.now + processingMicros;
  const notifies = scenario.notify ? 1 : 0;
  statements(db).insert.run(request.ref, request.kind, request.phoneNumber, request.amount, scenario.finalStatus, scenario.failedCode, decidesAt, notifies, request.now, request.transactionId);
  return notifies === 1 ? decidesAt : null;
}

/** What the provider says about a request right now (what verify asks). */
export function askProvider(db: Database.Database, ref: string, now: number): ProviderView {
  const row = statements(db).get.get(ref) as ProviderRequestRow | undefined;
  if (!row || row.decides_at > now) return { state: 'pending' };
  return viewOf(row);
}

export function viewOf(row: Pick<ProviderRequestRow, 'final_status' | 'failed_code'>): ProviderView {
  switch (row.final_status) {
    case 'completed':
      return { state: 'completed' };
    case 'cancelled':
      return { state: 'cancelled' };
    case 'failed':
      return { state: 'failed', failedCode: row.failed_code ?? 'PROVIDER_INTERNAL_PROCESSING_ERROR' };
    default: {
      const unknown: never = row.final_status;
      throw new Error(`unknown provider outcome ${String(unknown)}`);
    }
  }
}

/** Records that the provider has sent its notification (the due ones: `dueNotifications` in store.ts). */
export function markNotified(db: Database.Database, ref: string): void {
  statements(db).markNotified.run(ref);
}

/**
 * Marks every notification due at `now` as sent, in one statement: for a settlement batch that
 * read all of them (fewer than its limit), in the same write, so it marks exactly the rows it read.
 */
export function markDueNotified(db: Database.Database, now: number): number {
  return statements(db).markDueNotified.run(now).changes;
}

export function nextNotificationAt(db: Database.Database): number | null {
  return (statements(db).nextDue.get() as number | null) ?? null;
}

/** Makes the provider decide now (settle-now; an expiring prompt expires now). */
export function decideNow(db: Database.Database, ref: string, now: number): void {
  const row = statements(db).get.get(ref) as ProviderRequestRow | undefined;
  if (row && row.decides_at > now) statements(db).decideAt.run(now, ref);
}
