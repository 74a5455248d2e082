/**
 * The audit port on a team workspace: plain SELECTs on audit_log (every role may read it,
 * migration 20). Newest first by id: ids are handed out in commit order of the inserts, and the
 * page below is `id < before`, so a line written while someone reads never shifts a page.
 */
import type { AuditAction, AuditEntry, AuditFilter } from '../../../../shared/api/audit';
import type { AuditPort } from '../audit-port';
import type { Queryable } from './db';

interface AuditRow {
  id: number;
  at: Date;
  actor: string;
  action: AuditAction;
  subject: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  remark: string | null;
}

/** `%`, `_` and `\` the person typed are text, not patterns. */
const likeText = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The WHERE clause and its parameters of one filter (each field ANDed). */
export function auditWhere(filter: AuditFilter, before?: number): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(`$${params.length}`));
  };
  if (filter.actor !== undefined) add((n) => `actor = ${n}`, filter.actor);
  if (filter.action !== undefined) add((n) => `action = ${n}`, filter.action);
  if (filter.from !== undefined) add((n) => `at >= ${n}::timestamptz`, filter.from);
  if (filter.to !== undefined) add((n) => `at < ${n}::timestamptz`, filter.to);
  if (filter.subject !== undefined) add((n) => `subject ILIKE ${n}`, likeText(filter.subject));
  if (before !== undefined) add((n) => `id < ${n}`, before);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

const entryOf = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: row.at.toISOString(),
  actor: row.actor,
  action: row.action,
  subject: row.subject,
  before: row.before,
  after: row.after,
  remark: row.remark,
});

export function workspaceAudit(db: Queryable): AuditPort {
  async function select(filter: AuditFilter, limit: number, before?: number): Promise<AuditEntry[]> {
    const { where, params } = auditWhere(filter, before);
    params.push(limit);
    const { rows } = await db.query<AuditRow>(
      `SELECT id, at, actor, action, subject, before, after, remark FROM audit_log ${where} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(entryOf);
  }
  return {
    page: (filter, { before, limit }) => select(filter, limit, before),
    all: (filter, max) => select(filter, max),
    async recordSignIn(desktop) {
      // The subject is the login itself (who is stamped by the database, never sent).
      await db.query(`SELECT paydesk_audit('sign_in', session_user::text, NULL, jsonb_build_object('version', $1::text))`, [desktop.version]);
    },
    async recordWorkspaceMove(move, desktop) {
      // The remark says what the move means for the policy, for whoever reads the log later.
      const to = move === 'leave_workspace' ? (desktop.to ?? 'desktop') : null;
      const remark = to === 'desktop'
        ? 'this desktop records on its own journal: the team approval policy does not cover what it sends with its own profiles; team profiles stay with the team'
        : to === 'another workspace'
          ? 'this desktop records in another workspace: this team approval policy does not cover what it sends there; team profiles stay with the team'
          : 'this desktop records in the team workspace (first time or back), under its approval policy';
      await db.query(
        `SELECT paydesk_audit($1::text, session_user::text, NULL, jsonb_strip_nulls(jsonb_build_object('version', $2::text, 'desktop', $3::text, 'to', $4::text)), $5::text)`,
        [move, desktop.version, desktop.desktopId, to, remark],
      );
    },
  };
}
