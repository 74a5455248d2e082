/**
 * Service variants: switches that make the engine answer one of the spec's silences the other way
 * (docs/sandbox-engine.md, "Service variants"; docs/decisions/sandbox-service-variants.md). One
 * schema for the CLI's `--variant`, `startEngine({ variants })` and `PUT /_sandbox/variants`.
 */
import { z } from 'zod';
import { toFieldErrors, type FieldErrors } from '../../../../shared/contract';

export const SERVICE_VARIANTS = [
  'duplicates-accepted',
  'nulls-omitted',
  'millisecond-timestamps',
  'extra-fields',
  'unlisted-status',
  'created-201',
  'bare-429',
  'gateway-html',
  'reset-after-create',
] as const;
export type ServiceVariant = (typeof SERVICE_VARIANTS)[number];

/** What each variant changes, for the CLI's help, the control API and the docs. */
export const SERVICE_VARIANT_DESCRIPTIONS: Record<ServiceVariant, string> = {
  'duplicates-accepted': 'a second payment or payout with an external_id already used is created (retrieve by external_id answers the latest)',
  'nulls-omitted': 'fields whose value is null are left out of transaction objects (answers and webhook payloads)',
  'millisecond-timestamps': 'timestamps carry 3 fraction digits (…:00.123Z) instead of 6',
  'extra-fields': 'unknown fields in the envelope (meta) and in transaction objects (links, provider_ref, risk)',
  'unlisted-status': 'a transaction not yet final reads `pending`, a status the spec does not list',
  'created-201': 'a successful create (POST payments, payouts) answers HTTP 201 instead of 200',
  'bare-429': 'a rate-limit 429 has no Retry-After header and a body of success:false and a message only (no code, no errors)',
  'gateway-html': 'a maintenance 503 is an HTML page from a gateway (text/html, no Retry-After), not a JSON envelope',
  'reset-after-create': 'every Nth create (resetEvery, default 1) is committed, then its connection is reset without an answer',
};

/** Largest `resetEvery`: a reset once in a thousand creates is already rare. */
export const MAX_RESET_EVERY = 1000;

const KNOWN = SERVICE_VARIANTS.join(', ');

export const serviceVariantSchema = z.enum(SERVICE_VARIANTS, { error: `must be one of ${KNOWN}` });

export const serviceVariantsSchema = z.strictObject({
  /** The variants on; [] is the default engine. Each at most once. */
  enabled: z
    .array(serviceVariantSchema, { error: 'must be a list of variant names' })
    .refine((names) => new Set(names).size === names.length, 'must name each variant at most once'),
  /** With reset-after-create: which creates are reset (every Nth, counted from when the variants were set). */
  resetEvery: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(MAX_RESET_EVERY, `must be at most ${MAX_RESET_EVERY}`)
    .optional(),
});

export type ServiceVariantsInput = z.input<typeof serviceVariantsSchema>;

/** The variants in force: `enabled` in catalogue order, `resetEvery` resolved. */
export interface ServiceVariants {
  enabled: ServiceVariant[];
  resetEvery: number;
}

export const NO_VARIANTS: ServiceVariants = { enabled: [], resetEvery: 1 };

/** A validation failure: each field with its messages, the control API's field-error map. */
export class ServiceVariantsError extends RangeError {
  constructor(readonly fields: FieldErrors) {
    super(`invalid service variants: ${Object.entries(fields).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; ')}`);
    this.name = 'ServiceVariantsError';
  }
}

/**
 * Checks and normalises variants (a list of names is short for `{ enabled: names }`); throws
 * ServiceVariantsError naming each bad field.
 */
export function parseServiceVariants(input: unknown): ServiceVariants {
  const value = Array.isArray(input) ? { enabled: input } : input;
  const parsed = serviceVariantsSchema.safeParse(value);
  if (!parsed.success) throw new ServiceVariantsError(toFieldErrors(parsed.error.issues));
  const wanted = new Set(parsed.data.enabled);
  return { enabled: SERVICE_VARIANTS.filter((name) => wanted.has(name)), resetEvery: parsed.data.resetEvery ?? 1 };
}
