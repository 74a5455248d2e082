/**
 * A transaction's status change as status hooks see it (transitions.ts runs them inside the
 * change's own write). Its own module so the context (which holds the hooks) and transitions
 * (which runs them) do not import each other.
 */
import type Database from 'better-sqlite3';
import type { Environment, FailedCode, TransactionStatus } from '../../../../shared/contract';
import type { TransactionKind } from '../events';

export interface StatusChange {
  transactionId: string;
  kind: TransactionKind;
  appId: string;
  environment: Environment;
  /** Null when the transaction is created. */
  from: TransactionStatus | null;
  to: TransactionStatus;
  failedCode: FailedCode | null;
  /** Engine time in microseconds. */
  at: number;
}

/** Runs inside the status change's transaction; throwing rolls the whole operation back. */
export type StatusHook = (db: Database.Database, change: StatusChange) => void;
