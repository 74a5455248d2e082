/**
 * Delivery and attempt rows: creating them inside the status change's transaction (the status
 * hook), picking due ones, recording attempts, and reading them back for the console.
 */
import type Database from 'better-sqlite3';
import { formatTimestamp, isFinalStatus, type DeliveryChaos, type TransactionStatus } from '../../../../shared/contract';
import { applyDeliveryEffects } from './chaos';
import type { TransactionKind } from '../events';
import { cachedConfig } from '../storage/config-cache';
import { statementsFor } from '../storage/statements';
import { shapeTimestamp, shapeTransaction } from '../variants/shape';
import type { ServiceVariantState } from '../variants/state';
import { getTransaction, toFullTransaction } from '../storage/store';
import type { StatusChange } from '../lifecycle/transitions';
import { newMessageId, newWebhookSecret } from './signature';

/**
 * `pending`: will be sent (now or at `next_attempt_at`); `paused`: kept while the endpoint is
 * disabled by a 410 Gone, sent when its URL is set again; `delivered` and `failed` are final.
 */
export type DeliveryStatus = 'pending' | 'paused' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  app_id: string;
  transaction_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  round_attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  finished_at: number | null;
  last_error: string | null;
  /** JSON list of what chaos or a scenario did (chaos.ts); null: nothing. */
  chaos: string | null;
  duplicates_left: number;
  held_until_next: number;
}

