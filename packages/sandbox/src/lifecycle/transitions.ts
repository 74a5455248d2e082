/**
 * The one place a transaction's status changes.
 *
 * `changeStatus` must run inside the caller's write transaction (`ctx.write`). In that same
 * transaction it updates the row, appends the timeline row (`transaction_events`) and runs every
 * registered status hook, so an extension's rows (issue 4: webhook deliveries) commit or roll back
 * together with the change. The in-process `status` event is emitted only after commit.
 */
import { FAILED_CODES, formatTimestamp, type FailedCode, type TransactionStatus } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import type { StatusChange } from './status-change';
import { statementsFor } from '../storage/statements';
import type { TransactionRow } from '../storage/store';

export type { StatusChange, StatusHook } from './status-change';

const statements = statementsFor((db) => ({
  // Positional parameters: binding named ones from an object is markedly slower in better-sqlite3.
  update: db.prepare(`
    UPDATE transactions SET status = ?, failed_code = ?, reason = ?, failed_at = ?, cancelled_at = ?, completed_at = ?, updated_at = ?
    WHERE id = ?`),
  event: db.prepare('INSERT INTO transaction_events (transaction_id, from_status, status, failed_code, at) VALUES (?, ?, ?, ?, ?)'),
}));

/** Which moves are allowed: forward only, nothing leaves a final status. */
function allowed(from: TransactionStatus | null, to: TransactionStatus): boolean {
  switch (from) {
    case null:
      return to === 'initiated';
    case 'initiated':
      return to !== 'initiated';
    case 'processing':
      return to !== 'initiated' && to !== 'processing';
    case 'completed':
    case 'failed':
    case 'cancelled':
      return false;
    default: {
      const unknown: never = from;
      throw new Error(`unknown status ${String(unknown)}`);
    }
  }
}

/**
 * Records the timeline of a freshly inserted transaction: `initiated`, then the status its row was
 * inserted with when that is a later one (a transaction handed to the provider in its creating write
 * is stored as `processing` at once, rather than inserted and updated). Hooks see every step.
 */
export function recordCreation(ctx: EngineContext, row: TransactionRow): void {
  const inserted = row.status;
  if (inserted !== 'initiated' && inserted !== 'processing') throw new Error(`transaction ${row.id}: cannot be created as ${inserted}`);
  record(ctx, row, null, 'initiated', null);
  if (inserted !== 'initiated') record(ctx, row, 'initiated', inserted, row.failed_code);
}

/**
 * Moves `row` to `to`, updating `row` in place. Throws on a move that is not allowed (a bug) or
 * when called outside a write transaction.
 */
export function changeStatus(ctx: EngineContext, row: TransactionRow, to: TransactionStatus, failedCode: FailedCode | null = null): void {
  const from = row.status;
  if (!allowed(from, to)) throw new Error(`transaction ${row.id}: ${from} -> ${to} is not a valid move`);
  if ((to === 'failed') !== (failedCode !== null)) throw new Error(`transaction ${row.id}: failed_code must be set exactly when failed`);
  const now = ctx.clock.nowMicros();
  row.status = to;
  row.failed_code = failedCode;
  row.updated_at = now;
  if (to === 'completed') row.completed_at = now;
  if (to === 'failed') {
    row.failed_at = now;
    row.reason = failedCode === null ? null : FAILED_CODES[failedCode];
  }
  if (to === 'cancelled') {
    row.cancelled_at = now;
    row.reason = 'cancelled by the customer';
  }
  statements(ctx.db).update.run(row.status, row.failed_code, row.reason, row.failed_at, row.cancelled_at, row.completed_at, row.updated_at, row.id);
  record(ctx, row, from, to, failedCode);
}

function record(ctx: EngineContext, row: TransactionRow, from: TransactionStatus | null, to: TransactionStatus, failedCode: FailedCode | null): void {
  if (!ctx.db.inTransaction) throw new Error('status changes must run inside ctx.write()');
  const change: StatusChange = {
    transactionId: row.id,
    kind: row.kind,
    appId: row.app_id,
    environment: row.environment,
    from,
    to,
    failedCode,
    at: row.updated_at,
  };
  statements(ctx.db).event.run(change.transactionId, change.from, change.to, change.failedCode, change.at);
  for (const hook of ctx.statusHooks()) hook(ctx.db, change);
  ctx.queueEvent({
    type: 'status',
    kind: change.kind,
    transactionId: change.transactionId,
    appId: change.appId,
    environment: change.environment,
    from: change.from,
    to: change.to,
    failedCode: change.failedCode,
    at: formatTimestamp(change.at),
  });
}
