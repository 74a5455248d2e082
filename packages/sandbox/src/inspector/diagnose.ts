/**
 * Turns what a failing authentication check saw into the diagnosis the inspector shows. For a
 * signature mismatch the engine knows the key's secret, so it tries the canonical strings (and
 * secrets) clients most often get wrong, and names the first one that reproduces the signature
 * sent: that is the likely cause. Secrets are used here and never leave this module.
 */
import { createHash, type KeyObject } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AuthDiagnosis, BodyVariant, SignatureCause, SignatureDiagnosis } from '../../../../shared/contract';
import { canonicalBytes, canonicalString, computeSignature, hmacKey, payloadSourceFor, type CanonicalParts } from '../signing';
import { TIMESTAMP_TOLERANCE_SECONDS, type AuthFailureDetail } from '../auth/auth';
import { cachedConfig } from '../storage/config-cache';

/** The canonical string is shown with at most this much payload. */
const CANONICAL_PAYLOAD_SHOWN = 4096;
/** Other keys whose secret is tried as-is (a sandbox has a handful; this bounds a large seed). */
const OTHER_KEYS_TRIED = 200;

interface KeySecret {
  publicKey: string;
  appId: string;
  environment: string;
  type: string;
  secret: KeyObject;
}

/** Every key's secret, for the alternatives; cached like the key rows (cleared on any key write). */
function keySecrets(db: Database.Database): KeySecret[] {
  return (
    cachedConfig<KeySecret[]>(db, 'inspector:key-secrets', () =>
      (db.prepare('SELECT public_key, secret_key, app_id, environment, type FROM api_keys ORDER BY rowid').all() as { public_key: string; secret_key: string; app_id: string; environment: string; type: string }[]).map(
        (row) => ({ publicKey: row.public_key, appId: row.app_id, environment: row.environment, type: row.type, secret: hmacKey(row.secret_key) }),
      ),
    ) ?? []
  );
}

/** Every secret key text, to scrub from anything recorded. */
export function knownSecrets(db: Database.Database): readonly string[] {
  return cachedConfig<string[]>(db, 'inspector:secret-texts', () => (db.prepare('SELECT secret_key FROM api_keys').pluck().all() as string[])) ?? [];
}

/** Python's `json.dumps` default separators (`, ` and `: `), outside strings. */
function spacedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/"(?:[^"\\]|\\.)*"|[,:]/g, (token) => (token === ',' ? ', ' : token === ':' ? ': ' : token));
}

