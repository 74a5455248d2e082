/**
 * The team sandbox as the workspace publishes it (migration 49; docs/team-sender.md "One sandbox
 * for the team"). Where its control API is and its token are column grants of admins alone: this
 * login's read of them is refused by the database for anyone else, whatever the client.
 */
import type { TeamSandboxPort } from '../team-sandbox-port';
import type { Queryable } from './db';

export function workspaceTeamSandbox(db: Queryable): TeamSandboxPort {
  return {
    async control() {
      try {
        const { rows } = await db.query<{ control_url: string; control_token: string }>('SELECT control_url, control_token FROM team_sandbox');
        return rows[0] ? { state: 'ok', controlUrl: rows[0].control_url, token: rows[0].control_token } : { state: 'none' };
      } catch (error) {
        if ((error as { code?: string }).code === '42501') return { state: 'not-admin' };
        throw error;
      }
    },
  };
}
