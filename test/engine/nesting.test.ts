/**
 * Deeply nested JSON (well under the 64 KiB body limit) is bad input: a 4xx on the field, never a
 * 500 from a recursive serialisation, on the public API and the control API alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, transactionRequestSchema } from '../../shared/contract';
import { control } from '../engine-control/control';
import { paymentBody, startTestEngine, type TestEngine } from './helpers';
import { sendRaw } from '../helpers/raw-request';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ rateLimit: { perKeyPerMinute: 0 } });
});
afterAll(async () => {
  await t.stop();
});

/** `{"a":{"a":...{"a":1}}}` with `levels` objects. */
function nestedObjectText(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** A create body whose field at `path` is replaced by raw JSON text. */
function bodyWith(field: 'metadata' | 'customer.metadata', rawValue: string): string {
  const marker = '"__RAW__"';
  const body = paymentBody();
  if (field === 'metadata') return JSON.stringify({ ...body, metadata: '__RAW__' }).replace(marker, rawValue);
  return JSON.stringify({ ...body, metadata: undefined, customer: { ...body.customer, metadata: '__RAW__' } }).replace(marker, rawValue);
}

async function create(rawBody: string) {
  return sendRaw(t.signer, { method: 'POST', path: '/v1/payments', keyType: 'payment', rawBody });
}

describe('nesting depth of metadata', () => {
  for (const field of ['metadata', 'customer.metadata'] as const) {
    it(`answers 422 on ${field} nested 5,000 levels deep (30 KB, under the body limit)`, async () => {
      const rawBody = bodyWith(field, nestedObjectText(5000));
      expect(Buffer.byteLength(rawBody)).toBeLessThan(64 * 1024);
      const result = await create(rawBody);
      expect(result).toMatchObject({ kind: 'api-error', httpStatus: 422, code: 'VALIDATION_ERROR' });
      expect(result.kind === 'api-error' && result.fields?.[field]).toEqual([`must be nested at most ${LIMITS.metadataMaxDepth} levels deep`]);
    });
  }

  it('answers 422 on metadata nested with arrays 30,000 levels deep, the most 64 KiB can hold', async () => {
    const rawBody = bodyWith('metadata', `{"list":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
    const result = await create(rawBody);
    expect(result).toMatchObject({ kind: 'api-error', httpStatus: 422, code: 'VALIDATION_ERROR' });
    expect(result.kind === 'api-error' && Object.keys(result.fields ?? {})).toEqual(['metadata']);
  });

  it('accepts metadata exactly at the depth limit and refuses one level more', async () => {
    const atLimit = await create(bodyWith('metadata', nestedObjectText(LIMITS.metadataMaxDepth)));
    expect(atLimit).toMatchObject({ kind: 'success' });
    const overLimit = await create(bodyWith('metadata', nestedObjectText(LIMITS.metadataMaxDepth + 1)));
    expect(overLimit).toMatchObject({ kind: 'api-error', httpStatus: 422 });
  });

  it('the shared schema (used by the console forms too) refuses deep metadata without throwing', () => {
    const deep = JSON.parse(nestedObjectText(100_000)) as Record<string, unknown>;
    const result = transactionRequestSchema.safeParse({ ...paymentBody(), metadata: deep });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['metadata']);
  });

  it('answers 400 or 422, never 500, for a deep body anywhere in the request', async () => {
    const deepArray = `${'['.repeat(32_000)}${']'.repeat(32_000)}`;
    for (const rawBody of [deepArray, `{"extra":${deepArray}}`, `{"customer":${deepArray}}`, `{"amount":${nestedObjectText(10_000)}}`]) {
      const result = await create(rawBody);
      expect(result.kind === 'api-error' && [400, 422].includes(result.httpStatus), JSON.stringify(result)).toBe(true);
    }
  });
});

describe('nesting depth on the control API', () => {
  it('answers 400 or 422, never 500, for deep bodies', async () => {
    const deepArray = `${'['.repeat(32_000)}${']'.repeat(32_000)}`;
    for (const [method, path] of [
      ['PUT', '/settle-ms'],
      ['POST', '/applications'],
      ['POST', '/clock/advance'],
    ] as const) {
      for (const body of [deepArray, `{"settleMs":${deepArray}}`, `{"name":"x","extra":${nestedObjectText(10_000)}}`]) {
        const answer = await control(t.engine, method, path, body);
        expect([400, 422], `${method} ${path} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`).toContain(answer.status);
        expect(answer.body.success).toBe(false);
      }
    }
  });
});
