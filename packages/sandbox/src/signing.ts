/**
 * Request signing (spec 5.3), with Node's crypto. Used by the client to sign and by the local
 * engine to verify; the renderer never signs.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { canonicalHead } from '../../../shared/contract/canonical';

// The payload rule (which part is signed for which method) lives in shared/contract/canonical.ts.
export { payloadFor, payloadSourceFor } from '../../../shared/contract/canonical';

export interface CanonicalParts {
  publicKey: string;
  timestamp: string;
  method: string;
  /** Path only, exactly as sent: no host, no query. */
  path: string;
  /** GET: the raw query string without `?`; POST/PATCH: the exact body text; else empty. */
  payload: string | Buffer;
}

/** `{publicKey}.{timestamp}.{METHOD}.{path}.{payload}` as bytes (the payload stays byte-exact). */
export function canonicalBytes(parts: CanonicalParts, options: { methodAsSent?: boolean } = {}): Buffer {
  const head = canonicalHead(parts, options);
  const payload = typeof parts.payload === 'string' ? Buffer.from(parts.payload, 'utf8') : parts.payload;
  return Buffer.concat([Buffer.from(head, 'utf8'), payload]);
}

export function canonicalString(parts: CanonicalParts): string {
  return canonicalBytes(parts).toString('utf8');
}

/**
 * The secret key as a crypto key object, for a verifier that checks many requests with one key:
 * HMAC with a key object skips converting the key text on every call (about 1 µs of 4).
 */
export function hmacKey(secretKey: string): KeyObject {
  return createSecretKey(Buffer.from(secretKey, 'utf8'));
}

/** Lowercase hex HMAC-SHA256 of the canonical bytes with the secret key. */
export function computeSignature(secretKey: string | KeyObject, canonical: Buffer | string): string {
  return createHmac('sha256', secretKey).update(canonical).digest('hex');
}

export function signParts(secretKey: string | KeyObject, parts: CanonicalParts): string {
  return computeSignature(secretKey, canonicalBytes(parts));
}

const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

/**
 * Constant-time check of a received signature. Only lowercase hex of the right length can match,
 * and the comparison does not stop at the first differing byte.
 */
export function verifySignature(secretKey: string | KeyObject, parts: CanonicalParts, received: string): boolean {
  const expected = Buffer.from(signParts(secretKey, parts), 'utf8');
  const candidate = Buffer.from(HEX_SIGNATURE.test(received) ? received : '', 'utf8');
  if (candidate.length !== expected.length) {
    // Compare anyway so a wrong length costs the same as a wrong value.
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, candidate);
}

/** Splits a request target (`/v1/payments/x?identifier_type=...`) into path and raw query. */
export function splitTarget(target: string): { path: string; query: string } {
  const index = target.indexOf('?');
  return index === -1 ? { path: target, query: '' } : { path: target.slice(0, index), query: target.slice(index + 1) };
}
