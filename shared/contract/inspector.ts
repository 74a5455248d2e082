/**
 * The local sandbox's request inspector: what the engine keeps about each public API request it
 * answered, and, for an authentication failure, why it failed. Shared by the engine (which builds
 * the records), its control API (`GET /_sandbox/requests`) and the console's Sandbox panel.
 *
 * No record ever holds a secret key: only the public key sent, the canonical string the engine
 * built (which contains no secret), and the length and SHA-256 of the payload bytes it signed.
 */
import type { Environment, KeyType } from './codes';

/** Which authentication check failed (auth.ts runs them in this order). */
export const AUTH_CHECKS = [
  'headers',
  'timestamp',
  'environment',
  'timestamp-window',
  'api-key',
  'key-environment',
  'signature',
  'ip-whitelist',
  'application',
  'live-mode',
] as const;
export type AuthCheck = (typeof AUTH_CHECKS)[number];

/**
 * The likely cause of a signature mismatch: the first alternative canonical string (or secret)
 * that reproduces the signature the client sent.
 * - `query-excluded`: a GET/HEAD signed without its query string;
 * - `query-included`: a request whose query the client put into the path part (`/v1/x?a=b`);
 * - `query-question-mark`: the query signed with its leading `?`;
 * - `body-reserialised`: the body signed in another serialisation of the same JSON (`variant` says which);
 * - `body-excluded`: a POST signed with an empty payload;
 * - `method-case`: the method signed in lowercase;
 * - `other-key-type`: signed with the secret of the application's other key type (payment/payout);
 * - `other-key`: signed with the secret of another key (`otherPublicKey`);
 * - `signature-encoding`: the right HMAC, sent as uppercase hex or base64 instead of lowercase hex;
 * - `unknown`: nothing tried matches: a wrong or outdated secret, or another difference in the string.
 */
export const SIGNATURE_CAUSES = [
  'query-excluded',
  'query-included',
  'query-question-mark',
  'body-reserialised',
  'body-excluded',
  'method-case',
  'other-key-type',
  'other-key',
  'signature-encoding',
  'unknown',
] as const;
export type SignatureCause = (typeof SIGNATURE_CAUSES)[number];

/** How a re-serialised body was written (for `body-reserialised`). */
export type BodyVariant = 'compact' | 'indented' | 'spaced' | 'php-escaped' | 'trailing-newline' | 'trimmed';

export interface SignatureDiagnosis {
  check: 'signature';
  /** The canonical string the engine built and verified against (payload shown up to 4 KiB). */
  canonical: string;
  canonicalTruncated: boolean;
  /** What the payload part is: the raw query (GET/HEAD) or the body bytes. */
  payloadKind: 'query' | 'body';
  payloadLength: number;
  payloadSha256: string;
  likelyCause: SignatureCause;
  bodyVariant: BodyVariant | null;
  /** For `other-key`: the public key whose secret signed it (never the secret). */
  otherPublicKey: string | null;
  /** Header timestamp minus engine time, in seconds (inside the window, or this check would not run). */
  skewSeconds: number;
}

export type AuthDiagnosis =
  | { check: 'headers'; missing: string[] }
  | { check: 'timestamp'; received: string }
  | { check: 'environment'; received: string }
  | { check: 'timestamp-window'; timestamp: number; serverTime: number; skewSeconds: number; toleranceSeconds: number }
  | {
      check: 'api-key';
      /** `secret-sent`: the Authorization header carried a secret key (not recorded) instead of the public key. */
      reason: 'unknown' | 'inactive' | 'wrong-type' | 'secret-sent';
      keyType: KeyType | null;
      requiredKeyType: KeyType;
    }
  | { check: 'key-environment'; keyEnvironment: Environment; headerEnvironment: Environment }
  | SignatureDiagnosis
  | { check: 'ip-whitelist'; address: string; whitelist: string[] }
  | { check: 'application'; applicationStatus: 'pending' | 'inactive' }
  | { check: 'live-mode' };

export interface InspectedRequest {
  /** `req_<seq>`. */
  id: string;
  /** Increases by one per recorded request since the engine started; the paging cursor. */
  seq: number;
  /** Engine time when the answer was sent, in the API's timestamp format. */
  at: string;
  method: string;
  path: string;
  /** The raw query string without `?` ('' when none). */
  query: string;
  status: number;
  /** The error code answered, or null for a success. */
  code: string | null;
  durationMs: number;
  /** The Authorization header as sent (a public key), or null when missing or when it was a secret key. */
  publicKey: string | null;
  /** The environment header when it was `sandbox` or `live`. */
  environment: Environment | null;
  /** The body's length in bytes. */
  bodyLength: number;
  /** The body as UTF-8 text, its first 4 KiB (secret keys in it replaced), to reproduce the request. */
  body: string;
  bodyTruncated: boolean;
  remoteAddress: string;
  diagnosis: AuthDiagnosis | null;
}

export interface InspectedPage {
  requests: InspectedRequest[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
  /** How many requests the engine keeps (0: the inspector is off). */
  capacity: number;
}
