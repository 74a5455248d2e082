/**
 * The engine's schema, as numbered migrations applied in order and recorded in `schema_migrations`.
 *
 * Numbering: the core engine uses 1–99. Extensions (webhooks, control API: issue 4) number theirs
 * from 100 and pass them in `EngineOptions.migrations` (or append them to `ENGINE_MIGRATIONS` here).
 * A migration never changes once released: add a new one instead.
 *
 * Times are integer microseconds since the epoch (engine clock); money is integer minor units.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  up: (db: Database.Database) => void;
}

export const ENGINE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'core schema',
    up(db) {
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE applications (
          id TEXT PRIMARY KEY,
          ref TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'pending')),
          live_approved INTEGER NOT NULL,
          currency TEXT NOT NULL,
          webhook_url TEXT,
          webhook_secret TEXT
        );

        CREATE TABLE api_keys (
          public_key TEXT PRIMARY KEY,
          secret_key TEXT NOT NULL,
          app_id TEXT NOT NULL REFERENCES applications(id),
          environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
          type TEXT NOT NULL CHECK (type IN ('payment', 'payout')),
          active INTEGER NOT NULL,
          ip_whitelist TEXT NOT NULL
        );

        CREATE TABLE methods (
          code TEXT PRIMARY KEY,
          code_lower TEXT NOT NULL UNIQUE,
          ref TEXT NOT NULL,
          name TEXT NOT NULL,
          enabled INTEGER NOT NULL,
          supports_payments INTEGER NOT NULL,
          supports_payouts INTEGER NOT NULL,
          environments TEXT NOT NULL,
          payout_prefixes TEXT NOT NULL
        );

        CREATE TABLE app_methods (
          app_id TEXT NOT NULL REFERENCES applications(id),
          code TEXT NOT NULL REFERENCES methods(code),
          payments INTEGER NOT NULL,
          payouts INTEGER NOT NULL,
          PRIMARY KEY (app_id, code)
        );

        CREATE TABLE fee_schedule (
          kind TEXT PRIMARY KEY CHECK (kind IN ('payment', 'payout')),
          percent_bps INTEGER NOT NULL,
          fixed INTEGER NOT NULL
        );

        CREATE TABLE transactions (
          id TEXT PRIMARY KEY,
          ref TEXT NOT NULL,
          app_id TEXT NOT NULL,
          environment TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('payment', 'payout')),
          external_id TEXT,
          status TEXT NOT NULL,
          amount INTEGER NOT NULL,
          fee INTEGER NOT NULL,
          currency TEXT NOT NULL,
          description TEXT,
          phone_number TEXT NOT NULL,
          customer_ref TEXT NOT NULL,
          customer TEXT NOT NULL,
          method_code TEXT NOT NULL,
          metadata TEXT,
          reason TEXT,
          failed_code TEXT,
          failed_at INTEGER,
          cancelled_at INTEGER,
          completed_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          provider_ref TEXT NOT NULL
        );
        CREATE UNIQUE INDEX transactions_external_id ON transactions (app_id, environment, kind, external_id)
          WHERE external_id IS NOT NULL;

        CREATE TABLE transaction_events (
          id INTEGER PRIMARY KEY,
          transaction_id TEXT NOT NULL REFERENCES transactions(id),
          from_status TEXT,
          status TEXT NOT NULL,
          failed_code TEXT,
          at INTEGER NOT NULL
        );
        CREATE INDEX transaction_events_tx ON transaction_events (transaction_id, id);

        CREATE TABLE ledger_entries (
          id INTEGER PRIMARY KEY,
          app_id TEXT NOT NULL,
          environment TEXT NOT NULL,
          amount INTEGER NOT NULL,
          reason TEXT NOT NULL,
          transaction_id TEXT,
          at INTEGER NOT NULL
        );
        CREATE INDEX ledger_entries_wallet ON ledger_entries (app_id, environment);

        -- The simulated provider's own records: verify asks these, not the transactions table.
        CREATE TABLE provider_requests (
          ref TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          phone_number TEXT NOT NULL,
          amount INTEGER NOT NULL,
          final_status TEXT NOT NULL,
          failed_code TEXT,
          decides_at INTEGER NOT NULL,
          notifies INTEGER NOT NULL,
          notified INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX provider_requests_due ON provider_requests (decides_at) WHERE notifies = 1 AND notified = 0;
      `);
    },
  },
  {
    version: 2,
    name: 'ledger running balance, provider lookup index',
    up(db) {
      // The running balance after each entry makes a balance read one index lookup instead of a
      // sum over the whole ledger; it always equals the sum of the wallet's entries up to it.
      db.exec(`
        ALTER TABLE ledger_entries ADD COLUMN balance_after INTEGER NOT NULL DEFAULT 0;
        UPDATE ledger_entries SET balance_after = (
          SELECT SUM(earlier.amount) FROM ledger_entries AS earlier
          WHERE earlier.app_id = ledger_entries.app_id AND earlier.environment = ledger_entries.environment
            AND earlier.id <= ledger_entries.id
        );
        CREATE INDEX ledger_entries_running ON ledger_entries (app_id, environment, id);
        CREATE INDEX transactions_provider_ref ON transactions (provider_ref);
      `);
    },
  },
  {
    version: 3,
    name: 'engine clock offset',
    up(db) {
      // How far engine time is ahead of wall time (moved by the control API's clock advance), so a
      // restart on the same file does not take engine time back: retries and expiries scheduled on
      // the advanced clock stay due, and new timestamps never precede stored ones.
      db.exec(`
        CREATE TABLE engine_clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_micros INTEGER NOT NULL);
        INSERT INTO engine_clock (id, offset_micros) VALUES (1, 0);
      `);
    },
  },
  {
    version: 4,
    name: 'provider request names its transaction; two indexes fewer',
    up(db) {
      // Settlement finds a due notification's transaction by primary key (the provider is told the
      // transaction id with the request), so the index on transactions.provider_ref, one more B-tree
      // written by every create, goes; ledger_entries_wallet is a prefix of ledger_entries_running.
      db.exec(`
        ALTER TABLE provider_requests ADD COLUMN transaction_id TEXT;
        UPDATE provider_requests SET transaction_id = (SELECT t.id FROM transactions t WHERE t.provider_ref = provider_requests.ref);
        DROP INDEX transactions_provider_ref;
        DROP INDEX ledger_entries_wallet;
      `);
    },
  },
  {
    version: 5,
    name: 'external id sequence (service variant duplicates-accepted)',
    up(db) {
      // The duplicates-accepted variant creates a second transaction with an external id already
      // used: each gets the next sequence number, so the index stays unique (the default engine
      // refuses before inserting, and every row keeps 0) and "the latest" is the highest number.
      db.exec(`
        ALTER TABLE transactions ADD COLUMN external_id_seq INTEGER NOT NULL DEFAULT 0;
        DROP INDEX transactions_external_id;
        CREATE UNIQUE INDEX transactions_external_id ON transactions (app_id, environment, kind, external_id, external_id_seq)
          WHERE external_id IS NOT NULL;
      `);
    },
  },
];

/** The engine clock's stored offset (migration 3), in microseconds. */
export function storedClockOffset(db: Database.Database): number {
  return (db.prepare('SELECT offset_micros FROM engine_clock WHERE id = 1').pluck().get() as number | undefined) ?? 0;
}

export function storeClockOffset(db: Database.Database, offsetMicros: number): void {
  db.prepare('INSERT INTO engine_clock (id, offset_micros) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET offset_micros = excluded.offset_micros').run(offsetMicros);
}

/** Applies every migration not yet applied, each in its own transaction. */
export function applyMigrations(db: Database.Database, extra: readonly Migration[] = []): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const all = [...ENGINE_MIGRATIONS, ...extra].sort((a, b) => a.version - b.version);
  const seen = new Set<number>();
  for (const migration of all) {
    if (seen.has(migration.version)) throw new Error(`Two migrations share version ${migration.version}`);
    seen.add(migration.version);
  }
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((row) => row.version),
  );
  const ran: number[] = [];
  for (const migration of all) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      migration.up(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    })();
    ran.push(migration.version);
  }
  return ran;
}
