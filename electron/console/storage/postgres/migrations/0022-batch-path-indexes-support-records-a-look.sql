-- Migration 22: batch path indexes, support records a look-up
--
-- Workspace migration 22: the batch path's lookups by the columns they name, and a support
-- agent's Look up of a transaction Paydesk never sent.
--
-- Indexes. Before the first ANALYZE of a growing table (a new workspace, a bench) the planner
-- guesses each equality's selectivity, and so preferred the Overview index (profile,
-- environment, … kind: three equalities) to `entries_by_external_id` (one) for "an earlier entry
-- of this payout?", scanning every entry of the profile: each row's pending entry cost grew with
-- the journal (bench/storage.ts: 892 → 488 rows/s over five batches). The payout's own columns,
-- in the order its latest attempt is read (electron/console/storage/postgres/journal.ts), make the
-- right plan the cheapest whatever the statistics say. A live claim's rows by their holder: a
-- renewal or a release reads its rows, not the whole batch. An entry's folded search text
-- (migration 5) is computed on insert and when a searched column changes, not on every answer
-- (a small saving: 0.01 ms a write once the session has loaded unaccent).
--
-- Look up by support (docs/decisions/support-looks-up-into-the-journal.md): a transaction found
-- at the service that the journal does not hold is recorded as a new `known` entry
-- (follow-ups.ts recordLookedUp). Support may INSERT only the columns a look-up writes (no
-- request, batch link, retry or adoption columns), and row-level security lets its row in only
-- as `known`, with a transaction and no request or batch: never a `pending` request, which is
-- what lets a POST leave. Finance keeps every insert. Who wrote it is stamped from session_user
-- (migration 7's trigger).
--
-- The columns recordLookedUp (electron/console/storage/postgres/follow-ups.ts) inserts: what support may write in a new entry.

    CREATE INDEX entries_by_payout ON entries (external_id, kind, profile_id, environment, created_at DESC, seq DESC);
    CREATE INDEX batch_rows_by_holder ON batch_rows (claim_holder) WHERE claim_holder IS NOT NULL;
    -- An accepted answer names the external id again (the same): the folded search text is
    -- computed again only when a searched column really changed.
    DROP TRIGGER entries_search_text ON entries;
    CREATE TRIGGER entries_search_text BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_entries_search_text();
    CREATE TRIGGER entries_search_text_changed BEFORE UPDATE OF external_id, phone_number, customer_first_name, customer_last_name ON entries
      FOR EACH ROW WHEN (OLD.external_id IS DISTINCT FROM NEW.external_id OR OLD.phone_number IS DISTINCT FROM NEW.phone_number
        OR OLD.customer_first_name IS DISTINCT FROM NEW.customer_first_name OR OLD.customer_last_name IS DISTINCT FROM NEW.customer_last_name)
      EXECUTE FUNCTION paydesk_entries_search_text();

    GRANT INSERT (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, failed_code, amount, currency, phone_number, payment_method, customer_first_name, customer_last_name, customer_email, description, metadata, transaction_json, created_at, updated_at) ON entries TO paydesk_support;
    ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
    CREATE POLICY entries_read ON entries FOR SELECT USING (true);
    CREATE POLICY entries_change ON entries FOR UPDATE USING (true) WITH CHECK (true);
    CREATE POLICY entries_remove ON entries FOR DELETE USING (true);
    -- What each role may insert; grants still decide who may insert at all (admin: no one row).
    CREATE POLICY entries_sent ON entries FOR INSERT TO paydesk_finance WITH CHECK (true);
    CREATE POLICY entries_looked_up ON entries FOR INSERT TO paydesk_support
      WITH CHECK (state = 'known' AND transaction_id IS NOT NULL AND request IS NULL AND batch_id IS NULL AND batch_row IS NULL AND retry_of IS NULL);
  