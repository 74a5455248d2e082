/**
 * Request authentication (spec 5) and the checks that follow it, in one documented order.
 *
 * Check order (first failure wins):
 *  1. all four headers present and non-empty       401 AUTHENTICATION_HEADERS_REQUIRED
 *  2. timestamp is a positive integer               401 INVALID_TIMESTAMP
 *  3. environment is `sandbox` or `live`            400 INVALID_ENVIRONMENT
 *  4. timestamp within ±300 s of real time          401 TIMESTAMP_EXPIRED
 *  5. key exists, is active, has the path's type    401 INVALID_API_KEY
 *  6. key's environment equals the header's         401 API_KEY_ENV_MISMATCH
 *  7. signature matches                             401 INVALID_DIGITAL_SIGNATURE
 *  8. socket address is whitelisted (if a list)     403 FORBIDDEN
 *  9. application activated                         403 APPLICATION_NOT_ACTIVE
 * 10. application not deactivated                   403 APP_NOT_ACTIVE
 * 11. live requests: application approved for live  403 LIVE_MODE_NOT_ENABLED
 * 12. rate limit per key (see rate-limit.ts)        429 RATE_LIMIT_EXCEEDED
 * Cheap, key-independent checks come first; the key is looked up only for a fresh, well-formed
 * request; nothing about a key (its environment, its whitelist, its application) is revealed to a
 * caller who cannot sign with it, except the environment mismatch the spec orders before the
 * signature.
 */
import type Database from 'better-sqlite3';
import { authHeaderNames, type Environment, type KeyType } from '../../../../shared/contract';
import { normalizeAddress } from '../net/loopback';
import { payloadFor, verifySignatureWith, verifyingKey, type CanonicalParts, type VerifyingKey } from '../signing';
import { cachedConfig } from '../storage/config-cache';
import { ApiError } from '../api/errors';
import { statementsFor } from '../storage/statements';

export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** What the failing check saw, for the request inspector (inspector/diagnose.ts turns it into a diagnosis). */
export type AuthFailureDetail =
  | { check: 'headers'; missing: string[] }
  | { check: 'timestamp'; received: string }
  | { check: 'environment'; received: string }
  | { check: 'timestamp-window'; timestamp: number; serverTime: number }
  | { check: 'api-key'; reason: 'unknown' | 'inactive' | 'wrong-type'; keyType: KeyType | null; requiredKeyType: KeyType }
  | { check: 'key-environment'; keyEnvironment: Environment; headerEnvironment: Environment }
  | { check: 'signature'; canonical: CanonicalParts; received: string; appId: string; environment: Environment; keyType: KeyType; serverTime: number }
  | { check: 'ip-whitelist'; address: string; whitelist: string[] }
  | { check: 'application'; applicationStatus: 'pending' | 'inactive' }
  | { check: 'live-mode' };

/** An authentication refusal: the API error the client gets, plus what the failing check saw. */
export class AuthFailure extends ApiError {
  constructor(
    code: ConstructorParameters<typeof ApiError>[0],
    message: string,
    readonly detail: AuthFailureDetail,
  ) {
    super(code, message);
  }
}

export interface Authenticated {
  publicKey: string;
  appId: string;
  appRef: string;
  appName: string;
  currency: string;
  environment: Environment;
  keyType: KeyType;
}

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  method: string;
  /** The path exactly as sent (no query). */
  path: string;
  /** The raw query string without `?`. */
  query: string;
  body: Buffer | undefined;
  remoteAddress: string | undefined;
  requiredKeyType: KeyType;
}

interface KeyRow {
  public_key: string;
  secret_key: string;
  app_id: string;
  environment: Environment;
  type: KeyType;
  active: number;
  ip_whitelist: string;
  app_ref: string;
  app_name: string;
  app_status: 'active' | 'inactive' | 'pending';
  live_approved: number;
  currency: string;
}

/** A key row as cached: the whitelist parsed once, the secret ready for HMAC. */
interface CachedKey extends KeyRow {
  whitelist: readonly string[];
  verifying: VerifyingKey;
}

const statements = statementsFor((db) => ({
  key: db.prepare(`
    SELECT k.*, a.ref AS app_ref, a.name AS app_name, a.status AS app_status, a.live_approved, a.currency
    FROM api_keys k JOIN applications a ON a.id = k.app_id WHERE k.public_key = ?`),
}));

const POSITIVE_INTEGER = /^[1-9]\d{0,15}$/;

/** `lowerName`: the header's name in lowercase, as Node keys it. */
function header(headers: AuthRequest['headers'], lowerName: string): string | undefined {
  const value = headers[lowerName];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}


type HeaderNames = ReturnType<typeof authHeaderNames>;

/** The header names per header word, with their lowercase forms (Node's keys), built once. */
const headerNamesByWord = new Map<string, { names: HeaderNames; lower: Record<keyof HeaderNames, string> }>();

