/**
 * The transactions table: inserting, finding (always scoped to application, environment and
 * kind, so another merchant's transaction is simply not found) and shaping for responses.
 */
import type Database from 'better-sqlite3';
import {
  formatTimestamp,
  type Environment,
  type FailedCode,
  type FullTransaction,
  type InitiatedTransaction,
  type TransactionStatus,
} from '../../../../shared/contract';
import type { TransactionKind } from '../events';
import { cachedConfig } from './config-cache';
import { viewOf, type ProviderRequestRow, type ProviderView } from '../lifecycle/provider';
import { statementsFor } from './statements';

export interface TransactionRow {
  id: string;
  ref: string;
  app_id: string;
  environment: Environment;
  kind: TransactionKind;
  external_id: string | null;
  status: TransactionStatus;
  amount: number;
  fee: number;
  currency: string;
  description: string | null;
  phone_number: string;
  customer_ref: string;
  /** JSON of `{ first_name, last_name, email, metadata? }`. */
  customer: string;
  method_code: string;
  metadata: string | null;
  reason: string | null;
  failed_code: FailedCode | null;
  failed_at: number | null;
  cancelled_at: number | null;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
  provider_ref: string;
}

/** A transaction row with the application and method fields responses need. */
export interface JoinedTransactionRow extends TransactionRow {
  app_ref: string;
  app_name: string;
  method_ref: string;
  method_name: string;
}

export interface Scope {
  appId: string;
  environment: Environment;
  kind: TransactionKind;
}

/** The columns of `TransactionRow`, in table order; `rowFrom` reads them back in this order. */
const ROW_COLUMNS = `id, ref, app_id, environment, kind, external_id, status, amount, fee, currency, description, phone_number,
  customer_ref, customer, method_code, metadata, reason, failed_code, failed_at, cancelled_at, completed_at, created_at, updated_at,
  provider_ref`;

type RawTransactionRow = [
  TransactionRow['id'],
  TransactionRow['ref'],
  TransactionRow['app_id'],
  TransactionRow['environment'],
  TransactionRow['kind'],
  TransactionRow['external_id'],
  TransactionRow['status'],
  TransactionRow['amount'],
  TransactionRow['fee'],
  TransactionRow['currency'],
  TransactionRow['description'],
  TransactionRow['phone_number'],
  TransactionRow['customer_ref'],
  TransactionRow['customer'],
  TransactionRow['method_code'],
  TransactionRow['metadata'],
  TransactionRow['reason'],
  TransactionRow['failed_code'],
  TransactionRow['failed_at'],
  TransactionRow['cancelled_at'],
  TransactionRow['completed_at'],
  TransactionRow['created_at'],
  TransactionRow['updated_at'],
  TransactionRow['provider_ref'],
];

function rowFrom(values: unknown[]): TransactionRow {
  const v = values as RawTransactionRow;
  return {
    id: v[0],
    ref: v[1],
    app_id: v[2],
    environment: v[3],
    kind: v[4],
    external_id: v[5],
    status: v[6],
    amount: v[7],
    fee: v[8],
    currency: v[9],
    description: v[10],
    phone_number: v[11],
    customer_ref: v[12],
    customer: v[13],
    method_code: v[14],
    metadata: v[15],
    reason: v[16],
    failed_code: v[17],
    failed_at: v[18],
    cancelled_at: v[19],
    completed_at: v[20],
    created_at: v[21],
    updated_at: v[22],
    provider_ref: v[23],
  };
}

