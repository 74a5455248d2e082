/**
 * The people port on a team workspace (../people-port.ts): reads are plain SELECTs, every change
 * is one call of the workspace's SECURITY DEFINER functions (migrations 45-46), which check the
 * admin, the data and the second person themselves; names and passwords go as parameters, never
 * as SQL text, and a password only as its SCRAM verifier.
 */
import type { AdminChange, PeopleView, PersonLogin, PersonRole } from '../../../../shared/api/people';
import { PeopleRefusal, type PeoplePort } from '../people-port';
import type { WorkspacePool } from './db';
import { PEOPLE_SQLSTATE } from './schema-names';
import { scramVerifier } from './scram-verifier';

type PgError = Error & { code?: string; detail?: string };

const DB_ROLE: Record<PersonRole, string> = { finance: 'paydesk_finance', support: 'paydesk_support', admin: 'paydesk_admin' };
const APPROVER_DB_ROLE = { finance: 'paydesk_finance', admin: 'paydesk_admin' } as const;

/** The form field a refusal names (its DETAIL: {"field": …}), if any. */
function fieldOf(detail: string | undefined): string | null {
  try {
    return detail ? ((JSON.parse(detail) as { field?: string }).field ?? null) : null;
  } catch {
    return null;
  }
}

/** A people rule's refusal as a code, or null for anything else (a lost connection keeps its own handling). */
export function peopleRefusalOf(error: unknown): PeopleRefusal | null {
  if (!(error instanceof Error)) return null;
  const { code, message, detail } = error as PgError;
  switch (code) {
    case PEOPLE_SQLSTATE.notAdmin:
      return new PeopleRefusal('PEOPLE_NOT_ADMIN', message);
    case PEOPLE_SQLSTATE.secondAdminNeeded:
    case PEOPLE_SQLSTATE.directWrite:
      return new PeopleRefusal('SECOND_ADMIN_NEEDED', message);
    case PEOPLE_SQLSTATE.invalidInput: {
      return new PeopleRefusal('PEOPLE_INVALID', message, fieldOf(detail));
    }
    case PEOPLE_SQLSTATE.changeNotWaiting:
      return new PeopleRefusal('CHANGE_NOT_WAITING', message);
    case PEOPLE_SQLSTATE.notAPerson:
      return new PeopleRefusal('NOT_A_PERSON', message);
    case 'P0002': // no such change
      return new PeopleRefusal('CHANGE_NOT_WAITING', message);
    default:
      return null;
  }
}

interface ChangeRow {
  id: string;
  kind: AdminChange['kind'];
  change: Record<string, unknown>;
  state: AdminChange['state'];
  requested_by: string;
  requested_at: Date;
  decided_by: string | null;
  mine: boolean;
}

const CHANGE_COLUMNS = `id, kind, change, state, requested_by, requested_at, decided_by, paydesk_person_of(requested_by) = paydesk_person_of(session_user) AS mine`;

const changeOf = (row: ChangeRow): AdminChange => ({
  id: Number(row.id),
  kind: row.kind,
  change: row.change,
  state: row.state,
  requestedBy: row.requested_by,
  requestedAt: row.requested_at.toISOString(),
  decidedBy: row.decided_by,
  mine: row.mine,
});

export function workspacePeople(pool: WorkspacePool): PeoplePort {
  async function refusing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw peopleRefusalOf(error) ?? error;
    }
  }

  async function change(id: number): Promise<AdminChange> {
    const { rows } = await pool.query<ChangeRow>(`SELECT ${CHANGE_COLUMNS} FROM admin_changes WHERE id = $1`, [id]);
    return changeOf(rows[0]!);
  }

  async function asked(sql: string, params: unknown[]): Promise<AdminChange> {
    const { rows } = await refusing(() => pool.query<{ id: string }>(sql, params));
    return change(Number(rows[0]!.id));
  }

  return {
    async view(): Promise<PeopleView> {
      // The admin's columns of admin_changes: read by admins only, so the list asks the admin first.
      await refusing(() => pool.query('SELECT paydesk_assert_admin()'));
      const people = await pool.query<{ login: string; person_id: string | null; display_name: string; roles: string[]; disabled: boolean }>(
        `SELECT r.rolname AS login, l.person_id, coalesce(p.display_name, r.rolname) AS display_name,
           ARRAY(SELECT g FROM unnest(ARRAY['paydesk_finance', 'paydesk_support', 'paydesk_admin']) g
                 WHERE EXISTS (SELECT FROM pg_auth_members m WHERE m.member = r.oid AND m.roleid = g::regrole)) AS roles,
           coalesce(l.disabled, false) OR NOT r.rolcanlogin AS disabled
         FROM pg_roles r LEFT JOIN person_logins l ON l.login = r.rolname LEFT JOIN people p ON p.id = l.person_id
         WHERE NOT r.rolsuper AND (l.login IS NOT NULL OR (r.rolcanlogin AND EXISTS (SELECT FROM pg_auth_members m
           WHERE m.member = r.oid AND m.roleid IN ('paydesk_finance'::regrole, 'paydesk_support'::regrole, 'paydesk_admin'::regrole))))
         ORDER BY lower(coalesce(p.display_name, r.rolname)), r.rolname`,
      );
      const changes = await pool.query<ChangeRow>(
        `(SELECT ${CHANGE_COLUMNS} FROM admin_changes WHERE state = 'awaiting' ORDER BY id)
         UNION ALL (SELECT ${CHANGE_COLUMNS} FROM admin_changes WHERE state <> 'awaiting' ORDER BY id DESC LIMIT 20)`,
      );
      const about = await pool.query<{ admins: number; login: string }>('SELECT paydesk_admin_people() AS admins, session_user AS login');
      return {
        people: people.rows.map((row): PersonLogin => ({
          login: row.login,
          personId: row.person_id === null ? null : Number(row.person_id),
          displayName: row.display_name,
          roles: row.roles.map((role) => role.replace(/^paydesk_/, '') as PersonRole),
          disabled: row.disabled,
        })),
        changes: changes.rows.map(changeOf),
        adminPeople: about.rows[0]!.admins,
        login: about.rows[0]!.login,
      };
    },
    askAddPerson: ({ login, role, displayName, password }) =>
      asked('SELECT paydesk_ask_add_person($1, $2, $3, $4) AS id', [login, DB_ROLE[role], displayName, scramVerifier(password)]),
    askResetPassword: (login, password) => asked('SELECT paydesk_ask_reset_password($1, $2) AS id', [login, scramVerifier(password)]),
    askDisableLogin: (login) => asked('SELECT paydesk_ask_disable_login($1) AS id', [login]),
    askRole: (login, role, member) => asked('SELECT paydesk_ask_role($1, $2, $3) AS id', [login, DB_ROLE[role], member]),
    askPolicy: (environment, currency, tiers) =>
      asked('SELECT paydesk_ask_policy($1, $2, $3::jsonb) AS id', [
        environment,
        currency,
        JSON.stringify(tiers.map((t) => ({ min_amount: t.minAmount, approvals: t.approvals, approver_role: APPROVER_DB_ROLE[t.approverRole] }))),
      ]),
    async approveChange(id, remark) {
      await refusing(() => pool.query('SELECT paydesk_approve_change($1, $2)', [id, remark ?? null]));
      return change(id);
    },
    async rejectChange(id, remark) {
      await refusing(() => pool.query('SELECT paydesk_reject_change($1, $2)', [id, remark ?? null]));
      return change(id);
    },
  };
}
