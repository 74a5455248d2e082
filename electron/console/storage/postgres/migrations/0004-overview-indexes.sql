-- Migration 4: overview indexes

      CREATE INDEX entries_overview ON entries (profile_id, environment, created_at, kind, state, status, failed_code, currency, amount);
      CREATE INDEX entries_processing ON entries (profile_id, environment, created_at) WHERE state = 'known' AND status = 'processing';
    