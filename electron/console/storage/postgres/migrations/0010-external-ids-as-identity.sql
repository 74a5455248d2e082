-- Migration 10: external ids as identity
--
-- As the SQLite journal's 9: already_sent_at (the service refused the entry's POST because its
-- external id existed; the entry adopts that transaction), retry_of (the external id a retried
-- row's new id derives from, <id>-r1). Support follows entries up (a look-up adopts), so it may
-- stamp already_sent_at like the other follow-up columns it updates.

      ALTER TABLE entries ADD COLUMN already_sent_at bigint;
      ALTER TABLE entries ADD COLUMN retry_of text;
      ALTER TABLE batch_rows ADD COLUMN retry_of text;
      CREATE INDEX entries_adopted ON entries (profile_id, environment, created_at) WHERE already_sent_at IS NOT NULL;
      GRANT UPDATE (already_sent_at) ON entries TO paydesk_support;
    