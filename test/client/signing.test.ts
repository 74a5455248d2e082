import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalString, hmacKey, signParts, verifySignature, splitTarget, payloadFor } from '@paydesk/sandbox';

interface Vector {
  name: string;
  secretKey: string;
  publicKey: string;
  timestamp: string;
  method: string;
  path: string;
  query: string;
  body: string;
  canonical: string;
  signature: string;
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/signing-vectors.json', import.meta.url), 'utf8')) as {
  how_made: string;
  vectors: Vector[];
};

describe('signing vectors made with openssl', () => {
  it('has at least 10 vectors and says how they were made', () => {
    expect(fixture.vectors.length).toBeGreaterThanOrEqual(10);
    expect(fixture.how_made).toMatch(/openssl/);
  });

  for (const vector of fixture.vectors) {
    describe(vector.name, () => {
      const parts = {
        publicKey: vector.publicKey,
        timestamp: vector.timestamp,
        method: vector.method,
        path: vector.path,
        payload: payloadFor(vector.method, vector.query, vector.body),
      };
      it('builds the canonical string byte for byte', () => {
        expect(canonicalString(parts)).toBe(vector.canonical);
      });
      it('computes the expected lowercase hex signature', () => {
        expect(signParts(vector.secretKey, parts)).toBe(vector.signature);
      });
      it('verifies the expected signature and refuses altered ones', () => {
        expect(verifySignature(vector.secretKey, parts, vector.signature)).toBe(true);
        const flipped = (vector.signature[0] === 'a' ? 'b' : 'a') + vector.signature.slice(1);
        expect(verifySignature(vector.secretKey, parts, flipped)).toBe(false);
        expect(verifySignature(vector.secretKey, parts, vector.signature.toUpperCase())).toBe(false);
        expect(verifySignature(vector.secretKey, parts, vector.signature.slice(0, 63))).toBe(false);
        expect(verifySignature(vector.secretKey + 'x', parts, vector.signature)).toBe(false);
        // The engine verifies with a cached key object: same answers.
        expect(verifySignature(hmacKey(vector.secretKey), parts, vector.signature)).toBe(true);
        expect(verifySignature(hmacKey(vector.secretKey), parts, flipped)).toBe(false);
        expect(verifySignature(hmacKey(vector.secretKey + 'x'), parts, vector.signature)).toBe(false);
      });
    });
  }
});

describe('request targets', () => {
  it('splits the path from the raw query without decoding either', () => {
    expect(splitTarget('/v1/payments/a%2Fb?identifier_type=external_id&x=a%20b')).toEqual({
      path: '/v1/payments/a%2Fb',
      query: 'identifier_type=external_id&x=a%20b',
    });
    expect(splitTarget('/v1/payments')).toEqual({ path: '/v1/payments', query: '' });
  });

  it('signs the query for GET and the body for POST', () => {
    expect(payloadFor('get', 'a=1', 'ignored')).toBe('a=1');
    expect(payloadFor('POST', 'a=1', '{"x":1}')).toBe('{"x":1}');
    expect(payloadFor('POST', '', undefined)).toBe('');
  });
});
