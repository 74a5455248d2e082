/**
 * The engine's prepared HMAC (signing.ts, `verifyingKey`) accepts exactly the signatures Node's
 * `createHmac('sha256', secret)` makes over the canonical bytes, for secrets shorter than, equal to
 * and longer than SHA-256's 64-byte block (a longer one is hashed first, RFC 2104), for a body as
 * bytes and a query as text, with non-ASCII text; and refuses one differing digit, upper case, and
 * a signature cut short.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, verifySignatureWith, verifyingKey, type CanonicalParts } from '../../packages/sandbox/src/signing';

const SECRETS = ['s', 'sk_sandbox_payment_0123456789abcdefghij', 'x'.repeat(64), 'y'.repeat(65), `sk_live_payout_${'é'.repeat(90)}`];
const PARTS: CanonicalParts[] = [
  { publicKey: 'pk_sandbox_payment_abc', timestamp: '1764097000', method: 'POST', path: '/v1/payments', payload: Buffer.from('{"amount":5000,"description":"Café ☕"}', 'utf8') },
  { publicKey: 'pk_sandbox_payment_abc', timestamp: '1764097000', method: 'get', path: '/v1/payments/TE_x', payload: 'identifier_type=external_id&x=é' },
  { publicKey: 'pk', timestamp: '1', method: 'GET', path: '/v1/balance', payload: '' },
];

function nodeHmac(secret: string, parts: CanonicalParts): string {
  return createHmac('sha256', secret).update(canonicalBytes(parts)).digest('hex');
}

describe('verifyingKey', () => {
  for (const secret of SECRETS) {
    it(`accepts createHmac's signature and nothing else, secret of ${Buffer.byteLength(secret)} bytes`, () => {
      const key = verifyingKey(secret);
      for (const parts of PARTS) {
        const right = nodeHmac(secret, parts);
        expect(verifySignatureWith(key, parts, right)).toBe(true);
        const lastDigit = right.slice(-1) === '0' ? '1' : '0';
        expect(verifySignatureWith(key, parts, right.slice(0, -1) + lastDigit)).toBe(false);
        expect(verifySignatureWith(key, parts, right.toUpperCase())).toBe(right === right.toUpperCase());
        expect(verifySignatureWith(key, parts, right.slice(0, 62))).toBe(false);
        expect(verifySignatureWith(key, parts, `${right}00`)).toBe(false);
        expect(verifySignatureWith(key, { ...parts, timestamp: `${parts.timestamp}0` }, right)).toBe(false);
      }
    });
  }
});
