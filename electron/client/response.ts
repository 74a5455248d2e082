/**
 * Reading an HTTP answer into a ClientResult: envelope first (`success` decides, spec 2.1 rule 2),
 * then the data against the shared zod shape. Anything unreadable becomes a bad-response that
 * names the HTTP status, never an exception.
 */
import type { z } from 'zod';
import { fieldErrorsSchema, type FieldErrors } from '../../shared/contract/schemas';
import type { ClientResult } from './types';

type Headers = Record<string, string | string[] | undefined>;

export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `Retry-After` as whole seconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * A date in the past gives 0; anything unreadable gives null.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  // Date.parse accepts many forms; an HTTP date always names a weekday and GMT.
  if (!/GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** A short, printable start of a body, for messages about bodies that are not JSON. */
function preview(text: string): string {
  const flat = Array.from(text, (char) => (char < ' ' || char === '\u007f' ? ' ' : char))
    .join('')
    .replace(/ +/g, ' ')
    .trim();
  return flat.length > 60 ? `${flat.slice(0, 60)}...` : flat;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a zod issue's path inside `data`, or undefined when the path is not there. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * The first zod issue in words, with a dotted path under `data`: `the answer has no
 * data.transaction_id` for a field left out, `data.amount: must be ...` otherwise.
 */
function firstIssue(error: z.ZodError, data: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'data: does not have the expected shape';
  const path = ['data', ...issue.path.map(String)].join('.');
  if (issue.path.length > 0 && valueAt(data, issue.path) === undefined) return `the answer has no ${path}`;
  return `${path}: ${issue.message}`;
}

/** The code a 429 without a readable one is recorded under (the engine's own, shared/contract/codes.ts). */
export const BARE_429_CODE = 'RATE_LIMIT_EXCEEDED';

function tooManyRequests<T>(status: number, headers: Headers, nowMs: number, detail: string): ClientResult<T> {
  return {
    kind: 'api-error',
    httpStatus: status,
    code: BARE_429_CODE,
    message: `Too many requests (the 429 named no code: ${detail})`,
    fields: null,
    retryAfterSeconds: parseRetryAfter(headerValue(headers, 'retry-after'), nowMs),
  };
}

export function interpretResponse<T>(
  status: number,
  headers: Headers,
  body: Buffer,
  dataSchema: z.ZodType<T> | null,
  nowMs: number,
): ClientResult<T> {
  const unreadable = (detail: string): ClientResult<T> => ({ kind: 'bad-response', httpStatus: status, message: `HTTP ${status}: ${detail}` });
  // A 429 is a refusal by its status alone (nothing was created: RFC 6585), whatever its body says:
  // the spec names no code for it, and a gateway's or a bare one still means "wait, then send again".
  const bad = (detail: string): ClientResult<T> => (status === 429 ? tooManyRequests(status, headers, nowMs, detail) : unreadable(detail));
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return bad('the response body is empty, not a JSON envelope');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const type = headerValue(headers, 'content-type') ?? 'no content type';
    return bad(`the response body is not JSON (${type}): "${preview(text)}"`);
  }
  if (!isPlainObject(parsed) || typeof parsed.success !== 'boolean') {
    return bad('the response is JSON but not an envelope (no boolean "success")');
  }
  const is2xx = status >= 200 && status < 300;
  if (parsed.success) {
    if (!is2xx) return bad('the envelope says success but the status is not 2xx');
    return readSuccess(parsed, dataSchema, status, bad);
  }
  if (is2xx) return bad('the envelope says failure but the status is 2xx');
  return readError(parsed, status, headers, nowMs, bad);
}

function readSuccess<T>(
  envelope: Record<string, unknown>,
  dataSchema: z.ZodType<T> | null,
  status: number,
  bad: (detail: string) => ClientResult<T>,
): ClientResult<T> {
  if (!('data' in envelope)) return bad('the success envelope has no "data"');
  if ('errors' in envelope) return bad('the envelope carries both "data" and "errors"');
  // Spec 2.1 rule 3: the retrieve sample has no message, so its absence is accepted; a message is
  // words for a person, never what decides money: one that is not a string is read as none
  // (docs/decisions/tolerant-reader.md).
  const message = typeof envelope.message === 'string' ? envelope.message : null;
  if (dataSchema === null) {
    return { kind: 'success', httpStatus: status, message, data: envelope.data as T };
  }
  const checked = dataSchema.safeParse(envelope.data);
  if (!checked.success) {
    // The data is kept as received: what the service said is shown, not only that it was unreadable.
    return { kind: 'bad-response', httpStatus: status, message: `HTTP ${status}: the response data does not have the expected shape: ${firstIssue(checked.error, envelope.data)}`, answer: envelope.data };
  }
  return { kind: 'success', httpStatus: status, message, data: checked.data };
}

function readError<T>(
  envelope: Record<string, unknown>,
  status: number,
  headers: Headers,
  nowMs: number,
  bad: (detail: string) => ClientResult<T>,
): ClientResult<T> {
  if (typeof envelope.code !== 'string' || envelope.code === '') return bad('the error envelope has no "code"');
  if ('data' in envelope) return bad('the envelope carries both "data" and "errors"');
  const message = typeof envelope.message === 'string' && envelope.message !== '' ? envelope.message : envelope.code;
  const fieldMap = fieldErrorsSchema.safeParse(envelope.errors);
  // An empty array (most errors) or null means no field errors; only a map of lists is a field map.
  const fields: FieldErrors | null = isPlainObject(envelope.errors) && fieldMap.success ? fieldMap.data : null;
  return {
    kind: 'api-error',
    httpStatus: status,
    code: envelope.code,
    message,
    fields,
    retryAfterSeconds: parseRetryAfter(headerValue(headers, 'retry-after'), nowMs),
  };
}
