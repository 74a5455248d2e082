/**
 * The Sandbox screen's service variants (`sandbox:setVariants`): the engine's switches that answer the
 * spec's silences the other way (docs/sandbox-engine.md, "Service variants"). The engine's own schema
 * (`serviceVariantsSchema`, packages/sandbox/src/variants/catalogue.ts) cannot be imported here: the
 * package's only entry (`@paydesk/sandbox`) is Node code. So the channel holds the same names and rules,
 * test/console/sandbox-variants.test.ts checks they are the engine's, and main passes the input on to
 * the engine, which checks it again with its own schema.
 */
import { z } from 'zod';

/** The engine's `SERVICE_VARIANTS`, in its order (the order the screen lists them). */
export const SANDBOX_VARIANTS = [
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
export type SandboxVariant = (typeof SANDBOX_VARIANTS)[number];

/** The engine's `MAX_RESET_EVERY`. */
export const SANDBOX_MAX_RESET_EVERY = 1000;

/** The variants in force: `enabled` in the list's order; `resetEvery` applies with reset-after-create. */
export interface SandboxVariants {
  enabled: SandboxVariant[];
  resetEvery: number;
}

/** The whole set to put in force ([] is the default engine), as `PUT /_sandbox/variants` takes it. */
export const sandboxVariantsSchema = z.strictObject({
  enabled: z
    .array(z.enum(SANDBOX_VARIANTS, { error: `must be one of ${SANDBOX_VARIANTS.join(', ')}` }), { error: 'must be a list of variant names' })
    .refine((names) => new Set(names).size === names.length, 'must name each variant at most once'),
  resetEvery: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(SANDBOX_MAX_RESET_EVERY, `must be at most ${SANDBOX_MAX_RESET_EVERY}`)
    .optional(),
});
