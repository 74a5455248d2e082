/**
 * Team profiles on a team workspace (../team-profiles-port.ts; docs/decisions/team-profiles.md).
 *
 * Migration 33: `team_profiles` holds definitions only. The table has no column for a key, public
 * or secret, so no client, modified or not, can put one there. Admin writes, finance and support
 * read: the grants say so, and row-level security says it again so a later blanket grant (such as
 * migration 7's `SELECT ON ALL TABLES`, or an INSERT given by mistake) still cannot let a non-admin
 * write a connection every desktop would send money through.
 */
import type { Environment } from '../../../../shared/contract';
import type { TeamProfile, TeamProfileDefinition, TeamProfilesPort } from '../team-profiles-port';
import type { PgMigration } from './pg-migration';
import type { Queryable } from './db';

export const TEAM_PROFILES_MIGRATION: PgMigration = {
  version: 33,
  name: 'team profiles: connection definitions shared by the team, never a key',
  sql: `
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
  `,
};

interface TeamProfileRow {
  id: string;
  name: string;
  environment: Environment;
  base_url: string;
  header_word: string;
  updated_at: number;
  updated_by: string;
  keys_held_by: 'desktops' | 'sender';
}

const COLUMNS = 'id, name, environment, base_url, header_word, updated_at, updated_by, keys_held_by';

function fromRow(row: TeamProfileRow): TeamProfile {
  return { id: row.id, name: row.name, environment: row.environment, baseUrl: row.base_url, headerWord: row.header_word, updatedAt: row.updated_at, updatedBy: row.updated_by, keysHeldBy: row.keys_held_by };
}

export function workspaceTeamProfiles(db: Queryable): TeamProfilesPort {
  return {
    available: true,
    async list() {
      const { rows } = await db.query<TeamProfileRow>(`SELECT ${COLUMNS} FROM team_profiles ORDER BY name, id`);
      return rows.map(fromRow);
    },
    async save(definition: TeamProfileDefinition, at: number) {
      const { rows } = await db.query<TeamProfileRow>(
        `INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, environment = EXCLUDED.environment, base_url = EXCLUDED.base_url,
           header_word = EXCLUDED.header_word, updated_at = EXCLUDED.updated_at
         RETURNING ${COLUMNS}`,
        [definition.id, definition.name, definition.environment, definition.baseUrl, definition.headerWord, at],
      );
      return fromRow(rows[0]!);
    },
    async remove(id: string) {
      const { rowCount } = await db.query('DELETE FROM team_profiles WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
