/**
 * The transaction object read from a success answer (electron/console/journal/rows.ts
 * transactionOf, the tolerant reader of shared/contract/reading.ts): the full object of retrieve
 * and verify keeps its fee fields; an initiate's answer (no fee) reads them as null; a field that
 * does not decide money and is not of its type reads as null; what decides money must be there;
 * an answer for another transaction than the one asked for is none.
 */
import { describe, expect, it } from 'vitest';
import { transactionOf } from '../../electron/console/journal/rows';

const initiated = {
  transaction_id: 'tx-1',
  ref: 'REF1',
  external_id: 'ext-1',
  type: 'payment',
  status: 'processing',
  amount: 5000,
  currency: 'XAF',
  description: null,
  account_name: 'A Person',
  account_number: '237650000001',
  account_type: 'momo',
  reason: null,
  failed_code: null,
  failed_at: null,
  cancelled_at: null,
  completed_at: null,
  customer: { ref: 'CUS1', first_name: 'A', last_name: 'Person', email: 'a@example.com' },
  payment_method: { ref: 'PM1', name: 'MTN MoMo', code: 'momo_cm' },
  metadata: null,
  created_at: '2026-11-26T03:00:00.000000Z',
  updated_at: '2026-11-26T03:00:00.000000Z',
};
const full = { ...initiated, fee: 75, net_amount: 4925, fee_payer: 'merchant', application: { id: 'app-1', ref: 'APP1', name: 'Shop' } };

describe('transactionOf', () => {
  it('keeps the fee fields of a full object (retrieve, verify)', () => {
    expect(transactionOf(full)).toMatchObject({ transaction_id: 'tx-1', fee: 75, net_amount: 4925, fee_payer: 'merchant' });
  });

  it('reads an initiate answer (no fee) with its fee fields null, and a bad fee as null', () => {
    expect(transactionOf(initiated)).toEqual({ ...initiated, fee: null, net_amount: null, fee_payer: null, application: null });
    const badFee = transactionOf({ ...full, fee: 'seventy-five' });
    expect(badFee).toMatchObject({ transaction_id: 'tx-1', status: 'processing', fee: null, net_amount: 4925 });
  });

  it('is null for data that is not a transaction', () => {
    expect(transactionOf(null)).toBeNull();
    expect(transactionOf({ fee: 75 })).toBeNull();
    expect(transactionOf({ ...initiated, amount: '5000' })).toBeNull();
  });

  it('is null for an answer naming another transaction than the one asked for', () => {
    expect(transactionOf(initiated, { externalId: 'ext-1' })).not.toBeNull();
    expect(transactionOf(initiated, { externalId: 'ext-2' })).toBeNull();
    expect(transactionOf({ ...initiated, external_id: null }, { externalId: 'ext-2' })).not.toBeNull();
    expect(transactionOf(initiated, { transactionId: 'tx-1' })).not.toBeNull();
    expect(transactionOf(initiated, { transactionId: 'tx-2' })).toBeNull();
  });
});