function headerNamesFor(word: string): { names: HeaderNames; lower: Record<keyof HeaderNames, string> } {
  let found = headerNamesByWord.get(word);
  if (found === undefined) {
    const names = authHeaderNames(word);
    const lower = {
      authorization: names.authorization.toLowerCase(),
      timestamp: names.timestamp.toLowerCase(),
      signature: names.signature.toLowerCase(),
      environment: names.environment.toLowerCase(),
    };
    found = { names, lower };
    headerNamesByWord.set(word, found);
  }
  return found;
}

/** `nowSeconds`: real (wall) time in seconds; the window is inclusive (exactly ±300 s is accepted). */
export function authenticate(db: Database.Database, nowSeconds: number, request: AuthRequest, headerWord: string): Authenticated {
  const { names, lower } = headerNamesFor(headerWord);
  const publicKey = header(request.headers, lower.authorization);
  const timestamp = header(request.headers, lower.timestamp);
  const signature = header(request.headers, lower.signature);
  const environment = header(request.headers, lower.environment);
  if (publicKey === undefined || timestamp === undefined || signature === undefined || environment === undefined) {
    const missing: string[] = [];
    if (publicKey === undefined) missing.push(names.authorization);
    if (timestamp === undefined) missing.push(names.timestamp);
    if (signature === undefined) missing.push(names.signature);
    if (environment === undefined) missing.push(names.environment);
    throw new AuthFailure('AUTHENTICATION_HEADERS_REQUIRED', `Missing authentication headers: ${missing.join(', ')}.`, { check: 'headers', missing });
  }
  if (!POSITIVE_INTEGER.test(timestamp)) {
    throw new AuthFailure('INVALID_TIMESTAMP', `${names.timestamp} must be the Unix time in seconds, a positive integer.`, { check: 'timestamp', received: timestamp });
  }
  if (environment !== 'sandbox' && environment !== 'live') {
    throw new AuthFailure('INVALID_ENVIRONMENT', `${names.environment} must be sandbox or live.`, { check: 'environment', received: environment });
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw new AuthFailure('TIMESTAMP_EXPIRED', `${names.timestamp} is more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from server time.`, {
      check: 'timestamp-window',
      timestamp: Number(timestamp),
      serverTime: nowSeconds,
    });
  }
  const key = cachedConfig<CachedKey>(db, `key:${publicKey}`, () => {
    const row = statements(db).key.get(publicKey) as KeyRow | undefined;
    return row === undefined ? undefined : { ...row, whitelist: JSON.parse(row.ip_whitelist) as string[], verifying: verifyingKey(row.secret_key) };
  });
  if (!key || key.active !== 1 || key.type !== request.requiredKeyType) {
    throw new AuthFailure('INVALID_API_KEY', `The API key is invalid, inactive, or not a ${request.requiredKeyType} key.`, {
      check: 'api-key',
      reason: !key ? 'unknown' : key.active !== 1 ? 'inactive' : 'wrong-type',
      keyType: key?.type ?? null,
      requiredKeyType: request.requiredKeyType,
    });
  }
  if (key.environment !== environment) {
    throw new AuthFailure('API_KEY_ENV_MISMATCH', `The API key belongs to the ${key.environment} environment, not ${environment}.`, {
      check: 'key-environment',
      keyEnvironment: key.environment,
      headerEnvironment: environment,
    });
  }
  const payload = payloadFor(request.method, request.query, request.body);
  const canonical = { publicKey, timestamp, method: request.method, path: request.path, payload };
  if (!verifySignatureWith(key.verifying, canonical, signature)) {
    throw new AuthFailure('INVALID_DIGITAL_SIGNATURE', 'The request signature does not match.', {
      check: 'signature',
      canonical,
      received: signature,
      appId: key.app_id,
      environment,
      keyType: key.type,
      serverTime: nowSeconds,
    });
  }
  const whitelist = key.whitelist;
  if (whitelist.length > 0 && !whitelist.includes(normalizeAddress(request.remoteAddress))) {
    throw new AuthFailure('FORBIDDEN', 'Requests from this IP address are not allowed for this key.', {
      check: 'ip-whitelist',
      address: normalizeAddress(request.remoteAddress),
      whitelist: [...whitelist],
    });
  }
  if (key.app_status === 'pending') {
    throw new AuthFailure('APPLICATION_NOT_ACTIVE', 'The application has not been activated yet.', { check: 'application', applicationStatus: 'pending' });
  }
  if (key.app_status === 'inactive') {
    throw new AuthFailure('APP_NOT_ACTIVE', 'The application tied to this key is inactive.', { check: 'application', applicationStatus: 'inactive' });
  }
  if (environment === 'live' && key.live_approved !== 1) {
    throw new AuthFailure('LIVE_MODE_NOT_ENABLED', 'The application is not approved for live transactions.', { check: 'live-mode' });
  }
  return {
    publicKey,
    appId: key.app_id,
    appRef: key.app_ref,
    appName: key.app_name,
    currency: key.currency,
    environment,
    keyType: key.type,
  };
}

