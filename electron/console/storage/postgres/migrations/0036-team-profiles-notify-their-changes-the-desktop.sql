-- Migration 36: team profiles notify their changes; the desktop an entry was written on
--
-- Workspace migration 36, two gaps of issue 24 left by migrations 33 and 7:
--
-- - **Team profiles are live** (docs/decisions/team-profiles-live.md): a profile an admin adds,
--   edits or removes NOTIFYs on the change channel at commit, so every other desktop reads its
--   definitions again and its screens (Settings, the profile picker, the payout form) list the new
--   ones without a restart. Migration 7's function reads NEW only: a removal needs OLD.
-- - **The desktop an entry was written on** (docs/decisions/local-sandbox-follow-ups.md):
--   `entries.desktop_id`, stamped by the database from the connection's `paydesk.desktop` setting
--   (each desktop's console sends its own id when it connects: electron/console/desktop-id.ts), so a
--   `local-sandbox` entry is followed up by the desktop whose engine holds it, even when the same
--   login works on two desktops. Entries written before have none: the login decides for them, as
--   before. The default is set after the column is added, so no existing entry takes the migrating
--   desktop's id (ADD COLUMN … DEFAULT would store it as the old rows' value).
--
-- The connection setting a desktop's console names itself with (startup option `-c paydesk.desktop=…`).

    CREATE FUNCTION paydesk_notify_team_profile() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed text;
    BEGIN
      IF TG_OP = 'DELETE' THEN changed := OLD.id; ELSE changed := NEW.id; END IF;
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'team_profiles', 'id', changed, 'batchId', NULL)::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER team_profiles_changed AFTER INSERT OR UPDATE OR DELETE ON team_profiles FOR EACH ROW EXECUTE FUNCTION paydesk_notify_team_profile();

    ALTER TABLE entries ADD COLUMN desktop_id text CHECK (desktop_id IS NULL OR length(desktop_id) <= 100);
    ALTER TABLE entries ALTER COLUMN desktop_id SET DEFAULT NULLIF(current_setting('paydesk.desktop', true), '');
  