const statements = statementsFor((db) => ({
  // Positional parameters: binding 24 named ones from an object costs twice the insert itself.
  insert: db.prepare(`
    INSERT INTO transactions (${ROW_COLUMNS}, external_id_seq)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  // The application and method names come from the config cache (see `withNames`), not a join.
  // Raw rows (arrays): better-sqlite3 builds a 24-property object per row far slower than JS does.
  byId: db.prepare(`SELECT ${ROW_COLUMNS} FROM transactions WHERE id = ? AND app_id = ? AND environment = ? AND kind = ?`).raw(),
  // The latest of an external id's transactions (more than one only under duplicates-accepted, migration 5).
  byExternalId: db
    .prepare(`SELECT ${ROW_COLUMNS} FROM transactions WHERE external_id = ? AND app_id = ? AND environment = ? AND kind = ? ORDER BY external_id_seq DESC LIMIT 1`)
    .raw(),
  appNames: db.prepare('SELECT ref, name FROM applications WHERE id = ?'),
  methodNames: db.prepare('SELECT ref, name FROM methods WHERE code = ?'),
  externalIdTaken: db.prepare('SELECT 1 FROM transactions WHERE external_id = ? AND app_id = ? AND environment = ? AND kind = ?'),
  nextExternalIdSeq: db
    .prepare('SELECT COALESCE(MAX(external_id_seq) + 1, 0) FROM transactions WHERE external_id = ? AND app_id = ? AND environment = ? AND kind = ?')
    .pluck(),
  unscoped: db.prepare(`
    SELECT t.*, a.ref AS app_ref, a.name AS app_name, m.ref AS method_ref, m.name AS method_name
    FROM transactions t JOIN applications a ON a.id = t.app_id JOIN methods m ON m.code = t.method_code
    WHERE t.id = ?`),
  // One query for a settlement batch: the provider's due notifications joined with their transactions.
  dueFromProvider: db.prepare(`
    SELECT p.ref, p.final_status, p.failed_code, ${ROW_COLUMNS.replace(/(\w+)/g, 't.$1')}
    FROM provider_requests p LEFT JOIN transactions t ON t.id = p.transaction_id
    WHERE p.notifies = 1 AND p.notified = 0 AND p.decides_at <= ?
    ORDER BY p.decides_at LIMIT ?`).raw(),
  events: db.prepare('SELECT id, from_status, status, failed_code, at FROM transaction_events WHERE transaction_id = ? ORDER BY id'),
}));

/**
 * Inserts the row; `externalIdSeq` is 0 but for a repeated external id under duplicates-accepted
 * (see `nextExternalIdSeq`), so the unique index never holds two rows with one id and one number.
 */
export function insertTransaction(db: Database.Database, row: TransactionRow, externalIdSeq = 0): void {
  statements(db).insert.run(
    row.id,
    row.ref,
    row.app_id,
    row.environment,
    row.kind,
    row.external_id,
    row.status,
    row.amount,
    row.fee,
    row.currency,
    row.description,
    row.phone_number,
    row.customer_ref,
    row.customer,
    row.method_code,
    row.metadata,
    row.reason,
    row.failed_code,
    row.failed_at,
    row.cancelled_at,
    row.completed_at,
    row.created_at,
    row.updated_at,
    row.provider_ref,
    externalIdSeq,
  );
}

export function findTransaction(
  db: Database.Database,
  scope: Scope,
  by: 'transaction_id' | 'external_id',
  id: string,
): JoinedTransactionRow | undefined {
  const statement = by === 'external_id' ? statements(db).byExternalId : statements(db).byId;
  const values = statement.get(id, scope.appId, scope.environment, scope.kind) as unknown[] | undefined;
  return values === undefined ? undefined : withNames(db, rowFrom(values));
}

/**
 * Adds the application's and method's ref and name to `row` (in place), as the join of
 * `getTransaction` does; undefined where that join would find no row.
 */
function withNames(db: Database.Database, row: TransactionRow): JoinedTransactionRow | undefined {
  const app = cachedConfig(db, `app-names:${row.app_id}`, () => statements(db).appNames.get(row.app_id) as RefAndName | undefined);
  const method = cachedConfig(db, `method-names:${row.method_code}`, () => statements(db).methodNames.get(row.method_code) as RefAndName | undefined);
  if (app === undefined || method === undefined) return undefined;
  const joined = row as JoinedTransactionRow;
  joined.app_ref = app.ref;
  joined.app_name = app.name;
  joined.method_ref = method.ref;
  joined.method_name = method.name;
  return joined;
}

interface RefAndName {
  ref: string;
  name: string;
}

export function externalIdTaken(db: Database.Database, scope: Scope, externalId: string): boolean {
  return statements(db).externalIdTaken.get(externalId, scope.appId, scope.environment, scope.kind) !== undefined;
}

/** The sequence number the next transaction with this external id takes: 0 for the first, then 1, 2… */
export function nextExternalIdSeq(db: Database.Database, scope: Scope, externalId: string): number {
  return statements(db).nextExternalIdSeq.get(externalId, scope.appId, scope.environment, scope.kind) as number;
}

/** For the engine's own tools (settle now, tests): no scope. */
export function getTransaction(db: Database.Database, id: string): JoinedTransactionRow | undefined {
  return statements(db).unscoped.get(id) as JoinedTransactionRow | undefined;
}

/** A provider notification due now, with the transaction it is about (null: none, which is a bug). */
export interface DueNotification {
  providerRef: string;
  view: ProviderView;
  row: TransactionRow | null;
}

/** The provider's notifications due at `now`, oldest first, each with its transaction. */
export function dueNotifications(db: Database.Database, now: number, limit: number): DueNotification[] {
  const rows = statements(db).dueFromProvider.all(now, limit) as unknown[][];
  return rows.map((values) => {
    const [providerRef, finalStatus, failedCode] = values as [string, ProviderRequestRow['final_status'], FailedCode | null];
    const transaction = values.slice(3);
    return {
      providerRef,
      view: viewOf({ final_status: finalStatus, failed_code: failedCode }),
      row: transaction[0] === null ? null : rowFrom(transaction),
    };
  });
}

export interface TransactionEventRow {
  id: number;
  from_status: TransactionStatus | null;
  status: TransactionStatus;
  failed_code: FailedCode | null;
  at: number;
}

/** The stored timeline of a transaction, oldest first. */
export function transactionEvents(db: Database.Database, transactionId: string): TransactionEventRow[] {
  return statements(db).events.all(transactionId) as TransactionEventRow[];
}

/**
 * Masks the middle of the payer's number (`+237650000001` -> `+2376*****0001`): enough to
 * recognise it, not enough to reuse it.
 */
export function maskAccountNumber(phone: string): string {
  if (phone.length <= 8) return phone;
  return `${phone.slice(0, 5)}${'*'.repeat(phone.length - 9)}${phone.slice(-4)}`;
}

function timestampOrNull(micros: number | null): string | null {
  return micros === null ? null : formatTimestamp(micros);
}

/** The transaction object as initiate answers it (spec 2.2 without the retrieve-only fields). */
export function toInitiatedTransaction(row: JoinedTransactionRow): InitiatedTransaction {
  return initiatedFields(row);
}

/** The full object of retrieve and verify. */
export function toFullTransaction(row: JoinedTransactionRow): FullTransaction {
  const transaction = initiatedFields(row) as FullTransaction;
  // Added in place (not spread into a copy): the key order is the same, the copy is saved.
  transaction.fee = row.fee;
  transaction.net_amount = row.amount - row.fee;
  transaction.fee_payer = 'merchant';
  transaction.application = { id: row.app_id, ref: row.app_ref, name: row.app_name };
  return transaction;
}

function initiatedFields(row: JoinedTransactionRow): InitiatedTransaction {
  const customer = JSON.parse(row.customer) as { first_name: string; last_name: string; email: string; metadata?: Record<string, unknown> };
  return {
    transaction_id: row.id,
    ref: row.ref,
    external_id: row.external_id,
    // Spec 2.2: `type` reads `payment` in every response the spec shows, payout initiate included.
    type: 'payment',
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    account_name: `${customer.first_name} ${customer.last_name}`,
    account_number: maskAccountNumber(row.phone_number),
    account_type: 'mobile_money',
    reason: row.reason,
    failed_code: row.failed_code,
    failed_at: timestampOrNull(row.failed_at),
    cancelled_at: timestampOrNull(row.cancelled_at),
    completed_at: timestampOrNull(row.completed_at),
    customer: {
      ref: row.customer_ref,
      first_name: customer.first_name,
      last_name: customer.last_name,
      email: customer.email,
      metadata: customer.metadata ?? null,
    },
    payment_method: { ref: row.method_ref, name: row.method_name, code: row.method_code },
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
  };
}
