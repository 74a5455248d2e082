/**
 * Webhook chaos per application (off by default) and the webhook effect of a scenario: what
 * happens to a delivery on its way to the receiver, decided when the delivery is queued (inside
 * the status change's write) and recorded on it, so the delivery log explains what the receiver saw.
 *
 * Each behaviour fires at a `rate` (0–1, drawn from a seeded generator: the same seed and the same
 * sequence of events make the same decisions, so a failing test can be replayed) or for a `count`
 * of deliveries (the next N). Behaviours, checked in this order for each delivery:
 * - drop: never sent (recorded as failed, with why); excludes the others;
 * - late: sent `seconds` (engine clock) after the event;
 * - out_of_order: a non-final event (`*.processing`) is held back until the transaction's next event
 *   has been queued, then sent right after it; without a next event, after `hold_seconds`;
 * - duplicate: sent a second time, same `webhook-id` and body, right after the first 2xx.
 */
import { createHash, randomInt } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { DeliveryChaos } from '../../../../shared/contract';
import { scenarioWebhookEffect } from '../scenarios/store';
import { statementsFor } from '../storage/statements';

const rateOrCount = {
  rate: z.number({ error: 'must be a number' }).min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1').optional(),
  count: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000).optional(),
};
const seconds = z.number({ error: 'must be a number' }).positive('must be greater than 0').max(86_400, 'must be at most 86400 (a day)');

function exactlyOne(value: { rate?: number; count?: number }, issue: z.core.$RefinementCtx): void {
  if ((value.rate === undefined) === (value.count === undefined)) {
    issue.addIssue({ code: 'custom', path: [value.rate === undefined ? 'rate' : 'count'], message: 'give exactly one of rate and count' });
  }
}

export const chaosSettingsSchema = z
  .strictObject({
    /** Omitted: a random one, returned so the run can be replayed. */
    seed: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').max(2 ** 31 - 1).optional(),
    duplicate: z.strictObject(rateOrCount).superRefine(exactlyOne).optional(),
    out_of_order: z.strictObject({ ...rateOrCount, hold_seconds: seconds.default(60) }).superRefine(exactlyOne).optional(),
    late: z.strictObject({ ...rateOrCount, seconds }).superRefine(exactlyOne).optional(),
    drop: z.strictObject(rateOrCount).superRefine(exactlyOne).optional(),
  })
  .superRefine((body, issue) => {
    if (!body.duplicate && !body.out_of_order && !body.late && !body.drop) {
      issue.addIssue({ code: 'custom', path: ['drop'], message: 'give at least one of duplicate, out_of_order, late, drop (DELETE turns chaos off)' });
    }
  });
export type ChaosSettingsInput = z.input<typeof chaosSettingsSchema>;
type ChaosSettings = z.output<typeof chaosSettingsSchema>;
type Behaviour = 'drop' | 'late' | 'out_of_order' | 'duplicate';
const BEHAVIOURS: Behaviour[] = ['drop', 'late', 'out_of_order', 'duplicate'];

/** An application's chaos as the control API shows it: counts are what is left. */
export interface WebhookChaos {
  appId: string;
  seed: number;
  /** Deliveries that have drawn from it since it was set. */
  draws: number;
  duplicate: { rate?: number; count?: number } | null;
  out_of_order: { rate?: number; count?: number; hold_seconds: number } | null;
  late: { rate?: number; count?: number; seconds: number } | null;
  drop: { rate?: number; count?: number } | null;
}

const statements = statementsFor((db) => ({
  get: db.prepare('SELECT config, seed, draws FROM webhook_chaos WHERE app_id = ?'),
  upsert: db.prepare(`
    INSERT INTO webhook_chaos (app_id, config, seed, draws, updated_at) VALUES (?, ?, ?, 0, ?)
    ON CONFLICT (app_id) DO UPDATE SET config = excluded.config, seed = excluded.seed, draws = 0, updated_at = excluded.updated_at`),
  save: db.prepare('UPDATE webhook_chaos SET config = ?, draws = ? WHERE app_id = ?'),
  remove: db.prepare('DELETE FROM webhook_chaos WHERE app_id = ?'),
  mark: db.prepare('UPDATE webhook_deliveries SET chaos = ?, next_attempt_at = ?, duplicates_left = ?, held_until_next = ? WHERE id = ?'),
  drop: db.prepare("UPDATE webhook_deliveries SET chaos = ?, status = 'failed', next_attempt_at = NULL, finished_at = ?, last_error = ? WHERE id = ?"),
  release: db.prepare("UPDATE webhook_deliveries SET held_until_next = 0, next_attempt_at = ? WHERE transaction_id = ? AND held_until_next = 1 AND status = 'pending'"),
  consumeDuplicate: db.prepare('UPDATE webhook_deliveries SET duplicates_left = duplicates_left - 1 WHERE id = ? AND duplicates_left > 0'),
}));

export function readChaos(db: Database.Database, appId: string): WebhookChaos | null {
  const row = statements(db).get.get(appId) as { config: string; seed: number; draws: number } | undefined;
  if (!row) return null;
  const config = JSON.parse(row.config) as Omit<ChaosSettings, 'seed'>;
  return {
    appId,
    seed: row.seed,
    draws: row.draws,
    duplicate: config.duplicate ?? null,
    out_of_order: config.out_of_order ?? null,
    late: config.late ?? null,
    drop: config.drop ?? null,
  };
}

