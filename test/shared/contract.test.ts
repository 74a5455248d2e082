import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  FAILED_CODE_LIST,
  envelopeSchema,
  formatTimestamp,
  fullTransactionSchema,
  parseTimestamp,
  toFieldErrors,
  transactionRequestSchema,
  authHeaderNames,
} from '../../shared/contract';

const validRequest = {
  payment_method: 'service_demo',
  amount: 5000,
  phone_number: '+237650000001',
  customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
};

describe('error code table', () => {
  it('carries every spec code with its HTTP status', () => {
    expect(ERROR_CODES.AUTHENTICATION_HEADERS_REQUIRED.http).toBe(401);
    expect(ERROR_CODES.INVALID_ENVIRONMENT.http).toBe(400);
    expect(ERROR_CODES.FORBIDDEN.http).toBe(403);
    expect(ERROR_CODES.LIVE_MODE_NOT_ENABLED.http).toBe(403);
    expect(ERROR_CODES.ENVIRONMENT_CONTEXT_NOT_SET.http).toBe(500);
    expect(ERROR_CODES.PAYOUT_METHOD_NOT_SUPPORTED.http).toBe(406);
    expect(ERROR_CODES.INSUFFICIENT_FUNDS.http).toBe(422);
    expect(ERROR_CODES.PAYLOAD_TOO_LARGE.http).toBe(413);
    const specCodes = Object.entries(ERROR_CODES).filter(([, row]) => row.origin === 'spec');
    expect(specCodes).toHaveLength(24);
  });

  it('spells the failed codes as the spec does', () => {
    expect(FAILED_CODE_LIST).toContain('TRANASACTION_CANCELLED');
    expect(FAILED_CODE_LIST).toHaveLength(6);
  });

  it('names the headers after the header word', () => {
    expect(authHeaderNames('ACME').signature).toBe('X-ACME-Signature');
    expect(authHeaderNames().timestamp).toBe('X-SVC-Timestamp');
  });
});

describe('timestamps', () => {
  it('formats microseconds in the spec form and parses them back', () => {
    const micros = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000 + 123456;
    expect(formatTimestamp(micros)).toBe('2026-11-21T10:00:00.123456Z');
    expect(parseTimestamp('2026-11-21T10:00:00.123456Z')).toBe(micros);
  });

  it('refuses other forms and impossible dates', () => {
    expect(parseTimestamp('2026-11-21T10:00:00.123Z')).toBeNull();
    expect(parseTimestamp('2026-11-21T10:00:00.123456+00:00')).toBeNull();
    expect(parseTimestamp('2026-02-30T10:00:00.000000Z')).toBeNull();
    expect(() => formatTimestamp(1.5)).toThrow(RangeError);
  });
});

describe('request body', () => {
  it('accepts a valid payment request', () => {
    expect(transactionRequestSchema.safeParse(validRequest).success).toBe(true);
  });

  it('reports every failing field at once with dotted names', () => {
    const result = transactionRequestSchema.safeParse({
      ...validRequest,
      amount: 10.5,
      phone_number: '237650000001',
      customer: { first_name: '', last_name: 'x'.repeat(101), email: 'nope' },
      surprise: true,
    });
    expect(result.success).toBe(false);
    const fields = toFieldErrors(result.error!.issues);
    expect(Object.keys(fields).sort()).toEqual(
      ['amount', 'customer.email', 'customer.first_name', 'customer.last_name', 'phone_number', 'surprise'].sort(),
    );
  });

  it('refuses a zero or negative amount', () => {
    expect(transactionRequestSchema.safeParse({ ...validRequest, amount: 0 }).success).toBe(false);
    expect(transactionRequestSchema.safeParse({ ...validRequest, amount: -5 }).success).toBe(false);
  });
});

describe('envelope', () => {
  it('never lets data and errors stand together', () => {
    expect(envelopeSchema.safeParse({ success: true, message: 'ok', data: {} }).success).toBe(true);
    expect(envelopeSchema.safeParse({ success: false, message: 'no', code: 'X', errors: [] }).success).toBe(true);
    expect(envelopeSchema.safeParse({ success: true, message: 'ok', data: {}, errors: [] }).success).toBe(false);
    expect(envelopeSchema.safeParse({ success: false, message: 'no', code: 'X', errors: [], data: {} }).success).toBe(false);
  });

  it('parses the full transaction shape', () => {
    const tx = {
      transaction_id: 'TE_abc', ref: '8d1c0a52-8d3b-4b1e-9a55-3e0f1c2d4b6a', external_id: null, type: 'payment',
      status: 'failed', amount: 5000, currency: 'XAF', description: null, account_name: 'Ada Ndiaye',
      account_number: '+2376****0001', account_type: 'mobile_money', reason: null, failed_code: 'TRANASACTION_CANCELLED',
      failed_at: '2026-11-21T10:00:02.000001Z', cancelled_at: null, completed_at: null,
      customer: { ref: 'c', first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com', metadata: {} },
      payment_method: { ref: 'm', name: 'Demo', code: 'SERVICE_DEMO' }, metadata: { order: 7 },
      created_at: '2026-11-21T10:00:00.000000Z', updated_at: '2026-11-21T10:00:02.000001Z',
      fee: 100, net_amount: 4900, fee_payer: 'merchant', application: { id: '1', ref: 'a', name: 'Shop' },
    };
    expect(fullTransactionSchema.parse(tx).net_amount).toBe(4900);
  });
});

describe('field errors', () => {
  it('reports fields named like Object.prototype members without throwing', () => {
    const body = JSON.parse('{"__proto__": {"x": 1}, "constructor": 1, "payment_method": "service_demo"}') as unknown;
    const result = transactionRequestSchema.safeParse(body);
    expect(result.success).toBe(false);
    const fields = toFieldErrors(result.error!.issues);
    expect(fields['__proto__']).toEqual(['is not a known field']);
    expect(fields['constructor']).toEqual(['is not a known field']);
    expect(JSON.parse(JSON.stringify(fields))).toHaveProperty('amount');
  });
});
