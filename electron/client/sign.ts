/**
 * Building a signed request: the base URL, the key for an endpoint, the four authentication
 * headers and the exact body bytes. Pure (no I/O), so test/helpers/raw-request.ts signs with it too.
 */
import { DEFAULT_HEADER_WORD, HEADER_WORD_PATTERN, authHeaderNames, type KeyType } from '../../shared/contract/codes';
import { canonicalBytes, computeSignature, payloadFor } from '@paydesk/sandbox';
import type { ClientProfile } from './types';

export interface ParsedBaseUrl {
  /** `http://127.0.0.1:4010` */
  origin: string;
  /** `''` or `/gw` (no trailing slash): prepended to every endpoint path. */
  prefix: string;
  /** `127.0.0.1:4010`, for messages. */
  host: string;
}

/** Thrown for a profile the client cannot use; its message is safe to show (it names no secret). */
export class ProfileError extends Error {
  override name = 'ProfileError';
}

export function parseBaseUrl(baseUrl: string): ParsedBaseUrl {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ProfileError(`the base URL "${baseUrl}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProfileError(`the base URL must start with http:// or https://, not ${url.protocol}//`);
  }
  // Credentials in a URL would end up in messages and logs; a query or fragment has no meaning here.
  if (url.username || url.password) throw new ProfileError('the base URL must not contain a user name or password');
  if (url.search || url.hash) throw new ProfileError('the base URL must not contain a query (?) or fragment (#)');
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, ''), host: url.host };
}

export function headerWordOf(profile: Pick<ClientProfile, 'headerWord'>): string {
  const word = profile.headerWord ?? DEFAULT_HEADER_WORD;
  if (!HEADER_WORD_PATTERN.test(word)) {
    throw new ProfileError(`the header word "${word}" must be 1 to 32 letters or digits`);
  }
  return word;
}

/** The key pair an endpoint needs (spec 5.1): Payment for /v1/payments*, Payout for /v1/payouts* and /v1/balance. */
export function keyTypeForPath(path: string): KeyType {
  if (path === '/v1/payments' || path.startsWith('/v1/payments/')) return 'payment';
  if (path === '/v1/payouts' || path.startsWith('/v1/payouts/') || path === '/v1/balance') return 'payout';
  throw new RangeError(`no key type is known for the path ${path}`);
}

export function publicKeyFor(profile: ClientProfile, keyType: KeyType): string {
  switch (keyType) {
    case 'payment':
      return profile.paymentPublicKey;
    case 'payout':
      return profile.payoutPublicKey;
    default: {
      const unknownType: never = keyType;
      throw new RangeError(`unknown key type ${String(unknownType)}`);
    }
  }
}

/**
 * Percent-encodes one path segment. `.` and `..` are encoded too: an id like `..` (a valid
 * external_id) must stay a segment rather than be read as "parent directory" on the way.
 */
export function encodePathSegment(id: string): string {
  const encoded = encodeURIComponent(id);
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

export interface SignedRequest {
  headers: Record<string, string>;
  body: Buffer | undefined;
  canonical: string;
  /** The full request path that was signed: the base URL's prefix plus the endpoint path. */
  signedPath: string;
  /** Path and query as sent on the request line. */
  target: string;
  /** Absolute URL, for tests that send with their own HTTP code. */
  url: string;
}

/**
 * Headers and exact body bytes for a request. `path` is the endpoint path (`/v1/payments`); the
 * base URL's path prefix is prepended, and that full path is what gets signed. The body is
 * signed and returned as the same bytes, so what is sent is what was signed.
 */
export function buildSignedRequest(args: {
  profile: ClientProfile;
  publicKey: string;
  secretKey: string;
  method: string;
  path: string;
  query?: string;
  body?: string | Buffer;
  timestampSeconds: number;
}): SignedRequest {
  const base = parseBaseUrl(args.profile.baseUrl);
  const names = authHeaderNames(headerWordOf(args.profile));
  const method = args.method.toUpperCase();
  const signedPath = `${base.prefix}${args.path}`;
  const query = args.query ?? '';
  const body = args.body === undefined ? undefined : Buffer.isBuffer(args.body) ? args.body : Buffer.from(args.body, 'utf8');
  const timestamp = String(args.timestampSeconds);
  // GET signs the raw query exactly as sent; POST/PATCH the exact body bytes.
  const payload = payloadFor(method, query, body);
  const canonical = canonicalBytes({ publicKey: args.publicKey, timestamp, method, path: signedPath, payload });
  const headers: Record<string, string> = {
    [names.authorization]: args.publicKey,
    [names.timestamp]: timestamp,
    [names.signature]: computeSignature(args.secretKey, canonical),
    [names.environment]: args.profile.environment,
    Accept: 'application/json',
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const target = query === '' ? signedPath : `${signedPath}?${query}`;
  return { headers, body, canonical: canonical.toString('utf8'), signedPath, target, url: `${base.origin}${target}` };
}
