/**
 * Request signing (spec 5.3), with Node's crypto. Used by the client to sign and by the local
 * engine to verify; the renderer never signs.
 */
import { createHash, createHmac, createSecretKey, hash, timingSafeEqual, type KeyObject } from 'node:crypto';
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

/** SHA-256's block size: HMAC pads the key to it (RFC 2104). */
const BLOCK_BYTES = 64;
const DIGEST_BYTES = 32;
/** `crypto.hash` (one-shot digest) is in every Node the package supports; checked, not assumed, for other runtimes. */
const oneShotHash = typeof hash === 'function' ? hash : null;

/**
 * A secret key prepared for checking many requests: HMAC-SHA256 exactly as RFC 2104 defines it,
 * SHA-256((K ^ opad) || SHA-256((K ^ ipad) || message)), as two one-shot digests of the key's pads.
 * The same bytes as `createHmac`; it skips building an HMAC context per request, whose constructor
 * alone was 7 % of a retrieve's server CPU in a profile under load (bench:engine, 2026-11-25).
 */
export interface VerifyingKey {
  /** K ^ ipad (64 bytes). */
  readonly innerPad: Buffer;
  /** K ^ opad, then room for the inner digest (96 bytes; rewritten on each check). */
  readonly outer: Buffer;
  readonly secretKey: KeyObject;
}

export function verifyingKey(secretKey: string): VerifyingKey {
  let key = Buffer.from(secretKey, 'utf8');
  if (key.length > BLOCK_BYTES) key = createHash('sha256').update(key).digest();
  const innerPad = Buffer.alloc(BLOCK_BYTES, 0x36);
  const outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
  outer.fill(0x5c, 0, BLOCK_BYTES);
  for (let index = 0; index < key.length; index += 1) {
    innerPad[index] = (innerPad[index] as number) ^ (key[index] as number);
    outer[index] = (outer[index] as number) ^ (key[index] as number);
  }
  return { innerPad, outer, secretKey: hmacKey(secretKey) };
}

/** The HMAC-SHA256 of the canonical bytes of `parts`, as 32 bytes. */
function signatureBytes(key: VerifyingKey, parts: CanonicalParts): Buffer {
  if (oneShotHash === null) return createHmac('sha256', key.secretKey).update(canonicalBytes(parts)).digest();
  const head = canonicalHead(parts);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const payload = parts.payload;
  const payloadBytes = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
  const inner = Buffer.allocUnsafe(BLOCK_BYTES + headBytes + payloadBytes);
  key.innerPad.copy(inner, 0);
  inner.write(head, BLOCK_BYTES, 'utf8');
  if (typeof payload === 'string') inner.write(payload, BLOCK_BYTES + headBytes, 'utf8');
  else payload.copy(inner, BLOCK_BYTES + headBytes);
  (oneShotHash('sha256', inner, 'buffer') as Buffer).copy(key.outer, BLOCK_BYTES);
  return oneShotHash('sha256', key.outer, 'buffer') as Buffer;
}

/** `verifySignature` with a prepared key: the same answer for every input, the same constant-time comparison. */
export function verifySignatureWith(key: VerifyingKey, parts: CanonicalParts, received: string): boolean {
  const expected = signatureBytes(key, parts);
  const candidate = HEX_SIGNATURE.test(received) ? Buffer.from(received, 'hex') : null;
  if (candidate === null || candidate.length !== expected.length) {
    // Compare anyway so a malformed signature costs the same as a wrong value.
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
