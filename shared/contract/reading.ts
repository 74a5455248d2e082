/**
 * The console's tolerant reading of the service's transaction object (issue 35, item 3;
 * docs/decisions/tolerant-reader.md).
 *
 * The engine emits the strict shape of ./schemas.ts (initiatedTransactionSchema,
 * fullTransactionSchema) and its tests hold it to that. A real service may answer less, more or
 * otherwise than the spec's tables: nulls left out, millisecond timestamps, extra fields, a `type`
 * or a `status` the spec does not list. So the client reads strictly only what decides money
 * (`transaction_id`, `status`, `amount`, `currency`, `external_id`) and everything else as
 * optional: a field that is absent, null or not of its type is read as null, never as an
 * unreadable answer. Extra fields are kept as they came.
 */
import { z } from 'zod';
import { FAILED_CODE_LIST, type FailedCode, type ServiceStatus } from './codes';

/**
 * Any ISO 8601 date-time with a zone: seconds optional, any number of fraction digits, `Z` or an
 * offset (`2026-11-21T10:00:00Z`, `…:00.123Z`, `…:00.123456789+01:00`). The spec promises
 * microseconds and `Z`; in practice precision varies.
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/** Whether `text` is an ISO 8601 date-time with a zone that names a real instant. */
export function isIsoDateTime(text: string): boolean {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, second] = match;
  const millis = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second ?? 0));
  const check = new Date(millis);
  return (
    check.getUTCFullYear() === Number(year) &&
    check.getUTCMonth() === Number(month) - 1 &&
    check.getUTCDate() === Number(day) &&
    check.getUTCHours() === Number(hour) &&
    check.getUTCMinutes() === Number(minute) &&
    check.getUTCSeconds() === Number(second ?? 0)
  );
}

/** A field that does not decide money: its value when it has its type, else null (absent included). */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullable().optional().transform((value) => value ?? null).catch(null);
}

/** A timestamp of any ISO 8601 precision, `Z` or an offset; anything else is read as null. */
export const readTimestampSchema = optional(z.string().refine(isIsoDateTime));

const knownFailedCodes: ReadonlySet<string> = new Set(FAILED_CODE_LIST);

/** A failed code as the service spells it: a known one stays typed, any other string is kept as said. */
export type ServiceFailedCode = FailedCode | (string & {});

export function isKnownFailedCode(code: string): code is FailedCode {
  return knownFailedCodes.has(code);
}

/** The longest status or failed code kept: a longer one is not a status but something else. */
const WORD_MAX = 64;

/**
 * What decides money, read strictly. `external_id` is the merchant's label: string or null, and
 * left out means null (a service that omits null fields); whether it names THIS payout is the
 * caller's check (it knows what it sent: see matchesExternalId).
 */
const decisive = {
  transaction_id: z.string().min(1),
  status: z.string().min(1).max(WORD_MAX) as z.ZodType<ServiceStatus>,
  amount: z.number().int(),
  currency: z.string().min(1),
  external_id: z.string().nullable().optional().transform((value) => value ?? null),
};

/** The tolerant transaction object (initiate subset or full: fee fields are null when absent). */
export const serviceTransactionSchema = z.looseObject({
  ...decisive,
  ref: optional(z.string()),
  type: optional(z.string()),
  description: optional(z.string()),
  account_name: optional(z.string()),
  account_number: optional(z.string()),
  account_type: optional(z.string()),
  reason: optional(z.string()),
  failed_code: optional(z.string().min(1).max(WORD_MAX) as z.ZodType<ServiceFailedCode>),
  failed_at: readTimestampSchema,
  cancelled_at: readTimestampSchema,
  completed_at: readTimestampSchema,
  customer: optional(z.looseObject({ ref: optional(z.string()), first_name: optional(z.string()), last_name: optional(z.string()), email: optional(z.string()) })),
  payment_method: optional(z.looseObject({ ref: optional(z.string()), name: optional(z.string()), code: optional(z.string()) })),
  metadata: optional(z.record(z.string(), z.unknown())),
  created_at: readTimestampSchema,
  updated_at: readTimestampSchema,
  fee: optional(z.number().int()),
  net_amount: optional(z.number().int()),
  fee_payer: optional(z.string()),
  application: optional(z.looseObject({ id: optional(z.string()), ref: optional(z.string()), name: optional(z.string()) })),
});
export type ServiceTransaction = z.infer<typeof serviceTransactionSchema>;

/** Why a success answer's data is not a transaction the console can act on, in words. */
function missingOf(data: Record<string, unknown>, issue: z.core.$ZodIssue | undefined): string {
  const field = issue?.path[0];
  if (typeof field !== 'string') return 'the answer is not a transaction object';
  // Only the decisive fields can fail (every other one reads as null), and they are top-level.
  const value = Object.prototype.hasOwnProperty.call(data, field) ? data[field] : undefined;
  if (value === undefined) return `the answer has no ${field}`;
  if (value === null) return `the answer's ${field} is null`;
  if (field === 'amount') return `the answer's amount is not a whole number (${preview(value)})`;
  return `the answer's ${field} is not readable (${preview(value)})`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/**
 * Reads a success answer's data: the transaction, or what is missing from what decides money
 * (`the answer has no transaction_id`). Never throws.
 */
export function readServiceTransaction(data: unknown): { ok: true; tx: ServiceTransaction } | { ok: false; missing: string } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, missing: 'the answer is not a transaction object' };
  const read = serviceTransactionSchema.safeParse(data);
  if (read.success) return { ok: true, tx: read.data };
  return { ok: false, missing: missingOf(data as Record<string, unknown>, read.error.issues[0]) };
}

/**
 * Whether a transaction the service returned can be this payout's answer: its external id is the
 * one sent, or it names none (null or left out: the answer to our own request or look-up, and the
 * entry keeps its own id). Another id is another payout.
 */
export function matchesExternalId(tx: Pick<ServiceTransaction, 'external_id'>, sent: string | null | undefined): boolean {
  return sent === null || sent === undefined || tx.external_id === null || tx.external_id === sent;
}

/** The longest raw answer a timeline event keeps, in characters of JSON. */
export const RAW_ANSWER_MAX = 4000;

/** The data as received, as JSON for the timeline (cut at RAW_ANSWER_MAX, and said so). */
export function rawAnswerText(data: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(data) ?? String(data);
  } catch {
    text = String(data);
  }
  return text.length > RAW_ANSWER_MAX ? `${text.slice(0, RAW_ANSWER_MAX)}... (cut at ${RAW_ANSWER_MAX} characters)` : text;
}
