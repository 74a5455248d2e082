/**
 * Team profiles on a team workspace (../team-profiles-port.ts; docs/decisions/team-profiles.md).
 *
 * Migration 33 (./migrations/0033-team-profiles-connection-definitions-shared-by-the.sql):
 * `team_profiles` holds definitions only. The table has no column for a key, public
 * or secret, so no client, modified or not, can put one there. Admin writes, finance and support
 * read: the grants say so, and row-level security says it again so a later blanket grant (such as
 * migration 7's `SELECT ON ALL TABLES`, or an INSERT given by mistake) still cannot let a non-admin
 * write a connection every desktop would send money through.
 */
import type { Environment } from '../../../../shared/contract';
import type { TeamProfile, TeamProfileDefinition, TeamProfilesPort } from '../team-profiles-port';
import type { Queryable } from './db';

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
