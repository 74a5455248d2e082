/**
 * The signing HTTP client: one function per endpoint, the right key pair per path, the secret
 * fetched per attempt and dropped, GET retried, POST never, and a result for every outcome.
 */
import { Agent, type Dispatcher } from 'undici';
import type { KeyType } from '../../shared/contract/codes';
import { serviceTransactionSchema } from '../../shared/contract/reading';
import { balanceSchema, type TransactionRequest } from '../../shared/contract/schemas';
import type { z } from 'zod';
import { headerValue, interpretResponse, parseRetryAfter } from './response';
import { nextDelayMs, resolveRetryPolicy, RETRYABLE_STATUSES } from './retry';
import { buildSignedRequest, encodePathSegment, headerWordOf, parseBaseUrl, ProfileError, publicKeyFor, type ParsedBaseUrl, type SignedRequest } from './sign';
import { classifyFailure, exchange } from './transport';
import type { ClientOptions, ClientProfile, ClientResult, PaydeskClient, SecretSource } from './types';

export const DEFAULT_TIMEOUTS = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 } as const;
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

interface PreparedRequest {
  method: 'GET' | 'POST';
  path: string;
  query: string;
  body: Buffer | undefined;
  keyType: KeyType;
}

interface Attempt<T> {
  result: ClientResult<T>;
  /** A network failure, 429 or 503: worth another try if the method allows it. */
  retryable: boolean;
  /** The answer's Retry-After, envelope or not (a proxy's 503 page may carry one too). */
  retryAfterSeconds?: number | null;
}

/** Failures that the same request will meet again: not worth a retry. */
const PERMANENT_CAUSES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_ERR_NOT_SUPPORTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`timeouts.${name} must be a positive number of milliseconds, got ${String(value)}`);
  return value;
}

function notSent<T>(message: string, cause: string): ClientResult<T> {
  return { kind: 'transport', outcome: 'not-sent', message, cause };
}

/** Replaces every occurrence of the secret in the texts of a result (a server could echo it). */
/** Whether any string (value or key) inside `value` contains `text`. */
function containsText(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value.includes(text);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => containsText(item, text));
  return Object.entries(value).some(([key, item]) => key.includes(text) || containsText(item, text));
}

/** A copy of `value` with `clean` applied to every string in it, keys included. */
function cleanStrings(value: unknown, clean: (text: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cleanStrings(item, clean));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [clean(key), cleanStrings(item, clean)]));
}

function scrubSecret<T>(result: ClientResult<T>, secret: string): ClientResult<T> {
  if (secret === '') return result;
  const clean = (text: string) => text.split(secret).join('[secret removed]');
  switch (result.kind) {
    case 'success':
      // Read tolerantly, a status or any string field may carry whatever the service sent.
      return containsText(result.data, secret) ? { ...result, data: cleanStrings(result.data, clean) as T } : result;
    case 'api-error': {
      const fields = result.fields
        ? Object.fromEntries(Object.entries(result.fields).map(([name, messages]) => [clean(name), messages.map(clean)]))
        : null;
      return { ...result, code: clean(result.code), message: clean(result.message), fields };
    }
    case 'bad-response':
      return { ...result, message: clean(result.message), ...('answer' in result ? { answer: cleanStrings(result.answer, clean) } : {}) };
    case 'transport':
      return { ...result, message: clean(result.message), cause: clean(result.cause) };
    default: {
      const unknownKind: never = result;
      throw new Error(`unknown result kind ${JSON.stringify(unknownKind)}`);
    }
  }
}

/** A keychain error's text, with anything shaped like a secret key blanked, for the not-sent message. */
function describeSecretFailure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\bsk_[A-Za-z0-9_-]+/g, '[secret removed]').slice(0, 200);
}

