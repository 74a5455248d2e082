-- Migration 2: bulk payout batches

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
    