interface AttemptRow {
  id: number;
  delivery_id: string;
  at: number;
  url: string;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface WebhookAttempt {
  at: string;
  url: string;
  /** Null when no answer came (refused, timeout, reset). */
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDelivery {
  /** The `webhook-id` header, the same on every attempt. */
  id: string;
  appId: string;
  transactionId: string;
  eventType: string;
  status: DeliveryStatus;
  createdAt: string;
  nextAttemptAt: string | null;
  finishedAt: string | null;
  lastError: string | null;
  /** The JSON body exactly as sent. */
  payload: string;
  attempts: WebhookAttempt[];
  /** What webhook chaos or the transaction's scenario did to this delivery (empty: nothing). */
  chaos: DeliveryChaos[];
}

export interface WebhookEndpoint {
  url: string | null;
  secret: string;
  /** Set when the endpoint answered 410 Gone; setting the URL again clears it. */
  disabledAt: string | null;
}

const statements = statementsFor((db) => ({
  endpoint: db.prepare('SELECT webhook_url, webhook_secret, webhook_disabled_at FROM applications WHERE id = ?'),
  setSecret: db.prepare('UPDATE applications SET webhook_secret = ? WHERE id = ?'),
  setUrl: db.prepare('UPDATE applications SET webhook_url = ?, webhook_disabled_at = NULL WHERE id = ?'),
  disable: db.prepare('UPDATE applications SET webhook_disabled_at = ? WHERE id = ?'),
  insert: db.prepare(`
    INSERT INTO webhook_deliveries (id, app_id, transaction_id, event_type, payload, status, round_attempts, next_attempt_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)`),
  get: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
  due: db.prepare("SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at LIMIT ?"),
  earliestPending: db.prepare("SELECT id, transaction_id, next_attempt_at FROM webhook_deliveries WHERE status = 'pending' ORDER BY next_attempt_at LIMIT ?"),
  all: db.prepare('SELECT * FROM webhook_deliveries ORDER BY created_at, rowid'),
  byApp: db.prepare('SELECT * FROM webhook_deliveries WHERE app_id = ? ORDER BY created_at, rowid'),
  // Newest first by insertion order (rowid): a page boundary never moves when rows are added.
  page: db.prepare('SELECT rowid AS seq, * FROM webhook_deliveries WHERE rowid < ? ORDER BY rowid DESC LIMIT ?'),
  pageByApp: db.prepare('SELECT rowid AS seq, * FROM webhook_deliveries WHERE app_id = ? AND rowid < ? ORDER BY rowid DESC LIMIT ?'),
  attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY id'),
  insertAttempt: db.prepare('INSERT INTO webhook_attempts (delivery_id, at, url, http_status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)'),
  update: db.prepare(`
    UPDATE webhook_deliveries SET status = @status, round_attempts = @round_attempts, next_attempt_at = @next_attempt_at,
      finished_at = @finished_at, last_error = @last_error WHERE id = @id`),
  // The next attempt time is kept: an attempt in flight recognises its row by it (its lease).
  pausePendingOfApp: db.prepare(`UPDATE webhook_deliveries SET status = 'paused', last_error = ? WHERE app_id = ? AND status = 'pending'`),
  pausedOfApp: db.prepare("SELECT id FROM webhook_deliveries WHERE app_id = ? AND status = 'paused' ORDER BY created_at, rowid"),
  resumePausedOfApp: db.prepare(`
    UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ?, finished_at = NULL
    WHERE app_id = ? AND status = 'paused'`),
}));

/** `payment.completed`, `payout.failed`...; null for `initiated`, which is never announced. */
export function eventTypeFor(kind: TransactionKind, status: TransactionStatus): string | null {
  switch (status) {
    case 'initiated':
      return null;
    case 'processing':
    case 'completed':
    case 'failed':
    case 'cancelled':
      return `${kind}.${status}`;
    default: {
      const unknown: never = status;
      throw new Error(`unknown status ${String(unknown)}`);
    }
  }
}

export function applicationExists(db: Database.Database, appId: string): boolean {
  return statements(db).endpoint.get(appId) !== undefined;
}

/** The application's endpoint; a missing secret is made (and stored) on first use. Null: no such application. */
export function webhookEndpoint(db: Database.Database, appId: string): WebhookEndpoint | null {
  // Cached: the status hook reads it on every status change (a write of `applications` clears it).
  const row = cachedConfig(db, `webhook-endpoint:${appId}`, () =>
    statements(db).endpoint.get(appId) as { webhook_url: string | null; webhook_secret: string | null; webhook_disabled_at: number | null } | undefined,
  );
  if (!row) return null;
  let secret = row.webhook_secret;
  if (secret === null) {
    secret = newWebhookSecret();
    statements(db).setSecret.run(secret, appId);
  }
  return { url: row.webhook_url, secret, disabledAt: row.webhook_disabled_at === null ? null : formatTimestamp(row.webhook_disabled_at) };
}

export function setWebhookUrl(db: Database.Database, appId: string, url: string | null): void {
  statements(db).setUrl.run(url, appId);
}

export function rotateWebhookSecret(db: Database.Database, appId: string): string {
  const secret = newWebhookSecret();
  statements(db).setSecret.run(secret, appId);
  return secret;
}

/**
 * The status hook: queues the event for the application's endpoint in the change's own
 * transaction. No URL: nothing is queued, as a real service sends nothing to an endpoint it does
 * not have. A 410-disabled endpoint: the delivery is kept `paused`, and sent when the URL is set again.
 */
export function queueDeliveryFor(db: Database.Database, change: StatusChange, variants?: ServiceVariantState): DeliveryRow | null {
  const eventType = eventTypeFor(change.kind, change.to);
  if (eventType === null) return null;
  const endpoint = webhookEndpoint(db, change.appId);
  if (!endpoint || endpoint.url === null) return null;
  const paused = endpoint.disabledAt !== null;
  const row = getTransaction(db, change.transactionId);
  if (!row) throw new Error(`status change for a missing transaction ${change.transactionId}`);
  const data = toFullTransaction(row);
  // The payload as the service variants in force shape a transaction (nulls, timestamps, extra fields, status).
  const payload =
    variants === undefined
      ? JSON.stringify({ type: eventType, timestamp: formatTimestamp(change.at), data })
      : JSON.stringify({ type: eventType, timestamp: shapeTimestamp(variants, formatTimestamp(change.at)), data: shapeTransaction(variants, data, { kind: row.kind, providerRef: row.provider_ref }) });
  const id = newMessageId();
  statements(db).insert.run(id, change.appId, change.transactionId, eventType, payload, paused ? 'paused' : 'pending', paused ? null : change.at, change.at);
  if (!paused) applyDeliveryEffects(db, { id, appId: change.appId, transactionId: change.transactionId, at: change.at, finalEvent: isFinalStatus(change.to) });
  return getDelivery(db, id) ?? null;
}

export function getDelivery(db: Database.Database, id: string): DeliveryRow | undefined {
  return statements(db).get.get(id) as DeliveryRow | undefined;
}

export function dueDeliveries(db: Database.Database, now: number, limit: number): DeliveryRow[] {
  return statements(db).due.all(now, limit) as DeliveryRow[];
}

/** The `limit` pending deliveries due soonest (the dispatcher skips those in flight). */
export function earliestPending(db: Database.Database, limit: number): { id: string; transaction_id: string; next_attempt_at: number }[] {
  return statements(db).earliestPending.all(limit) as { id: string; transaction_id: string; next_attempt_at: number }[];
}

export function recordAttempt(
  db: Database.Database,
  attempt: { deliveryId: string; at: number; url: string; httpStatus: number | null; error: string | null; durationMs: number },
): void {
  statements(db).insertAttempt.run(attempt.deliveryId, attempt.at, attempt.url, attempt.httpStatus, attempt.error, attempt.durationMs);
}

export function updateDelivery(db: Database.Database, row: DeliveryRow): void {
  statements(db).update.run({
    id: row.id,
    status: row.status,
    round_attempts: row.round_attempts,
    next_attempt_at: row.next_attempt_at,
    finished_at: row.finished_at,
    last_error: row.last_error,
  });
}

/** 410 Gone: the endpoint is disabled and its pending deliveries are paused (kept, not sent). */
export function disableEndpoint(db: Database.Database, appId: string, now: number, reason: string): void {
  statements(db).disable.run(now, appId);
  statements(db).pausePendingOfApp.run(reason, appId);
}

/** The URL is set again: paused deliveries are due now, each from the start of the retry schedule. Returns their ids. */
export function resumePausedDeliveries(db: Database.Database, appId: string, now: number): string[] {
  const ids = statements(db).pausedOfApp.pluck().all(appId) as string[];
  if (ids.length > 0) statements(db).resumePausedOfApp.run(now, appId);
  return ids;
}

export function toWebhookDelivery(db: Database.Database, row: DeliveryRow): WebhookDelivery {
  const attempts = statements(db).attempts.all(row.id) as AttemptRow[];
  return {
    id: row.id,
    appId: row.app_id,
    transactionId: row.transaction_id,
    eventType: row.event_type,
    status: row.status,
    createdAt: formatTimestamp(row.created_at),
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at !== null ? formatTimestamp(row.next_attempt_at) : null,
    finishedAt: row.finished_at === null ? null : formatTimestamp(row.finished_at),
    lastError: row.last_error,
    payload: row.payload,
    chaos: row.chaos === null ? [] : (JSON.parse(row.chaos) as DeliveryChaos[]),
    attempts: attempts.map((attempt) => ({
      at: formatTimestamp(attempt.at),
      url: attempt.url,
      httpStatus: attempt.http_status,
      error: attempt.error,
      durationMs: attempt.duration_ms,
    })),
  };
}

export function listDeliveries(db: Database.Database, appId?: string): WebhookDelivery[] {
  const rows = (appId === undefined ? statements(db).all.all() : statements(db).byApp.all(appId)) as DeliveryRow[];
  return rows.map((row) => toWebhookDelivery(db, row));
}

/**
 * One page of deliveries, newest first, starting below `beforeSeq` (the insertion sequence of the
 * previous page's last row; omitted: the newest). `nextSeq` is null on the last page.
 */
export function pageDeliveries(
  db: Database.Database,
  options: { appId?: string; limit: number; beforeSeq?: number },
): { rows: DeliveryRow[]; nextSeq: number | null } {
  const before = options.beforeSeq ?? Number.MAX_SAFE_INTEGER;
  const found = (
    options.appId === undefined ? statements(db).page.all(before, options.limit + 1) : statements(db).pageByApp.all(options.appId, before, options.limit + 1)
  ) as (DeliveryRow & { seq: number })[];
  const rows = found.slice(0, options.limit);
  const last = rows.at(-1);
  return { rows, nextSeq: found.length > options.limit && last ? last.seq : null };
}
