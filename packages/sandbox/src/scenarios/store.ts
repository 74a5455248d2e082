/**
 * Scenarios per transaction (see shared/contract/scenarios.ts): stored in SQLite, so they survive a
 * restart; matched when a sandbox transaction is initiated, inside its creating write, so the
 * provider's record and the scenario's use count change together.
 *
 * A scenario keyed by `external_id` wins over one keyed by the phone number; both win over the
 * outcome-by-phone-number table. A transaction a scenario steered remembers its webhook effect
 * (`sandbox_scenario_runs`), which the webhook status hook reads for each of its events.
 */
import type Database from 'better-sqlite3';
import { formatTimestamp, type FailedCode, type Scenario, type ScenarioSpec, type WebhookEffect } from '../../../../shared/contract';
import type { TransactionKind } from '../events';
import { randomBase62 } from '../storage/ids';
import type { Migration } from '../storage/migrations';
import { cachedConfig } from '../storage/config-cache';
import { statementsFor } from '../storage/statements';

export const SCENARIO_MIGRATIONS: Migration[] = [
  {
    version: 110,
    name: 'sandbox scenarios per transaction',
    up(db) {
      db.exec(`
        CREATE TABLE sandbox_scenarios (
          id TEXT PRIMARY KEY,
          match_field TEXT NOT NULL CHECK (match_field IN ('phone_number', 'external_id')),
          match_value TEXT NOT NULL,
          kind TEXT CHECK (kind IN ('payment', 'payout')),
          final_status TEXT NOT NULL CHECK (final_status IN ('completed', 'failed', 'cancelled')),
          failed_code TEXT,
          processing_seconds REAL,
          notify INTEGER NOT NULL,
          webhooks TEXT NOT NULL,
          webhook_delay_seconds REAL,
          uses_left INTEGER,
          applied INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX sandbox_scenarios_match ON sandbox_scenarios (match_value, match_field);

        -- The webhook effect of a transaction a scenario steered (read for each of its events).
        CREATE TABLE sandbox_scenario_runs (
          transaction_id TEXT PRIMARY KEY,
          scenario_id TEXT NOT NULL,
          webhooks TEXT NOT NULL,
          webhook_delay_seconds REAL
        );
      `);
    },
  },
];

interface ScenarioRow {
  id: string;
  match_field: 'phone_number' | 'external_id';
  match_value: string;
  kind: TransactionKind | null;
  final_status: 'completed' | 'failed' | 'cancelled';
  failed_code: FailedCode | null;
  processing_seconds: number | null;
  notify: number;
  webhooks: WebhookEffect;
  webhook_delay_seconds: number | null;
  uses_left: number | null;
  applied: number;
  created_at: number;
}