/** Sets (replaces) an application's chaos; its draws start again from 0, so the same seed replays. */
export function setChaos(db: Database.Database, appId: string, settings: ChaosSettings, now: number): WebhookChaos {
  const { seed = randomInt(0, 2 ** 31 - 1), ...config } = settings;
  statements(db).upsert.run(appId, JSON.stringify(config), seed, now);
  return readChaos(db, appId) as WebhookChaos;
}

export function clearChaos(db: Database.Database, appId: string): boolean {
  return statements(db).remove.run(appId).changes > 0;
}

/** A number in [0, 1) from the seed, the draw and the behaviour: the same inputs give the same number. */
function seededFraction(seed: number, draw: number, behaviour: Behaviour): number {
  const digest = createHash('sha256').update(`${seed}:${draw}:${behaviour}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

const NOTES: Record<Behaviour, (seconds?: number) => string> = {
  drop: () => 'dropped: never sent to the receiver',
  late: (s) => `late: held ${String(s)} s (engine clock) before the first attempt`,
  out_of_order: (s) => `out of order: held until the transaction's next event has gone out (at most ${String(s)} s)`,
  duplicate: () => 'duplicated: sent a second time, same webhook-id and body, after the first 2xx',
};

/** The application's chaos draws for one delivery (and spends counts), or none when chaos is off. */
function drawChaos(db: Database.Database, appId: string, finalEvent: boolean): DeliveryChaos[] {
  const row = statements(db).get.get(appId) as { config: string; seed: number; draws: number } | undefined;
  if (!row) return [];
  const config = JSON.parse(row.config) as Omit<ChaosSettings, 'seed'>;
  const draw = row.draws;
  const effects: DeliveryChaos[] = [];
  for (const behaviour of BEHAVIOURS) {
    const setting = config[behaviour];
    if (!setting) continue;
    // Holding back the last event reorders nothing: out of order applies to non-final events only.
    if (behaviour === 'out_of_order' && finalEvent) continue;
    let fires = false;
    if (setting.count !== undefined) {
      fires = setting.count > 0;
      if (fires) setting.count -= 1;
    } else if (setting.rate !== undefined) {
      fires = seededFraction(row.seed, draw, behaviour) < setting.rate;
    }
    if (!fires) continue;
    const held = behaviour === 'late' ? config.late?.seconds : behaviour === 'out_of_order' ? config.out_of_order?.hold_seconds : undefined;
    effects.push({ effect: behaviour, source: 'chaos', ...(held === undefined ? {} : { seconds: held }), note: NOTES[behaviour](held) });
    if (behaviour === 'drop') break;
  }
  statements(db).save.run(JSON.stringify(config), draw + 1, appId);
  return effects;
}

/**
 * Decides and applies what happens to a freshly queued delivery (inside the status change's
 * write): the transaction's scenario effect if it has one, else the application's chaos. Also
 * releases an earlier event of the same transaction held back for being out of order.
 */
export function applyDeliveryEffects(
  db: Database.Database,
  delivery: { id: string; appId: string; transactionId: string; at: number; finalEvent: boolean },
): void {
  const scenario = scenarioWebhookEffect(db, delivery.transactionId);
  let effects: DeliveryChaos[];
  if (scenario) {
    const applies = scenario.effect !== 'out_of_order' || !delivery.finalEvent;
    const held = scenario.effect === 'late' ? (scenario.delaySeconds ?? 0) : scenario.effect === 'out_of_order' ? 60 : undefined;
    effects = applies
      ? [{ effect: scenario.effect, source: 'scenario', scenarioId: scenario.scenarioId, ...(held === undefined ? {} : { seconds: held }), note: NOTES[scenario.effect](held) }]
      : [];
  } else {
    effects = drawChaos(db, delivery.appId, delivery.finalEvent);
  }
  let nextAttemptAt = delivery.at;
  let duplicates = 0;
  let holding = 0;
  for (const effect of effects) {
    if (effect.effect === 'drop') {
      statements(db).drop.run(JSON.stringify(effects), delivery.at, `not sent: ${effect.note}`, delivery.id);
      return;
    }
    if (effect.effect === 'late') nextAttemptAt += Math.round((effect.seconds ?? 0) * 1_000_000);
    if (effect.effect === 'out_of_order') {
      nextAttemptAt += Math.round((effect.seconds ?? 60) * 1_000_000);
      holding = 1;
    }
    if (effect.effect === 'duplicate') duplicates = 1;
  }
  if (!holding) {
    // This event goes out first; an earlier one held back for it follows right after (1 µs later:
    // the dispatcher sends one delivery per transaction at a time, by due time).
    statements(db).release.run(nextAttemptAt + 1, delivery.transactionId);
  }
  if (effects.length > 0) statements(db).mark.run(JSON.stringify(effects), nextAttemptAt, duplicates, holding, delivery.id);
}

/** After a 2xx: true when the delivery owes one more send (a duplicate), which is now counted. */
export function takeDuplicate(db: Database.Database, deliveryId: string): boolean {
  return statements(db).consumeDuplicate.run(deliveryId).changes > 0;
}
