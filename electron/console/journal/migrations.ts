/**
 * The journal's schema as numbered migrations, applied in order inside one transaction each;
 * `PRAGMA user_version` records the last one applied.
 */
import type Database from 'better-sqlite3';

export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'entries and timeline',
    sql: `
      CREATE TABLE entries (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        profile_id TEXT NOT NULL,
        profile_name TEXT NOT NULL,
        environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
        kind TEXT NOT NULL CHECK (kind IN ('payment', 'payout')),
        state TEXT NOT NULL CHECK (state IN ('pending', 'outcome_unknown', 'rejected', 'known')),
        -- After resolveUnknown: 'not_found' allows one resend with the same external id.
        resolution TEXT CHECK (resolution IN ('not_found')),
        transaction_id TEXT,
        external_id TEXT,
        status TEXT,
        failed_code TEXT,
        amount INTEGER NOT NULL CHECK (amount >= 0),
        currency TEXT NOT NULL,
        fee INTEGER,
        net_amount INTEGER,
        phone_number TEXT NOT NULL,
        payment_method TEXT NOT NULL,
        customer_first_name TEXT NOT NULL COLLATE NOCASE,
        customer_last_name TEXT NOT NULL COLLATE NOCASE,
        customer_email TEXT NOT NULL,
        description TEXT,
        metadata TEXT,
        -- The request body exactly as it was sent (JSON), for a resend with the same external id.
        request TEXT,
        last_error TEXT,
        transaction_json TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX entries_by_external_id ON entries (external_id, created_at);
      CREATE INDEX entries_by_transaction_id ON entries (transaction_id, created_at);
      CREATE INDEX entries_by_phone ON entries (phone_number, created_at);
      CREATE INDEX entries_by_created ON entries (created_at);
      CREATE INDEX entries_by_state ON entries (state, created_at);
      CREATE INDEX entries_by_status ON entries (status, created_at);
      CREATE INDEX entries_by_last_name ON entries (customer_last_name);
      CREATE INDEX entries_by_first_name ON entries (customer_first_name);

      CREATE TABLE timeline (
        id INTEGER PRIMARY KEY,
        entry_seq INTEGER NOT NULL REFERENCES entries (seq) ON DELETE CASCADE,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        status TEXT,
        http_status INTEGER,
        code TEXT,
        message TEXT,
        outcome TEXT CHECK (outcome IN ('not-sent', 'unknown'))
      );
      CREATE INDEX timeline_by_entry ON timeline (entry_seq, id);
    `,
  },
  {
    version: 4,
    name: 'overview indexes',
    sql: `
      -- Covers the Overview's figures: a profile's range of days read from the index alone
      -- (no table lookups), grouped by kind, status, failed code and currency.
      CREATE INDEX entries_overview ON entries (profile_id, environment, created_at, kind, state, status, failed_code, currency, amount);
      -- The few transactions still processing, oldest first (partial: small, and exact for that query).
      CREATE INDEX entries_processing ON entries (profile_id, environment, created_at) WHERE state = 'known' AND status = 'processing';
    `,
  },
];

export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
