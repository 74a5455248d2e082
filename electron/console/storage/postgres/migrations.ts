/**
 * The team workspace's schema as numbered migrations, the same meaning as the journal's own
 * (../../journal/migrations.ts) version for version: 1 entries and timeline, 2 batches, 3
 * reconciliations, 4 Overview indexes, 5 substring search, 6 sandbox status events. Migration 7
 * is the workspace's own (roles, who did what, claims, change events: ./team-migrations.ts); the
 * journal's later migrations follow it (./parity-migrations.ts keeps the mapping).
 *
 * Columns keep the SQLite names and meanings (times in ms, money in the smallest unit, JSON as
 * text), so rows map to the domain with the same functions (../../journal/rows.ts).
 */
import { PARITY_MIGRATIONS } from './parity-migrations';
import { TEAM_MIGRATIONS } from './team-migrations';
import { APPROVAL_MIGRATIONS } from './approval-migrations';
import { LIVE_MIGRATIONS } from './live-migration';
import { APPROVAL_REFUSAL_MIGRATIONS } from './approval-refusal-sql';
import { SPEED_AND_LOOK_UP_MIGRATION } from './speed-and-look-up-migration';
import { BATCH_RUNS_MIGRATION } from './batch-runs-migration';
import { APPROVAL_RACES_MIGRATION } from './approval-races-sql';
import { BATCH_GATE_SPEED_MIGRATION } from './batch-gate-speed-migration';
import { TEAM_PROFILES_MIGRATION } from './team-profiles';
import { BATCH_RUNS_SECURITY_MIGRATION } from './batch-runs-security-migration';
import { AUDIT_LIVE_MIGRATION } from './audit-live-migration';
import { BATCH_PATH_TRIGGERS_MIGRATION } from './batch-path-triggers-migration';
import { AUDIT_ACTIONS_MIGRATION } from './audit-actions-migration';
import { DESKTOP_AND_PROFILES_MIGRATION } from './desktop-and-profiles-migration';
import { ENTRY_INDEXES_MIGRATION } from './entry-indexes-migration';
import { ONE_ENTRY_PER_PAYOUT_MIGRATION } from './one-entry-per-payout-migration';
import { FIXED_SEARCH_PATH_MIGRATION } from './fixed-search-path-migration';
import { WORKSPACE_GATES_MIGRATION } from './workspace-gates-migration';
import { LEAVE_WORKSPACE_MIGRATION } from './leave-workspace-migration';
import { TEAM_SENDER_MIGRATION } from './team-sender-migration';

import type { PgMigration } from './pg-migration';

export type { PgMigration };

