/**
 * What the storage contract suite writes: requests, service answers, checked batch rows, and the
 * two stores it runs against (a SQLite journal file, a PostgreSQL workspace copy).
 */
import { join } from 'node:path';
import type { TransactionRequest } from '../../shared/contract';
import type { CheckedRow } from '../../shared/api';
import { openJournal } from '../../electron/console/journal/entries';
import type { ServiceTransaction } from '../../electron/console/journal/rows';
import type { StoragePort } from '../../electron/console/storage/port';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import { makeTempDir } from '../temp-dir';
import type { TestWorkspaces } from '../helpers/workspace';

export const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

export function payoutRequest(overrides: Partial<TransactionRequest> = {}): TransactionRequest {
  return {
    payment_method: 'service_demo',
    amount: 5000,
    phone_number: '+237650000001',
    customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' },
    description: 'Supplier',
    ...overrides,
  };
}

let transactions = 0;
export function serviceTx(request: TransactionRequest, overrides: Partial<ServiceTransaction> = {}): ServiceTransaction {
  transactions += 1;
  const at = '2026-11-25T10:00:00.000Z';
  return {
    transaction_id: `tr_${transactions}`,
    ref: `ref_${transactions}`,
    external_id: request.external_id ?? null,
    type: 'payment',
    status: 'processing',
    amount: request.amount,
    currency: 'XAF',
    description: request.description ?? null,
    account_name: `${request.customer.first_name} ${request.customer.last_name}`,
    account_number: request.phone_number,
    account_type: 'mobile_money',
    reason: null,
    failed_code: null,
    failed_at: null,
    cancelled_at: null,
    completed_at: null,
    customer: { ref: 'cus_1', ...request.customer },
    payment_method: { ref: 'pm', name: 'Demo', code: request.payment_method },
    metadata: null,
    created_at: at,
    updated_at: at,
    // An initiate's answer: no fee fields (read as null by the tolerant reader).
    fee: null,
    net_amount: null,
    fee_payer: null,
    application: null,
    ...overrides,
  };
}

/** `count` valid rows (external ids B-1, B-2, …) and, when asked, one invalid row after them. */
export function checkedRows(count: number, options: { invalid?: boolean; amount?: number; prefix?: string } = {}): CheckedRow[] {
  const rows: CheckedRow[] = [];
  for (let i = 1; i <= count; i += 1) {
    const externalId = `${options.prefix ?? 'B'}-${i}`;
    const request = payoutRequest({ external_id: externalId, amount: options.amount ?? 1000 * i, phone_number: `+2376500${String(i).padStart(5, '0')}` });
    rows.push({
      rowNumber: i + 1,
      values: { phone_number: request.phone_number, amount: String(request.amount), first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com', description: '', external_id: externalId, payment_method: '', meta: {} },
      request,
      errors: {},
      duplicates: [],
      externalId,
    });
  }
  if (options.invalid) {
    rows.push({
      rowNumber: count + 2,
      values: { phone_number: 'nope', amount: '-1', first_name: '', last_name: '', email: '', description: '', external_id: 'B-bad', payment_method: '', meta: {} },
      request: null,
      errors: { phone_number: ['not a phone number'] },
      duplicates: [],
      externalId: 'B-bad',
    });
  }
  return rows;
}

export interface StoreUnderTest {
  name: 'SQLite' | 'PostgreSQL';
  open(): Promise<StoragePort>;
}

export function storesUnderTest(workspaces: () => TestWorkspaces): StoreUnderTest[] {
  return [
    {
      name: 'SQLite',
      async open() {
        const dir = makeTempDir('paydesk-store-');
        return sqliteStore(openJournal(join(dir, 'journal.db')), { settingsFile: join(dir, 'team-settings.json') });
      },
    },
    {
      name: 'PostgreSQL',
      async open() {
        const ws = workspaces();
        return ws.storeAs('tester', await ws.create());
      },
    },
  ];
}

/** The desk the contract suite's batch writes claim rows as. */
const CONTRACT_DESK = 'contract-desk';

/**
 * A batch row's request written as the runner writes it: the batch `sending`, its rows claimed by
 * this store's login, then the entry (a team workspace writes a batch row's entry only under the
 * writer's own live claim: migration 44). Rows already claimed stay this desk's; a row whose entry
 * answered "not sent" is claimed again.
 */
export async function writeRowRequest(store: StoragePort, input: Parameters<StoragePort['journal']['writeRequest']>[0] & { batch: { id: string; row: number } }): Promise<string> {
  const batch = await store.batches.summary(input.batch.id);
  if (batch && batch.state !== 'sending') await store.batches.setState(input.batch.id, 'sending', input.at);
  await store.batches.claimRows(input.batch.id, CONTRACT_DESK, 10_000, 600_000, input.at);
  return store.journal.writeRequest(input);
}
