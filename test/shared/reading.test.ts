/**
 * The tolerant reading of the service's transaction object (shared/contract/reading.ts,
 * docs/decisions/tolerant-reader.md): strict in what decides money, optional in the rest.
 */
import { describe, expect, it } from 'vitest';
import {
  initiatedTransactionSchema,
  isFinalStatus,
  isIsoDateTime,
  isKnownFailedCode,
  isListedStatus,
  matchesExternalId,
  rawAnswerText,
  RAW_ANSWER_MAX,
  readServiceTransaction,
} from '../../shared/contract';

const spec = {
  transaction_id: 'TE_8f2k1',
  ref: '0d7c1f8e-2f43-4c55-9a6e-8b1a0c6f1e21',
  external_id: 'order-77',
  type: 'payment',
  status: 'processing',
  amount: 2500,
  currency: 'XAF',
  description: null,
  account_name: 'Amélie Ngono',
  account_number: '+2376****001',
  account_type: 'mobile_money',
  reason: null,
  failed_code: null,
  failed_at: null,
  cancelled_at: null,
  completed_at: null,
  customer: { ref: 'c1', first_name: 'Amélie', last_name: 'Ngono', email: 'amelie@example.com' },
  payment_method: { ref: 'm1', name: 'MoMo', code: 'momo_cm' },
  metadata: null,
  created_at: '2026-11-21T10:00:00.123456Z',
  updated_at: '2026-11-21T10:00:00.123456Z',
};

const read = (data: unknown) => readServiceTransaction(data);
const tx = (data: unknown) => {
  const result = read(data);
  if (!result.ok) throw new Error(result.missing);
  return result.tx;
};

describe('what decides money is read strictly', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['no transaction_id', { transaction_id: undefined }, 'the answer has no transaction_id'],
    ['an empty transaction_id', { transaction_id: '' }, 'the answer\'s transaction_id is not readable ("")'],
    ['no status', { status: undefined }, 'the answer has no status'],
    ['a null status', { status: null }, "the answer's status is null"],
    ['a status that is not a string', { status: 3 }, "the answer's status is not readable (3)"],
    ['no amount', { amount: undefined }, 'the answer has no amount'],
    ['an amount in a string', { amount: '2500' }, 'the answer\'s amount is not a whole number ("2500")'],
    ['a fractional amount', { amount: 25.5 }, "the answer's amount is not a whole number (25.5)"],
    ['no currency', { currency: undefined }, 'the answer has no currency'],
    ['an external_id that is not a string', { external_id: 77 }, "the answer's external_id is not readable (77)"],
  ];
  for (const [name, change, missing] of cases) {
    it(`${name}: not a transaction, and says so`, () => {
      const data: Record<string, unknown> = { ...spec, ...change };
      for (const [key, value] of Object.entries(change)) if (value === undefined) delete data[key];
      expect(read(data)).toEqual({ ok: false, missing });
    });
  }

  it('data that is no object is no transaction', () => {
    for (const data of [null, 'TE_1', [spec], 42]) expect(read(data)).toEqual({ ok: false, missing: 'the answer is not a transaction object' });
  });
});

