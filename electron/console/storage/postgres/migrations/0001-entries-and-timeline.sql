-- Migration 1: entries and timeline

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
    