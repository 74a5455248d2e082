/**
 * zod schemas of the API contract (spec sections 2 and 4), shared by the engine, the client,
 * the main process and the renderer's forms.
 */
import { z } from 'zod';
import { ENVIRONMENTS, FAILED_CODE_LIST, TRANSACTION_STATUSES, type FailedCode } from './codes';
import { isTimestamp } from './timestamps';

export const LIMITS = {
  nameMax: 100,
  emailMax: 254,
  externalIdMax: 100,
  descriptionMax: 255,
  methodCodeMax: 64,
  /** Metadata is echoed back and in webhooks: keep it small. Measured as JSON text. */
  metadataMaxBytes: 8 * 1024,
  /**
   * Metadata nests objects and arrays at most this deep (the metadata object itself is level 1).
   * Checked before the size, without recursion: measuring a deeper value by serialising it would
   * overflow the stack, and bad input must never become a 500.
   */
  metadataMaxDepth: 32,
  /** The largest amount accepted, in the smallest currency unit (local decision). */
  amountMax: 1_000_000_000_000,
} as const;

/** `+`, a country code that does not start with 0, then digits: 8 to 15 digits in all (E.164). */
export const PHONE_NUMBER_PATTERN = /^\+[1-9]\d{7,14}$/;

/** Printable characters only: an id is echoed in URLs and logs. */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._:-]+$/;

export const timestampSchema = z.string().refine(isTimestamp, {
  message: 'must be an ISO 8601 UTC timestamp with microseconds, like 2026-11-21T10:00:00.123456Z',
});

export const transactionStatusSchema = z.enum(TRANSACTION_STATUSES);
export const failedCodeSchema = z.enum(FAILED_CODE_LIST as [FailedCode, ...FailedCode[]]);
export const environmentSchema = z.enum(ENVIRONMENTS);

/**
 * True when `value` nests objects and arrays more than `maxDepth` levels deep (a non-empty or
 * empty object or array is one level). Iterative, so any depth is measured without recursion, and
 * it stops at the first path that goes too deep.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

const metadataSchema = z.record(z.string(), z.unknown()).check((ctx) => {
  // Depth first: only a value known to be shallow is serialised to measure its size.
  if (nestsDeeperThan(ctx.value, LIMITS.metadataMaxDepth)) {
    ctx.issues.push({ code: 'custom', message: `must be nested at most ${LIMITS.metadataMaxDepth} levels deep`, input: ctx.value });
    return;
  }
  if (new TextEncoder().encode(JSON.stringify(ctx.value)).length > LIMITS.metadataMaxBytes) {
    ctx.issues.push({ code: 'custom', message: `must be at most ${LIMITS.metadataMaxBytes} bytes as JSON`, input: ctx.value });
  }
});

export const amountSchema = z
  .number({ error: 'must be a number' })
  .int('must be a whole number in the smallest currency unit')
  .positive('must be greater than 0')
  .max(LIMITS.amountMax, `must be at most ${LIMITS.amountMax}`);

/**
 * The one phone rule of every way in (the payout and payment forms, the bulk file): the spaces a
 * person or a spreadsheet puts between digit groups (`+237 650 00 00 01`, no-break spaces
 * included) are removed, then phoneNumberSchema decides. The wire format stays digits only.
 */
export function normalisePhoneNumber(text: string): string {
  return text.replace(/\s/g, '');
}

export const phoneNumberSchema = z
  .string({ error: 'must be a string' })
  .regex(PHONE_NUMBER_PATTERN, 'must be + followed by the country code and number, digits only (e.g. +237650000001)');

/** A merchant's own id for a transaction (spec 4.2): what scenarios and look-ups name it by too. */
export const externalIdSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(LIMITS.externalIdMax, `must be at most ${LIMITS.externalIdMax} characters`)
  .regex(EXTERNAL_ID_PATTERN, 'may contain only letters, digits and . _ : -');

export const customerInputSchema = z.strictObject({
  first_name: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(LIMITS.nameMax, `must be at most ${LIMITS.nameMax} characters`),
  last_name: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(LIMITS.nameMax, `must be at most ${LIMITS.nameMax} characters`),
  email: z.email('must be a valid email address').max(LIMITS.emailMax),
  metadata: metadataSchema.optional(),
});

/**
 * The body of `POST /v1/payments` and `POST /v1/payouts/initiate` (identical fields, spec 4.2).
 * Unknown fields are refused rather than dropped (see docs/decisions/unknown-request-fields-refused-422-validation.md).
 */
