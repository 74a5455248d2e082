/**
 * Webhook tables (migration 100, the extensions' numbering range; see migrations.ts).
 *
 * `webhook_deliveries` holds one row per event per application, written in the same SQLite
 * transaction as the status change it reports, so a committed change always has its delivery
 * and a rolled-back one never does. `webhook_attempts` records every attempt to send it.
 */
import type { Migration } from '../storage/migrations';

export const WEBHOOK_MIGRATIONS: Migration[] = [
  {
    version: 100,
    name: 'webhook deliveries and attempts',
    up(db) {
      db.exec(`
        -- Set when the endpoint answered 410 Gone: nothing more is sent until the URL is set again.
        ALTER TABLE applications ADD COLUMN webhook_disabled_at INTEGER;

        CREATE TABLE webhook_deliveries (
          id TEXT PRIMARY KEY,
          app_id TEXT NOT NULL,
          transaction_id TEXT NOT NULL,
          event_type TEXT NOT NULL,
          payload TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
          -- Attempts in the current round (a redelivery starts a new round); the retry schedule reads it.
          round_attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER,
          created_at INTEGER NOT NULL,
          finished_at INTEGER,
          last_error TEXT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_app ON webhook_deliveries (app_id, created_at);

        CREATE TABLE webhook_attempts (
          id INTEGER PRIMARY KEY,
          delivery_id TEXT NOT NULL,
          at INTEGER NOT NULL,
          url TEXT NOT NULL,
          http_status INTEGER,
          error TEXT,
          duration_ms INTEGER NOT NULL
        );
        CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
      `);
    },
  },
  {
    version: 101,
    name: 'paused webhook deliveries',
    up(db) {
      // `paused`: kept for an endpoint that answered 410 Gone, sent when its URL is set again
      // (SQLite cannot change a CHECK constraint in place: the table is rebuilt).
      db.exec(`
        CREATE TABLE webhook_deliveries_new (
          id TEXT PRIMARY KEY,
          app_id TEXT NOT NULL,
          transaction_id TEXT NOT NULL,
          event_type TEXT NOT NULL,
          payload TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'paused', 'delivered', 'failed')),
          round_attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER,
          created_at INTEGER NOT NULL,
          finished_at INTEGER,
          last_error TEXT
        );
        INSERT INTO webhook_deliveries_new (rowid, id, app_id, transaction_id, event_type, payload, status, round_attempts, next_attempt_at, created_at, finished_at, last_error)
          SELECT rowid, id, app_id, transaction_id, event_type, payload, status, round_attempts, next_attempt_at, created_at, finished_at, last_error FROM webhook_deliveries;
        DROP TABLE webhook_deliveries;
        ALTER TABLE webhook_deliveries_new RENAME TO webhook_deliveries;
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_app ON webhook_deliveries (app_id, created_at);
        -- Pages of one application's deliveries, newest first (an index on app_id holds the rowid too).
        CREATE INDEX webhook_deliveries_app_seq ON webhook_deliveries (app_id);
      `);
    },
  },
  {
    // Webhook chaos and scenario effects (appended: earlier migrations never change).
    // `webhook_chaos`: an application's chaos settings (JSON), their seed and how many deliveries
    // have drawn from it; on each delivery, what chaos or a scenario did to it (`chaos`, JSON), how
    // many extra sends a duplicate still owes, and whether it is held back until its transaction's
    // next event (out of order).
    version: 102,
    name: 'webhook chaos',
    up(db) {
      db.exec(`
        CREATE TABLE webhook_chaos (
          app_id TEXT PRIMARY KEY,
          config TEXT NOT NULL,
          seed INTEGER NOT NULL,
          draws INTEGER NOT NULL DEFAULT 0,
          updated_at INTEGER NOT NULL
        );
        ALTER TABLE webhook_deliveries ADD COLUMN chaos TEXT;
        ALTER TABLE webhook_deliveries ADD COLUMN duplicates_left INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE webhook_deliveries ADD COLUMN held_until_next INTEGER NOT NULL DEFAULT 0;
        -- Every queued delivery releases its transaction's held ones: this index is empty unless chaos holds some.
        CREATE INDEX webhook_deliveries_held ON webhook_deliveries (transaction_id) WHERE held_until_next = 1;
      `);
    },
  },
];