const SHARED_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'entries and timeline',
    sql: `
      CREATE TABLE entries (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        profile_id text NOT NULL,
        profile_name text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
        kind text NOT NULL CHECK (kind IN ('payment', 'payout')),
        state text NOT NULL CHECK (state IN ('pending', 'outcome_unknown', 'rejected', 'known')),
        resolution text CHECK (resolution IN ('not_found')),
        transaction_id text,
        external_id text,
        status text,
        failed_code text,
        amount bigint NOT NULL CHECK (amount >= 0),
        currency text NOT NULL,
        fee bigint,
        net_amount bigint,
        phone_number text NOT NULL,
        payment_method text NOT NULL,
        customer_first_name text NOT NULL,
        customer_last_name text NOT NULL,
        customer_email text NOT NULL,
        description text,
        metadata text,
        request text,
        last_error text,
        transaction_json text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX entries_by_external_id ON entries (external_id, created_at);
      CREATE INDEX entries_by_transaction_id ON entries (transaction_id, created_at);
      CREATE INDEX entries_by_phone ON entries (phone_number, created_at);
      CREATE INDEX entries_by_created ON entries (created_at);
      CREATE INDEX entries_by_state ON entries (state, created_at);
      CREATE INDEX entries_by_status ON entries (status, created_at);
      -- SQLite compares names with COLLATE NOCASE: here the index is on the lower-cased name.
      CREATE INDEX entries_by_last_name ON entries (lower(customer_last_name) text_pattern_ops);
      CREATE INDEX entries_by_first_name ON entries (lower(customer_first_name) text_pattern_ops);

      CREATE TABLE timeline (
        id bigserial PRIMARY KEY,
        entry_seq bigint NOT NULL REFERENCES entries (seq) ON DELETE CASCADE,
        type text NOT NULL,
        at bigint NOT NULL,
        status text,
        http_status integer,
        code text,
        message text,
        outcome text CHECK (outcome IN ('not-sent', 'unknown'))
      );
      CREATE INDEX timeline_by_entry ON timeline (entry_seq, id);
    `,
  },
  {
    version: 2,
    name: 'bulk payout batches',
    sql: `
      CREATE TABLE batches (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        file_name text NOT NULL,
        file_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('draft', 'sending', 'paused', 'interrupted', 'cancelled', 'done')),
        state_reason text,
        profile_id text NOT NULL,
        profile_name text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
        payment_method text,
        concurrency integer NOT NULL CHECK (concurrency BETWEEN 1 AND 64),
        retry_of text,
        rehearsal text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        started_at bigint,
        finished_at bigint
      );
      CREATE INDEX batches_by_file_hash ON batches (file_hash);
      CREATE INDEX batches_by_state ON batches (state);

      CREATE TABLE batch_rows (
        batch_seq bigint NOT NULL REFERENCES batches (seq) ON DELETE CASCADE,
        row_number integer NOT NULL,
        cells text NOT NULL,
        request text,
        errors text NOT NULL,
        duplicates text NOT NULL,
        external_id text NOT NULL,
        journal_id text,
        rehearsal text,
        PRIMARY KEY (batch_seq, row_number)
      );
      CREATE INDEX batch_rows_by_journal ON batch_rows (journal_id) WHERE journal_id IS NOT NULL;

      ALTER TABLE entries ADD COLUMN batch_id text;
      ALTER TABLE entries ADD COLUMN batch_row integer;
      CREATE INDEX entries_by_batch ON entries (batch_id, batch_row) WHERE batch_id IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: 'reconciliations',
    sql: `
      CREATE TABLE reconciliations (
        id text PRIMARY KEY,
        file_name text NOT NULL,
        profile_id text NOT NULL,
        profile_name text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
        status text NOT NULL CHECK (status IN ('importing', 'running', 'done', 'cancelled', 'interrupted')),
        phase text NOT NULL CHECK (phase IN ('matching', 'verifying')),
        total_rows integer NOT NULL,
        processing_minutes integer NOT NULL,
        period_from bigint,
        period_to bigint,
        period_source text CHECK (period_source IN ('file', 'picked')),
        unknown_done integer NOT NULL DEFAULT 0,
        rate_limit_waits integer NOT NULL DEFAULT 0,
        currency text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        finished_at bigint
      );
      CREATE INDEX reconciliations_by_created ON reconciliations (created_at);

      CREATE TABLE reconciliation_rows (
        reconciliation_id text NOT NULL REFERENCES reconciliations (id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        source text NOT NULL CHECK (source IN ('file', 'journal')),
        external_id text,
        kind text NOT NULL CHECK (kind IN ('payment', 'payout')),
        amount bigint,
        expected_raw text,
        expected text CHECK (expected IN ('completed', 'failed', 'cancelled', 'processing', 'not_completed')),
        row_date text,
        category text,
        journal_id text,
        transaction_id text,
        service_status text,
        service_amount bigint,
        service_created_at bigint,
        currency text,
        detail text,
        verified integer NOT NULL DEFAULT 0,
        PRIMARY KEY (reconciliation_id, row_number)
      );
      CREATE INDEX reconciliation_rows_by_category ON reconciliation_rows (reconciliation_id, category, row_number);
    `,
  },
  {
    version: 4,
    name: 'overview indexes',
    sql: `
      CREATE INDEX entries_overview ON entries (profile_id, environment, created_at, kind, state, status, failed_code, currency, amount);
      CREATE INDEX entries_processing ON entries (profile_id, environment, created_at) WHERE state = 'known' AND status = 'processing';
    `,
  },
  {
    version: 5,
    name: 'substring search index',
    // History's "contains" search: SQLite's FTS5 trigram table is pg_trgm's GIN index here, on one
    // column the database keeps folded (lower case, accents removed) by trigger, as FTS5's
    // tokenizer folds (case_sensitive 0, remove_diacritics 1). pg_trgm and unaccent are trusted
    // extensions: the workspace's owner may create them without being a superuser.
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE EXTENSION IF NOT EXISTS unaccent;
      ALTER TABLE entries ADD COLUMN search_text text NOT NULL DEFAULT '';
      CREATE FUNCTION paydesk_entries_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_text := lower(unaccent(coalesce(NEW.external_id, '') || ' ' || NEW.phone_number || ' '
          || NEW.customer_first_name || ' ' || NEW.customer_last_name));
        RETURN NEW;
      END $$;
      CREATE TRIGGER entries_search_text BEFORE INSERT OR UPDATE OF external_id, phone_number, customer_first_name, customer_last_name
        ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_entries_search_text();
      UPDATE entries SET external_id = external_id;
      CREATE INDEX entries_search ON entries USING gin (search_text gin_trgm_ops);
    `,
  },
  {
    version: 6,
    name: 'sandbox status events named for what they are',
    sql: `UPDATE timeline SET type = 'sandbox_status' WHERE type = 'webhook_received';`,
  },
];

export const PG_MIGRATIONS: readonly PgMigration[] = [...SHARED_MIGRATIONS, ...TEAM_MIGRATIONS, ...PARITY_MIGRATIONS, ...APPROVAL_MIGRATIONS, SPEED_AND_LOOK_UP_MIGRATION, ...LIVE_MIGRATIONS, BATCH_RUNS_MIGRATION, ...APPROVAL_REFUSAL_MIGRATIONS, BATCH_RUNS_SECURITY_MIGRATION, APPROVAL_RACES_MIGRATION, AUDIT_LIVE_MIGRATION, BATCH_PATH_TRIGGERS_MIGRATION, TEAM_PROFILES_MIGRATION, AUDIT_ACTIONS_MIGRATION, BATCH_GATE_SPEED_MIGRATION, DESKTOP_AND_PROFILES_MIGRATION, ENTRY_INDEXES_MIGRATION,
  ONE_ENTRY_PER_PAYOUT_MIGRATION, FIXED_SEARCH_PATH_MIGRATION, WORKSPACE_GATES_MIGRATION, LEAVE_WORKSPACE_MIGRATION,
  TEAM_SENDER_MIGRATION];