export function createClient(profileInput: ClientProfile, secretFor: SecretSource, options: ClientOptions = {}): PaydeskClient {
  // A copy: editing the profile object afterwards must not change where a client sends, or with which key.
  const profile: ClientProfile = { ...profileInput };
  const timeouts = {
    connectMs: positiveMs('connectMs', options.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.connectMs),
    headersMs: positiveMs('headersMs', options.timeouts?.headersMs ?? DEFAULT_TIMEOUTS.headersMs),
    bodyMs: positiveMs('bodyMs', options.timeouts?.bodyMs ?? DEFAULT_TIMEOUTS.bodyMs),
  };
  const retryPolicy = resolveRetryPolicy(options.retry);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const ownDispatcher: Agent | null = options.dispatcher
    ? null
    : new Agent({ connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.headersMs, bodyTimeout: timeouts.bodyMs });
  const dispatcher: Dispatcher = options.dispatcher ?? (ownDispatcher as Agent);
  let closing: Promise<void> | null = null;

  // A bad profile is reported on every request rather than thrown here, so the console can show it.
  let profileProblem: string | null = null;
  let base: ParsedBaseUrl = { origin: '', prefix: '', host: '' };
  try {
    base = parseBaseUrl(profile.baseUrl);
    headerWordOf(profile);
  } catch (error) {
    profileProblem = error instanceof Error ? error.message : String(error);
  }

  function describeTimeout(cause: string, reason: string): string {
    if (cause === 'UND_ERR_CONNECT_TIMEOUT') return `${reason} (${timeouts.connectMs} ms)`;
    if (cause === 'UND_ERR_HEADERS_TIMEOUT') return `${reason} (${timeouts.headersMs} ms)`;
    if (cause === 'UND_ERR_BODY_TIMEOUT') return `${reason} (${timeouts.bodyMs} ms)`;
    return reason;
  }

  async function attemptOnce<T>(request: PreparedRequest, schema: z.ZodType<T> | null): Promise<Attempt<T>> {
    const what = `${request.method} ${request.path}`;
    if (profileProblem !== null) {
      return { result: notSent(`Could not send ${what}: ${profileProblem}. The request was not sent.`, 'INVALID_PROFILE'), retryable: false };
    }
    let publicKey: string;
    try {
      publicKey = publicKeyFor(profile, request.keyType);
    } catch {
      return { result: notSent(`Could not send ${what}: unknown key type "${String(request.keyType)}". The request was not sent.`, 'INVALID_ARGUMENT'), retryable: false };
    }
    if (typeof publicKey !== 'string' || publicKey === '') {
      return { result: notSent(`Could not send ${what}: the profile has no ${request.keyType} public key. The request was not sent.`, 'INVALID_PROFILE'), retryable: false };
    }
    let secret: string;
    try {
      secret = await secretFor(publicKey);
    } catch (error) {
      const detail = describeSecretFailure(error);
      return { result: notSent(`Could not send ${what}: the secret key for ${publicKey} could not be read (${detail}). The request was not sent.`, 'SECRET_UNAVAILABLE'), retryable: false };
    }
    if (typeof secret !== 'string' || secret === '') {
      return { result: notSent(`Could not send ${what}: no secret key is stored for ${publicKey}. The request was not sent.`, 'SECRET_UNAVAILABLE'), retryable: false };
    }
    const attempt = await signAndExchange(request, schema, publicKey, secret);
    return { ...attempt, result: scrubSecret(attempt.result, secret) };
  }

  async function signAndExchange<T>(request: PreparedRequest, schema: z.ZodType<T> | null, publicKey: string, secret: string): Promise<Attempt<T>> {
    const what = `${request.method} ${request.path}`;
    let signed: SignedRequest;
    try {
      signed = buildSignedRequest({
        profile,
        publicKey,
        secretKey: secret,
        method: request.method,
        path: request.path,
        query: request.query,
        body: request.body,
        timestampSeconds: Math.floor(now() / 1000),
      });
    } catch (error) {
      const detail = error instanceof ProfileError ? error.message : 'the request could not be signed';
      return { result: notSent(`Could not send ${what}: ${detail}. The request was not sent.`, 'INVALID_ARGUMENT'), retryable: false };
    }
    const outcome = await exchange(dispatcher, {
      origin: base.origin,
      target: signed.target,
      method: request.method,
      headers: signed.headers,
      body: signed.body,
      headersTimeoutMs: timeouts.headersMs,
      bodyTimeoutMs: timeouts.bodyMs,
      maxResponseBytes,
    });
    switch (outcome.kind) {
      case 'response': {
        const result = interpretResponse(outcome.status, outcome.headers, outcome.body, schema, now());
        const retryAfterSeconds = parseRetryAfter(headerValue(outcome.headers, 'retry-after'), now());
        return { result, retryable: RETRYABLE_STATUSES.includes(outcome.status), retryAfterSeconds };
      }
      case 'too-large':
        return {
          result: { kind: 'bad-response', httpStatus: outcome.status, message: `HTTP ${outcome.status}: the response body is larger than ${outcome.limit} bytes` },
          retryable: false,
        };
      case 'failed': {
        const failure = classifyFailure(outcome.started, outcome.error);
        const reason = describeTimeout(failure.cause, failure.reason);
        const message =
          failure.outcome === 'not-sent'
            ? `Could not send ${what} to ${base.host}: ${reason}. The request was not sent.`
            : `${what} to ${base.host} failed after the request was sent: ${reason}. The server may have received it${
                request.method === 'GET' ? '.' : '; check its outcome before sending it again.'
              }`;
        // A refused, timed-out or reset connection may work next time; a request undici refused to build will not.
        const retryable = !PERMANENT_CAUSES.has(failure.cause);
        return { result: { kind: 'transport', outcome: failure.outcome, message, cause: failure.cause }, retryable };
      }
      default: {
        const unknownOutcome: never = outcome;
        throw new Error(`unknown exchange outcome ${JSON.stringify(unknownOutcome)}`);
      }
    }
  }

  /** Tries once, or for a GET until success, a final answer, or the retry policy says stop. */
  async function perform<T>(request: PreparedRequest, schema: z.ZodType<T> | null): Promise<ClientResult<T>> {
    for (let failedTries = 1; ; failedTries++) {
      const { result, retryable, retryAfterSeconds } = await attemptOnce(request, schema);
      if (!retryable || request.method !== 'GET') return result;
      const delay = nextDelayMs(failedTries, retryAfterSeconds ?? null, retryPolicy, random);
      if (delay === null) return result;
      await sleep(delay);
    }
  }

  function lookup<T>(keyType: KeyType, path: string, query: string, schema: z.ZodType<T>): Promise<ClientResult<T>> {
    return perform({ method: 'GET', path, query, body: undefined, keyType }, schema);
  }

  function lookupById<T>(
    keyType: KeyType,
    collection: '/v1/payments' | '/v1/payouts',
    id: string,
    suffix: '' | '/verify',
    by: 'transaction_id' | 'external_id' | undefined,
    schema: z.ZodType<T>,
  ): Promise<ClientResult<T>> {
    if (typeof id !== 'string' || id === '') {
      return Promise.resolve(notSent(`Could not send GET ${collection}/{id}${suffix}: the id is empty. The request was not sent.`, 'INVALID_ARGUMENT'));
    }
    const query = by === undefined ? '' : `identifier_type=${encodeURIComponent(by)}`;
    return lookup(keyType, `${collection}/${encodePathSegment(id)}${suffix}`, query, schema);
  }

  function submit<T>(keyType: KeyType, path: string, body: TransactionRequest, schema: z.ZodType<T>): Promise<ClientResult<T>> {
    const text = serialise(body);
    if (text === null) {
      return Promise.resolve(notSent(`Could not send POST ${path}: the body cannot be written as JSON. The request was not sent.`, 'INVALID_ARGUMENT'));
    }
    return perform({ method: 'POST', path, query: '', body: Buffer.from(text, 'utf8'), keyType }, schema);
  }

  return {
    createPayment: (body) => submit('payment', '/v1/payments', body, serviceTransactionSchema),
    initiatePayout: (body) => submit('payout', '/v1/payouts/initiate', body, serviceTransactionSchema),
    retrievePayment: (id, opts) => lookupById('payment', '/v1/payments', id, '', opts?.by, serviceTransactionSchema),
    verifyPayment: (id) => lookupById('payment', '/v1/payments', id, '/verify', undefined, serviceTransactionSchema),
    retrievePayout: (id, opts) => lookupById('payout', '/v1/payouts', id, '', opts?.by, serviceTransactionSchema),
    verifyPayout: (id) => lookupById('payout', '/v1/payouts', id, '/verify', undefined, serviceTransactionSchema),
    getBalance: () => lookup('payout', '/v1/balance', '', balanceSchema),
    async close() {
      // Idempotent: the console closes a profile's client on switch and again on quit.
      if (closing === null) closing = ownDispatcher ? ownDispatcher.close() : Promise.resolve();
      await closing;
    },
  };
}

/** JSON text of a body, or null when it has none (cycles, BigInt, undefined). */
function serialise(body: unknown): string | null {
  try {
    const text: unknown = JSON.stringify(body);
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}
