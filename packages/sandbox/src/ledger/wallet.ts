/**
 * Wallets per application and environment, kept as a ledger: the balance is the sum of entries.
 * Each entry also stores the running balance after it, so a balance read does not sum the ledger;
 * entries are only ever appended, inside the write that causes them.
 */
import type Database from 'better-sqlite3';
import { formatTimestamp, type Environment } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { statementsFor } from '../storage/statements';

export interface LedgerRow {
  id: number;
  at: string;
  amount: number;
  reason: string;
  transactionId: string | null;
}

const statements = statementsFor((db) => ({
  balance: db.prepare('SELECT balance_after FROM ledger_entries WHERE app_id = ? AND environment = ? ORDER BY id DESC LIMIT 1').pluck(),
  insert: db.prepare(
    'INSERT INTO ledger_entries (app_id, environment, amount, balance_after, reason, transaction_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ),
  entries: db.prepare('SELECT id, at, amount, reason, transaction_id AS transactionId FROM ledger_entries WHERE app_id = ? AND environment = ? ORDER BY id'),
}));

/** The wallet's balance: the running total kept on its latest ledger entry (0 for no entries). */
export function walletBalance(db: Database.Database, appId: string, environment: Environment): number {
  return (statements(db).balance.get(appId, environment) as number | undefined) ?? 0;
}

/**
 * Appends a ledger entry (positive credits, negative debits) inside the current write and returns
 * the new balance. Callers check funds first; this refuses to take a wallet below zero.
 */
export function addLedgerEntry(
  ctx: EngineContext,
  entry: { appId: string; environment: Environment; amount: number; reason: string; transactionId: string | null },
): number {
  if (!ctx.db.inTransaction) throw new Error('ledger entries must be written inside ctx.write()');
  if (!Number.isSafeInteger(entry.amount)) throw new RangeError('ledger amounts are whole minor units');
  const before = walletBalance(ctx.db, entry.appId, entry.environment);
  const balance = before + entry.amount;
  if (balance < 0) throw new RangeError('a wallet cannot go below zero');
  const at = ctx.clock.nowMicros();
  statements(ctx.db).insert.run(entry.appId, entry.environment, entry.amount, balance, entry.reason, entry.transactionId, at);
  ctx.queueEvent({
    type: 'wallet',
    appId: entry.appId,
    environment: entry.environment,
    amount: entry.amount,
    balance,
    reason: entry.reason,
    transactionId: entry.transactionId,
    at: formatTimestamp(at),
  });
  return balance;
}

export function ledgerEntries(db: Database.Database, appId: string, environment: Environment): LedgerRow[] {
  return (statements(db).entries.all(appId, environment) as (Omit<LedgerRow, 'at'> & { at: number })[]).map((row) => ({
    ...row,
    at: formatTimestamp(row.at),
  }));
}