describe('everything else is optional', () => {
  it('reads the spec shape as it is (the fee fields of an initiate answer as null)', () => {
    expect(tx(spec)).toEqual({ ...spec, fee: null, net_amount: null, fee_payer: null, application: null });
  });

  it('reads null fields left out as null, and an external_id left out as none', () => {
    const loose = Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== null && typeof value !== 'object'));
    const { external_id: _left, ...withoutId } = loose;
    const read = tx(withoutId);
    expect(read).toMatchObject({ transaction_id: 'TE_8f2k1', status: 'processing', amount: 2500, currency: 'XAF', external_id: null, reason: null, failed_at: null, customer: null, payment_method: null, metadata: null });
  });

  it('keeps extra fields, in the object and in its parts', () => {
    const read = tx({ ...spec, provider_reference: 'MTN-1', customer: { ...spec.customer, phone: '+237650000001' } });
    expect(read).toMatchObject({ provider_reference: 'MTN-1', customer: { first_name: 'Amélie', phone: '+237650000001' } });
  });

  it('reads timestamps of any ISO 8601 precision, Z or an offset; an unreadable one as null', () => {
    for (const stamp of ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.123Z', '2026-11-21T10:00:00.123456789Z', '2026-11-21T11:00:00.1+01:00', '2026-11-21T10:00+0000', '2026-11-21 10:00:00Z']) {
      expect(isIsoDateTime(stamp), stamp).toBe(true);
      expect(tx({ ...spec, created_at: stamp }).created_at).toBe(stamp);
    }
    for (const stamp of ['2026-11-21T10:00:00', '2026-02-30T10:00:00Z', '21/11/2026', '2026-11-21T25:00:00Z', '']) {
      expect(isIsoDateTime(stamp), stamp).toBe(false);
      expect(tx({ ...spec, created_at: stamp, completed_at: 17 }).created_at).toBeNull();
    }
  });

  it('reads a type of any value and a failed code of any string, keeping the known ones known', () => {
    expect(tx({ ...spec, type: 'disbursement' }).type).toBe('disbursement');
    const failed = tx({ ...spec, status: 'failed', failed_code: 'WALLET_LIMIT_REACHED' });
    expect(failed.failed_code).toBe('WALLET_LIMIT_REACHED');
    expect(isKnownFailedCode('WALLET_LIMIT_REACHED')).toBe(false);
    expect(isKnownFailedCode(tx({ ...spec, failed_code: 'NOT_ENOUGH_FUNDS' }).failed_code!)).toBe(true);
  });

  it('reads a field of the wrong type as null, never as an unreadable answer', () => {
    expect(tx({ ...spec, description: 12, customer: 'Amélie', metadata: [1], fee: '75' })).toMatchObject({ description: null, customer: null, metadata: null, fee: null });
  });
});

describe('a status the spec does not list', () => {
  it('is read as said, is not listed, and is never final', () => {
    expect(tx({ ...spec, status: 'pending' }).status).toBe('pending');
    expect(isListedStatus('pending')).toBe(false);
    expect(isFinalStatus('pending')).toBe(false);
    expect(isFinalStatus('PENDING')).toBe(false);
    for (const status of ['completed', 'failed', 'cancelled']) expect(isFinalStatus(status)).toBe(true);
    for (const status of ['initiated', 'processing']) expect(isFinalStatus(status)).toBe(false);
  });
});

describe('whose answer it is', () => {
  it('matches the external id sent, or none named; another id is another payout', () => {
    expect(matchesExternalId({ external_id: 'order-77' }, 'order-77')).toBe(true);
    expect(matchesExternalId({ external_id: null }, 'order-77')).toBe(true);
    expect(matchesExternalId({ external_id: 'order-78' }, undefined)).toBe(true);
    expect(matchesExternalId({ external_id: 'order-78' }, 'order-77')).toBe(false);
  });
});

describe('the raw answer kept', () => {
  it('is the JSON as received, cut past its limit and said so', () => {
    expect(rawAnswerText({ a: 1 })).toBe('{"a":1}');
    const long = rawAnswerText({ text: 'x'.repeat(RAW_ANSWER_MAX) });
    const said = `... (cut at ${RAW_ANSWER_MAX} characters)`;
    expect(long).toHaveLength(RAW_ANSWER_MAX + said.length);
    expect(long.endsWith(said)).toBe(true);
  });
});

describe("the engine's own answers stay strict", () => {
  it('the engine schema still refuses what the reader accepts', () => {
    expect(initiatedTransactionSchema.safeParse({ ...spec, status: 'pending' }).success).toBe(false);
    expect(initiatedTransactionSchema.safeParse({ ...spec, created_at: '2026-11-21T10:00:00.123Z' }).success).toBe(false);
  });
});
