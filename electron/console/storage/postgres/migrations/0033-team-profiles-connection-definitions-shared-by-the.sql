-- Migration 33: team profiles: connection definitions shared by the team, never a key
--
-- Team profiles on a team workspace (electron/console/storage/team-profiles-port.ts; docs/decisions/team-profiles.md).
--
-- Migration 33: `team_profiles` holds definitions only. The table has no column for a key, public
-- or secret, so no client, modified or not, can put one there. Admin writes, finance and support
-- read: the grants say so, and row-level security says it again so a later blanket grant (such as
-- migration 7's `SELECT ON ALL TABLES`, or an INSERT given by mistake) still cannot let a non-admin
-- write a connection every desktop would send money through.

    CREATE TABLE team_profiles (
      id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
      environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
      base_url text NOT NULL CHECK (base_url ~ '^https?://' AND length(base_url) <= 500),
      header_word text NOT NULL CHECK (header_word ~ '^[A-Za-z0-9]{1,32}$'),
      updated_at bigint NOT NULL,
      updated_by text NOT NULL DEFAULT session_user
    );
    CREATE TRIGGER team_profiles_who BEFORE INSERT OR UPDATE ON team_profiles FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();

    REVOKE ALL ON team_profiles FROM PUBLIC;
    GRANT SELECT ON team_profiles TO paydesk_finance, paydesk_support, paydesk_admin;
    GRANT INSERT, UPDATE, DELETE ON team_profiles TO paydesk_admin;

    ALTER TABLE team_profiles ENABLE ROW LEVEL SECURITY;
    CREATE POLICY team_profiles_read ON team_profiles FOR SELECT
      USING (pg_has_role(session_user, 'paydesk_finance', 'MEMBER') OR pg_has_role(session_user, 'paydesk_support', 'MEMBER')
        OR pg_has_role(session_user, 'paydesk_admin', 'MEMBER'));
    CREATE POLICY team_profiles_admin_insert ON team_profiles FOR INSERT WITH CHECK (pg_has_role(session_user, 'paydesk_admin', 'MEMBER'));
    CREATE POLICY team_profiles_admin_update ON team_profiles FOR UPDATE
      USING (pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) WITH CHECK (pg_has_role(session_user, 'paydesk_admin', 'MEMBER'));
    CREATE POLICY team_profiles_admin_delete ON team_profiles FOR DELETE USING (pg_has_role(session_user, 'paydesk_admin', 'MEMBER'));
  