export const transactionRequestSchema = z.strictObject({
  payment_method: z.string({ error: 'is required' }).trim().min(1, 'is required').max(LIMITS.methodCodeMax),
  amount: amountSchema,
  phone_number: phoneNumberSchema,
  customer: customerInputSchema,
  external_id: externalIdSchema.optional(),
  description: z.string({ error: 'must be a string' }).max(LIMITS.descriptionMax, `must be at most ${LIMITS.descriptionMax} characters`).optional(),
  metadata: metadataSchema.optional(),
});
export type TransactionRequest = z.infer<typeof transactionRequestSchema>;
export const paymentRequestSchema = transactionRequestSchema;
export const payoutRequestSchema = transactionRequestSchema;
export type PaymentRequest = TransactionRequest;
export type PayoutRequest = TransactionRequest;

export const customerSchema = z.object({
  ref: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type Customer = z.infer<typeof customerSchema>;

export const paymentMethodSchema = z.object({
  ref: z.string(),
  name: z.string(),
  code: z.string(),
});
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;

export const applicationRefSchema = z.object({ id: z.string(), ref: z.string(), name: z.string() });

/** The transaction object as initiate endpoints return it (no fee fields, no application). */
export const initiatedTransactionSchema = z.object({
  transaction_id: z.string(),
  ref: z.string(),
  external_id: z.string().nullable(),
  /** `payment` in every response, payout initiate included (spec 2.2). */
  type: z.enum(['payment', 'payout']),
  status: transactionStatusSchema,
  amount: z.number().int(),
  currency: z.string(),
  description: z.string().nullable(),
  account_name: z.string(),
  account_number: z.string(),
  account_type: z.string(),
  reason: z.string().nullable(),
  failed_code: failedCodeSchema.nullable(),
  failed_at: timestampSchema.nullable(),
  cancelled_at: timestampSchema.nullable(),
  completed_at: timestampSchema.nullable(),
  customer: customerSchema,
  payment_method: paymentMethodSchema,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type InitiatedTransaction = z.infer<typeof initiatedTransactionSchema>;

/** The payout initiate response: the same field set (spec 2.5). */
export const payoutTransactionSchema = initiatedTransactionSchema;
export type PayoutTransaction = InitiatedTransaction;

/** The full object of retrieve and verify. */
export const fullTransactionSchema = initiatedTransactionSchema.extend({
  fee: z.number().int(),
  net_amount: z.number().int(),
  fee_payer: z.string(),
  application: applicationRefSchema,
});
export type FullTransaction = z.infer<typeof fullTransactionSchema>;

/** `GET /v1/balance` (local extension). */
export const balanceSchema = z.object({
  environment: environmentSchema,
  currency: z.string(),
  balance: z.number().int(),
});
export type Balance = z.infer<typeof balanceSchema>;

/** Validation error map: dotted field names (`customer.first_name`) to messages. */
export const fieldErrorsSchema = z.record(z.string(), z.array(z.string()));
export type FieldErrors = z.infer<typeof fieldErrorsSchema>;

export const successEnvelopeSchema = <T extends z.ZodType>(data: T) =>
  z.strictObject({
    success: z.literal(true),
    /** Always emitted by the engine; the client accepts its absence (spec 2.1 rule 3). */
    message: z.string().optional(),
    data,
  });

export const errorEnvelopeSchema = z.strictObject({
  success: z.literal(false),
  message: z.string(),
  code: z.string(),
  errors: z.union([z.array(z.unknown()), fieldErrorsSchema, z.null()]),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** Any envelope: `data` and `errors` never together (strict objects enforce it). */
export const envelopeSchema = z.union([successEnvelopeSchema(z.unknown()), errorEnvelopeSchema]);
export type Envelope = z.infer<typeof envelopeSchema>;

/** Turns zod issues into the API's field-error map with dotted names. */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  // No prototype: a field named `__proto__` or `constructor` is just a name here.
  const fields: FieldErrors = Object.create(null) as FieldErrors;
  for (const issue of issues) {
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : null;
    if (unknownKeys) {
      const prefix = issue.path.map(String).join('.');
      for (const key of unknownKeys) {
        const name = prefix ? `${prefix}.${key}` : key;
        (fields[name] ??= []).push('is not a known field');
      }
      continue;
    }
    const name = issue.path.map(String).join('.') || '_';
    (fields[name] ??= []).push(issue.message);
  }
  return fields;
}
