/**
 * Every API error code, with its HTTP status, in one table.
 *
 * The engine answers with these and the console explains them; `origin` tells which codes the
 * spec names (sections 5.4 and 7.3) and which are local decisions for cases the spec leaves open
 * (see docs/decisions/codes-spec-does-not-name-shared.md).
 */
export const ERROR_CODES = {
  // Authentication (spec 5.4).
  AUTHENTICATION_HEADERS_REQUIRED: { http: 401, origin: 'spec', condition: 'one of the four authentication headers is missing' },
  INVALID_TIMESTAMP: { http: 401, origin: 'spec', condition: 'the timestamp header is not a positive integer' },
  INVALID_ENVIRONMENT: { http: 400, origin: 'spec', condition: 'the environment header is not sandbox or live' },
  TIMESTAMP_EXPIRED: { http: 401, origin: 'spec', condition: 'the timestamp is more than 5 minutes from server time' },
  INVALID_API_KEY: { http: 401, origin: 'spec', condition: 'the key is unknown, disabled, inactive or of the wrong type' },
  API_KEY_ENV_MISMATCH: { http: 401, origin: 'spec', condition: 'the key belongs to the other environment' },
  INVALID_DIGITAL_SIGNATURE: { http: 401, origin: 'spec', condition: 'the signature does not match' },
  FORBIDDEN: { http: 403, origin: 'spec', condition: 'the request IP is not whitelisted for the key' },
  // Application (spec 7.3).
  APPLICATION_NOT_ACTIVE: { http: 403, origin: 'spec', condition: 'the application exists but is not activated' },
  APP_NOT_ACTIVE: { http: 403, origin: 'spec', condition: 'the application tied to the key is inactive' },
  LIVE_MODE_NOT_ENABLED: { http: 403, origin: 'spec', condition: 'the application is not approved for live transactions' },
  ENVIRONMENT_CONTEXT_NOT_SET: { http: 500, origin: 'spec', condition: 'internal environment context missing' },
  // Payment.
  PAYMENT_NOT_FOUND: { http: 404, origin: 'spec', condition: 'no payment for the id in this environment' },
  PAYMENT_METHOD_NOT_ENABLED: { http: 406, origin: 'spec', condition: 'the method is disabled' },
  PAYMENT_METHOD_NOT_SUPPORTED: { http: 406, origin: 'spec', condition: 'the method does not exist or does not support payments' },
  APP_PAYMENT_METHOD_NOT_ENABLED: { http: 406, origin: 'spec', condition: 'the method is not enabled for this application' },
  // Payout.
  PAYOUT_NOT_FOUND: { http: 404, origin: 'spec', condition: 'no payout for the id in this environment' },
  INSUFFICIENT_FUNDS: { http: 422, origin: 'spec', condition: 'the wallet balance does not cover amount plus fee' },
  PAYOUT_NOT_AVAILABLE: { http: 422, origin: 'spec', condition: 'payouts are unavailable for the method or destination' },
  PAYOUT_METHOD_NOT_SUPPORTED: { http: 406, origin: 'spec', condition: 'the method does not exist or does not support payouts' },
  APP_PAYOUT_METHOD_NOT_ENABLED: { http: 406, origin: 'spec', condition: 'the method is not enabled for payouts in this application' },
  PAYOUT_METHOD_NOT_ENABLED: { http: 406, origin: 'spec', condition: 'the payout method is disabled' },
  // General.
  PAYLOAD_TOO_LARGE: { http: 413, origin: 'spec', condition: 'the request body is over the size limit' },
  VALIDATION_ERROR: { http: 422, origin: 'spec', condition: 'the input failed validation' },
  // Local decisions where the spec names a status but no code.
  MALFORMED_REQUEST: { http: 400, origin: 'local', condition: 'the body is not valid JSON, not a JSON object, or a parameter is malformed' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, origin: 'local', condition: 'a body was sent without Content-Type: application/json' },
  ROUTE_NOT_FOUND: { http: 404, origin: 'local', condition: 'no endpoint at this method and path' },
  RATE_LIMIT_EXCEEDED: { http: 429, origin: 'local', condition: 'too many requests for this key; retry after the Retry-After seconds' },
  MAINTENANCE_MODE: { http: 503, origin: 'local', condition: 'the service is temporarily offline for maintenance' },
  INTERNAL_ERROR: { http: 500, origin: 'local', condition: 'an unexpected server error' },
} as const satisfies Record<string, { http: number; origin: 'spec' | 'local'; condition: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** Transaction statuses (spec 3). */
export const TRANSACTION_STATUSES = ['initiated', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/**
 * A status as the service said it: one of the spec's five, or another word the spec does not list
 * (`pending`). An unlisted status is shown as itself and is never final: it is followed up until
 * a listed final status is read (docs/decisions/tolerant-reader.md).
 */
export type ServiceStatus = TransactionStatus | (string & {});

/** Whether the spec's table lists `status` (section 3). */
export function isListedStatus(status: string): status is TransactionStatus {
  return (TRANSACTION_STATUSES as readonly string[]).includes(status);
}

/** Statuses after which nothing changes any more. */
export const FINAL_STATUSES: readonly TransactionStatus[] = ['completed', 'failed', 'cancelled'];

/** Whether nothing changes any more after `status`: only a listed final status is (an unlisted one is open). */
export function isFinalStatus(status: ServiceStatus): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** `failed_code` values, spelled exactly as the spec spells them (TRANASACTION_CANCELLED included). */
export const FAILED_CODES = {
  PAYER_NOT_FOUND: 'payer account not found',
  NOT_ENOUGH_FUNDS: 'payer lacks funds',
  EXPIRED: 'transaction timed out',
  TRANASACTION_CANCELLED: 'cancelled by the payer',
  SERVICE_UNAVAILABLE: 'service not available',
  PROVIDER_INTERNAL_PROCESSING_ERROR: 'internal provider error',
} as const;

export type FailedCode = keyof typeof FAILED_CODES;
export const FAILED_CODE_LIST = Object.keys(FAILED_CODES) as FailedCode[];

export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const KEY_TYPES = ['payment', 'payout'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** Method codes the spec shows; the local engine serves both. */
export const KNOWN_METHOD_CODES = ['service_demo', 'momo_cm'] as const;
/** Test methods for sandbox development only (spec: `service_demo`); never offered for live. */
export const SANDBOX_ONLY_METHOD_CODES: readonly string[] = ['service_demo'];

/** The default header word: the real service's headers carry its maker's name instead. */
export const DEFAULT_HEADER_WORD = 'SVC';

/** Names of the four authentication headers for a header word (`SVC` gives `X-SVC-Timestamp`...). */
export function authHeaderNames(word: string = DEFAULT_HEADER_WORD) {
  return {
    authorization: 'Authorization',
    timestamp: `X-${word}-Timestamp`,
    signature: `X-${word}-Signature`,
    environment: `X-${word}-Environment`,
  } as const;
}

/** Header words must be plain token characters so that they form valid header names. */
export const HEADER_WORD_PATTERN = /^[A-Za-z0-9]{1,32}$/;
