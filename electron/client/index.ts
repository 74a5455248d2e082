/**
 * The signing HTTP client for the payment/payout API (issue 2), on undici.
 */
export type {
  ClientOptions,
  ClientProfile,
  ClientResult,
  ClientResultKind,
  PaydeskClient,
  SecretSource,
} from './types';
export { createClient, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUTS } from './client';
export {
  buildSignedRequest,
  encodePathSegment,
  keyTypeForPath,
  parseBaseUrl,
  ProfileError,
  publicKeyFor,
  type ParsedBaseUrl,
  type SignedRequest,
} from './sign';
export { classifyFailure, type TransportFailure } from './transport';
export { parseRetryAfter } from './response';
export { backoffDelayMs, DEFAULT_RETRY, nextDelayMs, type RetryPolicy } from './retry';
