/**
 * Sandbox scenarios: what the simulated provider does with the next transactions of a given phone
 * number or external id, beyond the fixed outcome-by-phone-number table. One schema for the control
 * API (`POST /_sandbox/scenarios`), the seed file (`scenarios`) and the console's Sandbox screen.
 *
 * Also the webhook effects that scenarios and webhook chaos share: what a delivery of an event
 * does on its way to the receiver.
 */
import { z } from 'zod';
import { FAILED_CODE_LIST, type FailedCode } from './codes';
import { externalIdSchema, phoneNumberSchema } from './schemas';

/**
 * - `deliver`: sent normally;
 * - `drop`: never sent (the delivery is recorded, failed, with why);
 * - `duplicate`: sent twice with the same `webhook-id` (a second time right after the first 2xx);
 * - `out_of_order`: a `processing` event is held back until the transaction's next event has gone out;
 * - `late`: sent N seconds (engine clock) after the event.
 */
export const WEBHOOK_EFFECTS = ['deliver', 'drop', 'duplicate', 'out_of_order', 'late'] as const;
export type WebhookEffect = (typeof WEBHOOK_EFFECTS)[number];

export const SCENARIO_MAX_SECONDS = 30 * 86_400;
export const SCENARIO_MAX_USES = 1_000_000;

export const scenarioInputSchema = z
  .strictObject({
    /** Exactly one of `phone_number` and `external_id`: the transactions this scenario steers. */
    phone_number: phoneNumberSchema.optional(),
    external_id: externalIdSchema.optional(),
    /** Omitted: payments and payouts alike. */
    kind: z.enum(['payment', 'payout'], { error: 'must be payment or payout' }).optional(),
    status: z.enum(['completed', 'failed', 'cancelled'], { error: 'must be completed, failed or cancelled' }),
    failed_code: z.enum(FAILED_CODE_LIST as [FailedCode, ...FailedCode[]], { error: 'must be one of the API failed codes' }).optional(),
    /** How long the transaction stays `processing` (engine seconds); omitted: the engine's settle delay. */
    processing_seconds: z
      .number({ error: 'must be a number' })
      .min(0, 'must be 0 or more')
      .max(SCENARIO_MAX_SECONDS, `must be at most ${SCENARIO_MAX_SECONDS} (30 days)`)
      .optional(),
    /** False: the provider never reports it; the transaction stays `processing` until Verify. */
    notify: z.boolean({ error: 'must be true or false' }).default(true),
    webhooks: z.enum(WEBHOOK_EFFECTS, { error: `must be one of ${WEBHOOK_EFFECTS.join(', ')}` }).default('deliver'),
    /** With `webhooks: "late"` only: how late, in engine seconds. */
    webhook_delay_seconds: z
      .number({ error: 'must be a number' })
      .positive('must be greater than 0')
      .max(SCENARIO_MAX_SECONDS, `must be at most ${SCENARIO_MAX_SECONDS} (30 days)`)
      .optional(),
    /** The next N matching transactions, then the scenario removes itself; omitted: until removed. */
    uses: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(SCENARIO_MAX_USES).optional(),
  })
  .superRefine((body, issue) => {
    if ((body.phone_number === undefined) === (body.external_id === undefined)) {
      const message = 'give exactly one of phone_number and external_id';
      issue.addIssue({ code: 'custom', path: [body.phone_number === undefined ? 'phone_number' : 'external_id'], message });
    }
    if (body.status === 'failed' && body.failed_code === undefined) {
      issue.addIssue({ code: 'custom', path: ['failed_code'], message: 'is required when status is failed' });
    }
    if (body.status !== 'failed' && body.failed_code !== undefined) {
      issue.addIssue({ code: 'custom', path: ['failed_code'], message: 'is only allowed when status is failed' });
    }
    if (body.webhooks === 'late' && body.webhook_delay_seconds === undefined) {
      issue.addIssue({ code: 'custom', path: ['webhook_delay_seconds'], message: 'is required when webhooks is late' });
    }
    if (body.webhooks !== 'late' && body.webhook_delay_seconds !== undefined) {
      issue.addIssue({ code: 'custom', path: ['webhook_delay_seconds'], message: 'is only allowed when webhooks is late' });
    }
  });

export type ScenarioInput = z.input<typeof scenarioInputSchema>;
export type ScenarioSpec = z.output<typeof scenarioInputSchema>;

/** A stored scenario, as the control API and the console list it. */
export interface Scenario {
  id: string;
  match: { field: 'phone_number' | 'external_id'; value: string };
  kind: 'payment' | 'payout' | null;
  status: 'completed' | 'failed' | 'cancelled';
  failed_code: FailedCode | null;
  /** Null: the engine's settle delay. */
  processing_seconds: number | null;
  notify: boolean;
  webhooks: WebhookEffect;
  webhook_delay_seconds: number | null;
  /** Null: until removed. */
  uses_left: number | null;
  /** How many transactions it has steered. */
  applied: number;
  created_at: string;
}

/** What webhook chaos or a scenario did to one delivery (recorded on the delivery). */
export interface DeliveryChaos {
  effect: Exclude<WebhookEffect, 'deliver'>;
  /** `chaos`: the application's webhook chaos; `scenario`: the transaction's scenario (its id). */
  source: 'chaos' | 'scenario';
  scenarioId?: string;
  /** `late`: seconds; `out_of_order`: the longest hold, in seconds, if no later event comes. */
  seconds?: number;
  /** What the receiver sees, in words. */
  note: string;
}
