-- Migration 7: team roles, who did what, row claims, change events
--
-- The workspace's own migrations (7 and later): what only a shared database has.
-- - Roles: `paydesk_finance` sends, `paydesk_support` reads, verifies and reconciles,
--   `paydesk_admin` keeps the team settings (and, with CREATEROLE given by whoever runs the server,
--   the people). Each person logs in as their own PostgreSQL login, a member of one or more of them.
-- - Who did what: `created_by` / `updated_by` / `recorded_by` / `claimed_by` are written by
--   triggers from `session_user`, never from a value the client sends (a modified client cannot
--   write another name: the trigger overwrites it).
-- - Row claims on batch rows with a lease on the database's clock, guarded by row-level security:
--   a live claim can only be renewed or released by the login that holds it.
-- - Change events: NOTIFY `paydesk_changes` with a small JSON payload on every write other
--   desktops show (delivered at commit, so a listener never sees an uncommitted change).

      -- Roles are the cluster's, shared by its databases: created once.
      DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'paydesk_finance') THEN CREATE ROLE paydesk_finance NOLOGIN; END IF;
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'paydesk_support') THEN CREATE ROLE paydesk_support NOLOGIN; END IF;
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'paydesk_admin') THEN CREATE ROLE paydesk_admin NOLOGIN; END IF;
      END $$;

      -- The database's clock in ms: leases are measured on one clock for every desktop.
      CREATE FUNCTION paydesk_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
        $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

      ALTER TABLE entries ADD COLUMN created_by text NOT NULL DEFAULT session_user, ADD COLUMN updated_by text NOT NULL DEFAULT session_user;
      ALTER TABLE batches ADD COLUMN created_by text NOT NULL DEFAULT session_user, ADD COLUMN updated_by text NOT NULL DEFAULT session_user;
      ALTER TABLE reconciliations ADD COLUMN created_by text NOT NULL DEFAULT session_user, ADD COLUMN updated_by text NOT NULL DEFAULT session_user;
      ALTER TABLE timeline ADD COLUMN recorded_by text NOT NULL DEFAULT session_user;

      CREATE FUNCTION paydesk_stamp_who() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN NEW.created_by := session_user; ELSE NEW.created_by := OLD.created_by; END IF;
        NEW.updated_by := session_user;
        RETURN NEW;
      END $$;
      CREATE TRIGGER entries_who BEFORE INSERT OR UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();
      CREATE TRIGGER batches_who BEFORE INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();
      CREATE TRIGGER reconciliations_who BEFORE INSERT OR UPDATE ON reconciliations FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();
      CREATE FUNCTION paydesk_stamp_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.recorded_by := session_user;
        RETURN NEW;
      END $$;
      CREATE TRIGGER timeline_who BEFORE INSERT ON timeline FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_recorded();

      -- A claim: the login (claimed_by, from session_user), the desktop's own token (claim_holder),
      -- and the lease's end on the database's clock.
      ALTER TABLE batch_rows ADD COLUMN claimed_by text, ADD COLUMN claim_holder text, ADD COLUMN lease_until bigint;
      CREATE INDEX batch_rows_leases ON batch_rows (lease_until) WHERE lease_until IS NOT NULL;
      CREATE FUNCTION paydesk_stamp_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.claim_holder IS NULL THEN
          NEW.claimed_by := NULL;
          NEW.lease_until := NULL;
        ELSE
          NEW.claimed_by := session_user;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER batch_rows_claim BEFORE INSERT OR UPDATE ON batch_rows FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_claim();

      ALTER TABLE batch_rows ENABLE ROW LEVEL SECURITY;
      CREATE POLICY batch_rows_read ON batch_rows FOR SELECT USING (true);
      CREATE POLICY batch_rows_add ON batch_rows FOR INSERT WITH CHECK (true);
      -- A row under another login's live lease is that login's alone: no one else may change it.
      CREATE POLICY batch_rows_change ON batch_rows FOR UPDATE
        USING (claimed_by IS NULL OR claimed_by = session_user OR lease_until <= paydesk_now_ms())
        WITH CHECK (claimed_by IS NULL OR claimed_by = session_user);
      CREATE POLICY batch_rows_remove ON batch_rows FOR DELETE USING (claimed_by IS NULL OR lease_until <= paydesk_now_ms());

      CREATE TABLE team_settings (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        updated_at bigint NOT NULL,
        updated_by text NOT NULL DEFAULT session_user
      );
      CREATE FUNCTION paydesk_stamp_setting() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.updated_by := session_user;
        RETURN NEW;
      END $$;
      CREATE TRIGGER team_settings_who BEFORE INSERT OR UPDATE ON team_settings FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();

      -- One function for every table: the row read as JSON (tables name their key id or key).
      CREATE FUNCTION paydesk_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changed jsonb := to_jsonb(NEW);
      BEGIN
        PERFORM pg_notify('paydesk_changes', json_build_object(
          'table', TG_TABLE_NAME,
          'id', coalesce(changed->>'id', changed->>'key'),
          'batchId', CASE TG_TABLE_NAME WHEN 'batches' THEN changed->>'id' ELSE changed->>'batch_id' END
        )::text);
        RETURN NULL;
      END $$;
      CREATE TRIGGER entries_changed AFTER INSERT OR UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
      CREATE TRIGGER batches_changed AFTER INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
      CREATE TRIGGER reconciliations_changed AFTER INSERT OR UPDATE ON reconciliations FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
      CREATE TRIGGER team_settings_changed AFTER INSERT OR UPDATE ON team_settings FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();

      -- What each role may do. Everyone reads; finance sends (entries, batches, their rows);
      -- support follows up (an entry's status and resolution, not its request) and reconciles;
      -- admin writes the team settings.
      GRANT USAGE ON SCHEMA public TO paydesk_finance, paydesk_support, paydesk_admin;
      GRANT SELECT ON ALL TABLES IN SCHEMA public TO paydesk_finance, paydesk_support, paydesk_admin;
      GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO paydesk_finance, paydesk_support;
      GRANT INSERT, UPDATE ON entries, timeline, batches TO paydesk_finance;
      GRANT INSERT, UPDATE, DELETE ON batch_rows TO paydesk_finance;
      GRANT INSERT ON timeline TO paydesk_support;
      GRANT UPDATE (state, resolution, transaction_id, external_id, status, failed_code, amount, currency, fee, net_amount,
        last_error, transaction_json, updated_at) ON entries TO paydesk_support;
      GRANT INSERT, UPDATE, DELETE ON reconciliations, reconciliation_rows TO paydesk_finance, paydesk_support;
      GRANT INSERT, UPDATE ON team_settings TO paydesk_admin;
    