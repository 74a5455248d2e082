-- Migration 3: reconciliations

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
    