const statements = statementsFor((db) => ({
  insert: db.prepare(`
    INSERT INTO sandbox_scenarios (id, match_field, match_value, kind, final_status, failed_code, processing_seconds, notify, webhooks, webhook_delay_seconds, uses_left, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  all: db.prepare('SELECT * FROM sandbox_scenarios ORDER BY created_at, rowid'),
  get: db.prepare('SELECT * FROM sandbox_scenarios WHERE id = ?'),
  sameKey: db.prepare('SELECT * FROM sandbox_scenarios WHERE match_value = ? AND match_field = ?'),
  remove: db.prepare('DELETE FROM sandbox_scenarios WHERE id = ?'),
  count: db.prepare('SELECT COUNT(*) FROM sandbox_scenarios').pluck(),
  // The external id first (more precise), then the phone number; the oldest of equals.
  match: db.prepare(`
    SELECT * FROM sandbox_scenarios
    WHERE ((match_field = 'external_id' AND match_value = ?) OR (match_field = 'phone_number' AND match_value = ?))
      AND (kind IS NULL OR kind = ?)
    ORDER BY match_field = 'external_id' DESC, created_at, rowid LIMIT 1`),
  use: db.prepare('UPDATE sandbox_scenarios SET applied = applied + 1, uses_left = uses_left - 1 WHERE id = ?'),
  insertRun: db.prepare('INSERT INTO sandbox_scenario_runs (transaction_id, scenario_id, webhooks, webhook_delay_seconds) VALUES (?, ?, ?, ?)'),
  run: db.prepare('SELECT scenario_id, webhooks, webhook_delay_seconds FROM sandbox_scenario_runs WHERE transaction_id = ?'),
}));

function toScenario(row: ScenarioRow): Scenario {
  return {
    id: row.id,
    match: { field: row.match_field, value: row.match_value },
    kind: row.kind,
    status: row.final_status,
    failed_code: row.failed_code,
    processing_seconds: row.processing_seconds,
    notify: row.notify === 1,
    webhooks: row.webhooks,
    webhook_delay_seconds: row.webhook_delay_seconds,
    uses_left: row.uses_left,
    applied: row.applied,
    created_at: formatTimestamp(row.created_at),
  };
}

/** A scenario that would steer the same transactions as an existing one: the caller refuses it. */
export class ScenarioConflict extends Error {
  constructor(readonly existing: Scenario) {
    super(
      `Scenario ${existing.id} already steers ${existing.match.field} ${existing.match.value}` +
        `${existing.kind === null ? '' : ` (${existing.kind}s)`}: remove it first.`,
    );
    this.name = 'ScenarioConflict';
  }
}

/** Stores a scenario (inside a write); throws ScenarioConflict when one already covers the same key and kind. */
export function addScenario(db: Database.Database, spec: ScenarioSpec, now: number): Scenario {
  const field = spec.external_id !== undefined ? 'external_id' : 'phone_number';
  const value = (spec.external_id ?? spec.phone_number) as string;
  const kind = spec.kind ?? null;
  for (const row of statements(db).sameKey.all(value, field) as ScenarioRow[]) {
    if (row.kind === null || kind === null || row.kind === kind) throw new ScenarioConflict(toScenario(row));
  }
  const id = `scn_${randomBase62(16)}`;
  statements(db).insert.run(
    id,
    field,
    value,
    kind,
    spec.status,
    spec.failed_code ?? null,
    spec.processing_seconds ?? null,
    Number(spec.notify),
    spec.webhooks,
    spec.webhook_delay_seconds ?? null,
    spec.uses ?? null,
    now,
  );
  return toScenario(statements(db).get.get(id) as ScenarioRow);
}

export function listScenarios(db: Database.Database): Scenario[] {
  return (statements(db).all.all() as ScenarioRow[]).map(toScenario);
}

export function getScenario(db: Database.Database, id: string): Scenario | null {
  const row = statements(db).get.get(id) as ScenarioRow | undefined;
  return row ? toScenario(row) : null;
}

/** True when there was one to remove. */
export function removeScenario(db: Database.Database, id: string): boolean {
  return statements(db).remove.run(id).changes > 0;
}

/** What the provider does with a transaction a scenario steers. */
export interface ScenarioDecision {
  scenarioId: string;
  finalStatus: 'completed' | 'failed' | 'cancelled';
  failedCode: FailedCode | null;
  /** Null: the engine's settle delay. */
  processingSeconds: number | null;
  notify: boolean;
}

/**
 * The scenario for a new transaction, used once (inside its creating write): counts the use,
 * removes a scenario whose uses ran out, and remembers the transaction's webhook effect.
 */
export function takeScenario(
  db: Database.Database,
  transaction: { id: string; kind: TransactionKind; phoneNumber: string; externalId: string | null },
): ScenarioDecision | null {
  // Most sandboxes have no scenario: one cached answer instead of a query per create.
  if (cachedConfig(db, 'scenarios:any', () => statements(db).count.get() !== 0) === false) return null;
  const row = statements(db).match.get(transaction.externalId, transaction.phoneNumber, transaction.kind) as ScenarioRow | undefined;
  if (!row) return null;
  if (row.uses_left !== null && row.uses_left <= 1) statements(db).remove.run(row.id);
  else statements(db).use.run(row.id);
  if (row.webhooks !== 'deliver') statements(db).insertRun.run(transaction.id, row.id, row.webhooks, row.webhook_delay_seconds);
  return {
    scenarioId: row.id,
    finalStatus: row.final_status,
    failedCode: row.failed_code,
    processingSeconds: row.processing_seconds,
    notify: row.notify === 1,
  };
}

/** The webhook effect a scenario set for a transaction's events, if any. */
export function scenarioWebhookEffect(
  db: Database.Database,
  transactionId: string,
): { scenarioId: string; effect: Exclude<WebhookEffect, 'deliver'>; delaySeconds: number | null } | null {
  const row = statements(db).run.get(transactionId) as { scenario_id: string; webhooks: Exclude<WebhookEffect, 'deliver'>; webhook_delay_seconds: number | null } | undefined;
  return row ? { scenarioId: row.scenario_id, effect: row.webhooks, delaySeconds: row.webhook_delay_seconds } : null;
}
