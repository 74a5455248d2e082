/**
 * Fees: a percentage part (basis points) plus a fixed part per kind, from the seed's schedule.
 *
 * Rounding: the percentage part is rounded UP to the next whole minor unit (the service never
 * undercharges by a fraction), computed in BigInt so large amounts stay exact. A payment's fee
 * never exceeds its amount, so `net_amount` is never negative.
 */
import type Database from 'better-sqlite3';
import type { TransactionKind } from '../events';
import { cachedConfig } from '../storage/config-cache';
import { statementsFor } from '../storage/statements';

export interface FeeRule {
  percentBps: number;
  fixed: number;
}

const statements = statementsFor((db) => ({
  rule: db.prepare('SELECT percent_bps AS percentBps, fixed FROM fee_schedule WHERE kind = ?'),
}));

export function computeFee(rule: FeeRule, amount: number, kind: TransactionKind): number {
  const product = BigInt(amount) * BigInt(rule.percentBps);
  const percentPart = Number((product + 9_999n) / 10_000n);
  const fee = percentPart + rule.fixed;
  return kind === 'payment' ? Math.min(fee, amount) : fee;
}

/** The schedule's rule for a kind (none: no fee). */
export function feeRule(db: Database.Database, kind: TransactionKind): FeeRule {
  return cachedConfig(db, `fee:${kind}`, () => statements(db).rule.get(kind) as FeeRule | undefined) ?? { percentBps: 0, fixed: 0 };
}

export function feeFor(db: Database.Database, kind: TransactionKind, amount: number): number {
  return computeFee(feeRule(db, kind), amount, kind);
}