/** Non-ASCII as `\uXXXX` (PHP's and Python's default). */
function asciiOnly(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** PHP's `json_encode` defaults: `/` escaped, non-ASCII as `\uXXXX`. */
function phpJson(value: unknown): string {
  return asciiOnly(JSON.stringify(value).replace(/\//g, '\\/'));
}

/** Other byte forms of the same JSON body a client may have signed. */
function bodyVariants(body: Buffer): { variant: BodyVariant; bytes: Buffer }[] {
  const text = body.toString('utf8');
  // Whitespace around the body first: a body sent with a trailing newline and signed without it
  // re-serialises to the same compact text too, but "trimmed" is what the client actually did.
  const variants: { variant: BodyVariant; bytes: string }[] = [{ variant: 'trailing-newline', bytes: `${text}\n` }];
  if (text.trim() !== text) variants.push({ variant: 'trimmed', bytes: text.trim() });
  let parsed: unknown;
  let isJson: boolean;
  try {
    parsed = JSON.parse(text);
    isJson = true;
  } catch {
    isJson = false;
  }
  if (isJson) {
    variants.push({ variant: 'compact', bytes: JSON.stringify(parsed) });
    variants.push({ variant: 'indented', bytes: JSON.stringify(parsed, null, 2) });
    variants.push({ variant: 'indented', bytes: JSON.stringify(parsed, null, 4) });
    variants.push({ variant: 'spaced', bytes: asciiOnly(spacedJson(parsed)) });
    variants.push({ variant: 'spaced', bytes: spacedJson(parsed) });
    variants.push({ variant: 'php-escaped', bytes: phpJson(parsed) });
  }
  const seen = new Set<string>([text]);
  return variants.filter((candidate) => !seen.has(candidate.bytes) && seen.add(candidate.bytes)).map(({ variant, bytes }) => ({ variant, bytes: Buffer.from(bytes, 'utf8') }));
}

interface Alternative {
  cause: SignatureCause;
  parts: CanonicalParts;
  bodyVariant?: BodyVariant;
}

/** The canonical strings to try with a secret, the exact one first. */
function alternatives(parts: CanonicalParts, payloadKind: 'query' | 'body', query: string, body: Buffer): Alternative[] {
  const list: Alternative[] = [];
  if (payloadKind === 'query') {
    if (query !== '') {
      list.push({ cause: 'query-excluded', parts: { ...parts, payload: '' } });
      list.push({ cause: 'query-included', parts: { ...parts, path: `${parts.path}?${query}` } });
      list.push({ cause: 'query-included', parts: { ...parts, path: `${parts.path}?${query}`, payload: '' } });
      list.push({ cause: 'query-question-mark', parts: { ...parts, payload: `?${query}` } });
    }
  } else {
    if (query !== '') list.push({ cause: 'query-included', parts: { ...parts, path: `${parts.path}?${query}` } });
    if (body.length > 0) list.push({ cause: 'body-excluded', parts: { ...parts, payload: '' } });
    for (const { variant, bytes } of bodyVariants(body)) list.push({ cause: 'body-reserialised', parts: { ...parts, payload: bytes }, bodyVariant: variant });
  }
  return list;
}

/** Signs `parts` like a client that sends the method as given (no upper-casing). */
function signLowercaseMethod(secret: KeyObject, parts: CanonicalParts): string {
  return computeSignature(secret, canonicalBytes({ ...parts, method: parts.method.toLowerCase() }, { methodAsSent: true }));
}

function findCause(db: Database.Database, detail: Extract<AuthFailureDetail, { check: 'signature' }>, query: string): Pick<SignatureDiagnosis, 'likelyCause' | 'bodyVariant' | 'otherPublicKey'> {
  const parts = detail.canonical;
  const payloadKind = payloadSourceFor(parts.method);
  const body = Buffer.isBuffer(parts.payload) ? parts.payload : Buffer.from(parts.payload, 'utf8');
  const received = detail.received;
  const keys = keySecrets(db);
  const own = keys.find((key) => key.publicKey === parts.publicKey);
  const found = (cause: SignatureCause, extra: Partial<Pick<SignatureDiagnosis, 'bodyVariant' | 'otherPublicKey'>> = {}) => ({
    likelyCause: cause,
    bodyVariant: extra.bodyVariant ?? null,
    otherPublicKey: extra.otherPublicKey ?? null,
  });

  if (own) {
    const expected = computeSignature(own.secret, canonicalBytes(parts));
    if (received.toLowerCase() === expected || received === Buffer.from(expected, 'hex').toString('base64')) return found('signature-encoding');
    if (signLowercaseMethod(own.secret, parts) === received) return found('method-case');
    for (const alternative of alternatives(parts, payloadKind, query, body)) {
      if (computeSignature(own.secret, canonicalBytes(alternative.parts)) === received) return found(alternative.cause, { bodyVariant: alternative.bodyVariant });
    }
  }
  const sibling = keys.find((key) => key.appId === detail.appId && key.environment === detail.environment && key.type !== detail.keyType);
  if (sibling && computeSignature(sibling.secret, canonicalBytes(parts)) === received) return found('other-key-type', { otherPublicKey: sibling.publicKey });
  for (const other of keys.slice(0, OTHER_KEYS_TRIED)) {
    if (other.publicKey === parts.publicKey) continue;
    if (computeSignature(other.secret, canonicalBytes(parts)) === received) {
      return found(other === sibling ? 'other-key-type' : 'other-key', { otherPublicKey: other.publicKey });
    }
  }
  return found('unknown');
}

function signatureDiagnosis(db: Database.Database, detail: Extract<AuthFailureDetail, { check: 'signature' }>, query: string): SignatureDiagnosis {
  const parts = detail.canonical;
  const payload = Buffer.isBuffer(parts.payload) ? parts.payload : Buffer.from(parts.payload, 'utf8');
  const shown = payload.length > CANONICAL_PAYLOAD_SHOWN ? payload.subarray(0, CANONICAL_PAYLOAD_SHOWN) : payload;
  const payloadKind = payloadSourceFor(parts.method);
  return {
    check: 'signature',
    canonical: canonicalString({ ...parts, payload: shown }),
    canonicalTruncated: shown.length < payload.length,
    payloadKind,
    payloadLength: payload.length,
    payloadSha256: createHash('sha256').update(payload).digest('hex'),
    ...findCause(db, detail, query),
    skewSeconds: Number(parts.timestamp) - detail.serverTime,
  };
}

/** The diagnosis for an authentication failure; `query` is the raw query string sent. */
export function diagnose(db: Database.Database, detail: AuthFailureDetail, query: string): AuthDiagnosis {
  switch (detail.check) {
    case 'timestamp-window':
      return { ...detail, skewSeconds: detail.timestamp - detail.serverTime, toleranceSeconds: TIMESTAMP_TOLERANCE_SECONDS };
    case 'signature':
      return signatureDiagnosis(db, detail, query);
    case 'timestamp':
    case 'environment':
      return { check: detail.check, received: detail.received.slice(0, 100) };
    case 'headers':
    case 'api-key':
    case 'key-environment':
    case 'ip-whitelist':
    case 'application':
    case 'live-mode':
      return detail;
    default: {
      const unknown: never = detail;
      throw new Error(`unknown auth check ${JSON.stringify(unknown)}`);
    }
  }
}
