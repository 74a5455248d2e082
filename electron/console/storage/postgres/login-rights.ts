/**
 * A workspace login's rights (../login-rights-port.ts), from its roles as the database knows them
 * (`session_user`'s memberships, migration 7): finance sends, finance and support follow up.
 */
import type { LoginRights } from '../login-rights-port';
import type { Queryable } from './db';
import { ROLES } from './schema-names';

export async function workspaceLoginRights(db: Queryable): Promise<LoginRights> {
  const { rows } = await db.query<{ finance: boolean; support: boolean }>(
    `SELECT pg_has_role(session_user, $1, 'MEMBER') AS finance, pg_has_role(session_user, $2, 'MEMBER') AS support`,
    [ROLES.finance, ROLES.support],
  );
  const row = rows[0]!;
  return { sends: row.finance, followsUp: row.finance || row.support };
}
