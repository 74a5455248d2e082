/**
 * Reconcile never skips a journal entry that has no external id (issue 23): the spec makes
 * external_id optional, so a payment the console knows only by its transaction id cannot be in the
 * merchant's file by external id; inside the period it is "unknown to the merchant", never left out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationRow, ReconciliationSummary } from '../../shared/api';
import { expectOk, paymentRequest } from './helpers';
import { closeRuntime, createAtService, merchantClient, reconcile, request, settleViaControlApi, startEngineTimeRuntime, type Runtime } from './reconcile-fixtures';

let runtime: Runtime;
let summary: ReconciliationSummary;
let rows: ReconciliationRow[];
let noExternalId: string;

beforeAll(async () => {
  runtime = await startEngineTimeRuntime();
  const engine = runtime.engine!;
  const merchant = merchantClient(runtime);
  const from = engine.clock.nowMicros() / 1000 - 86_400_000;
  const known = await createAtService(runtime, merchant, 'payment', request('in-file-1', 3000, '+237650000001'));
  await settleViaControlApi(runtime, known);
  // Created without an external id (the field is optional), then looked up by the console by its transaction id.
  const { external_id: _none, ...withoutExternalId } = paymentRequest({ amount: 4321, phone_number: '+237650000001', payment_method: 'momo_cm' });
  noExternalId = await createAtService(runtime, merchant, 'payment', withoutExternalId);
  await settleViaControlApi(runtime, noExternalId);
  await merchant.close();
  const found = expectOk(await runtime.handlers['transactions:lookup']({ id: noExternalId, by: 'transaction_id', kind: 'payment' }));
  expect(found).toMatchObject({ found: true, transaction: { externalId: null, transactionId: noExternalId } });
  const to = engine.clock.nowMicros() / 1000 + 60_000;
  summary = await reconcile(runtime, 'external_id,kind,amount,expected_status\nin-file-1,payment,3000,paid\n', {
    processingMinutes: 15,
    period: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
  });
  rows = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 50 })).rows;
}, 120_000);

afterAll(async () => {
  await closeRuntime(runtime);
});

describe('a journal entry without an external id', () => {
  it('is counted unknown to the merchant, with its transaction id and amount', () => {
    expect(summary.status).toBe('done');
    expect(rows.find((row) => row.transactionId === noExternalId)).toMatchObject({ row: null, externalId: null, category: 'unknown_to_merchant' });
    expect(summary.categories.unknown_to_merchant).toMatchObject({ count: 1, amount: 4321 });
    expect(summary.categories.matched.count).toBe(1);
  });
});
