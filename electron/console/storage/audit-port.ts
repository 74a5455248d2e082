/**
 * The audit log of a team workspace, read (issue 25 item 5), and the console's sign-in written: pages newest first and every line a
 * filter keeps, for the Audit screen and its CSV export. Reading only: the log is append-only and
 * written by the database (postgres/migrations/0020-audit-log-and-approval-policy.sql). An optional part of the storage
 * port, like approvals: the SQLite store has none (docs/decisions/audit-screen.md).
 */
import type { AuditEntry, AuditFilter } from '../../../shared/api/audit';

export interface AuditPort {
  /** Up to `limit` lines the filter keeps, newest first, below `before` (an id) when given. */
  page(filter: AuditFilter, options: { before?: number; limit: number }): Promise<AuditEntry[]>;
  /** Every line the filter keeps, newest first, at most `max` (the export refuses more). */
  all(filter: AuditFilter, max: number): Promise<AuditEntry[]>;
  /**
   * This console opened the workspace: a `sign_in` line under the login (the one action the database
   * cannot see itself; every other is written by its triggers, postgres/migrations/0034-every-action-of-a-person-in-the.sql).
   */
  recordSignIn(desktop: { version: string }): Promise<void>;
  /**
   * This desktop leaves the workspace for its own journal, or comes back to it: a line under the
   * login, written before the choice changes (postgres/migrations/0042-leaving-the-workspace-for-this-desktop-only.sql).
   */
  recordWorkspaceMove(move: 'leave_workspace' | 'join_workspace', desktop: { version: string; desktopId: string; to?: 'desktop' | 'another workspace' }): Promise<void>;
}
