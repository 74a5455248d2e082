/**
 * The engine operations the control API drives: the same ones the console calls in-process on
 * the engine's control port (which extends this), so both paths behave alike; operations.ts
 * implements them once.
 */
import type { Environment } from '../../../../shared/contract';
import type { toFullTransaction } from '../storage/store';
import type { LedgerRow } from '../ledger/wallet';

export interface ControlTarget {
  /** Makes the provider decide now and delivers its notification (a needs-verify one still waits for verify). */
  settleNow(transactionId: string): { status: string } | null;
  setSettleMs(ms: number): void;
  /** Requests per minute per key from now on (the current minute's count is kept); 0 turns the limit off. */
  setRateLimit(perKeyPerMinute: number): void;
  setMaintenance(on: boolean): void;
  walletBalance(appId: string, environment: Environment): number;
  topUp(appId: string, environment: Environment, amount: number, reason: string): number;
  ledger(appId: string, environment: Environment): LedgerRow[];
  /** The stored timeline of a transaction, oldest first. */
  timeline(transactionId: string): { status: string; from: string | null; failedCode: string | null; at: string }[];
  /** The full transaction object, unscoped (for the engine's own tools). */
  transaction(transactionId: string): ReturnType<typeof toFullTransaction> | null;
  /** Whether it is a payment or a payout: the spec's shape says `type: payment` for both, the engine knows. */
  kindOf(transactionId: string): 'payment' | 'payout' | null;
  reset(): void;
}
