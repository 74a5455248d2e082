/**
 * Requests the production client never sends, for the tests of the engine's checks: a raw body,
 * headers overridden or left out, PATCH. Signed by the client's own `buildSignedRequest` (the one
 * canonical-string rule of shared/contract/canonical.ts and packages/sandbox/src/signing.ts), then altered;
 * the answer is read by the client's own `interpretResponse`, so tests assert the same
 * `ClientResult` the console would see. One try, no retries.
 */
import { request as undiciRequest } from 'undici';
import { buildSignedRequest, publicKeyFor, type ClientProfile, type ClientResult, type SecretSource } from '../../electron/client';
import { interpretResponse } from '../../electron/client/response';
import type { KeyType } from '../../shared/contract/codes';

/** Who signs: the profile's keys, their secrets and the clock the timestamp header is read from. */
export interface RawSigner {
  profile: ClientProfile;
  secretFor: SecretSource;
  /** ms since epoch. */
  now: () => number;
}

export interface RawRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** Endpoint path (`/v1/payments/TE_1`), appended to the base URL's path prefix. */
  path: string;
  /** Raw query string, no `?`; sent and signed exactly as given. */
  query?: string;
  /** Serialised once with JSON.stringify; those bytes are signed and sent. */
  body?: unknown;
  /** Sent exactly (wins over `body`), for malformed bodies. */
  rawBody?: string | Buffer;
  keyType: KeyType;
  /** Extra or overriding headers (names case-insensitive). */
  headers?: Record<string, string>;
  /** Headers to leave out (names case-insensitive): e.g. a missing signature. */
  omitHeaders?: string[];
}

/** Signs the request as the client would, applies the overrides and omissions, sends it once. */
export async function sendRaw(signer: RawSigner, raw: RawRequest): Promise<ClientResult<unknown>> {
  const publicKey = publicKeyFor(signer.profile, raw.keyType);
  const body = raw.rawBody ?? (raw.body === undefined ? undefined : JSON.stringify(raw.body));
  const signed = buildSignedRequest({
    profile: signer.profile,
    publicKey,
    secretKey: await signer.secretFor(publicKey),
    method: raw.method,
    path: raw.path,
    query: raw.query ?? '',
    body,
    timestampSeconds: Math.floor(signer.now() / 1000),
  });
  const answer = await undiciRequest(signed.url, {
    method: raw.method,
    headers: adjustHeaders(signed.headers, raw.headers, raw.omitHeaders),
    body: signed.body,
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return interpretResponse(answer.statusCode, answer.headers, bytes, null, signer.now());
}

/** The headers with overrides applied and omissions dropped, names matched case-insensitively. */
export function adjustHeaders(
  headers: Record<string, string>,
  overrides: Record<string, string> = {},
  omit: readonly string[] = [],
): Record<string, string> {
  const omitted = new Set(omit.map((name) => name.toLowerCase()));
  const replaced = new Set(Object.keys(overrides).map((name) => name.toLowerCase()));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!omitted.has(name.toLowerCase()) && !replaced.has(name.toLowerCase())) result[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (!omitted.has(name.toLowerCase())) result[name] = value;
  }
  return result;
}
