/**
 * Names the workspace's SQL (./migrations/*.sql) and its TypeScript both use.
 *
 * The migrations are SQL files, so these values are written twice: once here for the code, once
 * in the SQL. test/storage/migration-files.test.ts fails when one of them is missing from the SQL.
 */

/** The NOTIFY channel of every change event (migration 7 and the triggers after it). */
export const CHANGES_CHANNEL = 'paydesk_changes';

/** The team's roles (migration 7): each person's login is a member of one or more. */
export const ROLES = { finance: 'paydesk_finance', support: 'paydesk_support', admin: 'paydesk_admin' } as const;

/** The connection setting a desktop's console names itself with (startup option `-c paydesk.desktop=…`, migration 36). */
export const DESKTOP_SETTING = 'paydesk.desktop';

/** The workspace's schema (migration 7 grants its tables there). */
export const WORKSPACE_SCHEMA = 'public';

/** What every function of the workspace runs with (migration 39): `pg_temp` named last, so it is searched last. */
export const WORKSPACE_SEARCH_PATH = `pg_catalog, ${WORKSPACE_SCHEMA}, pg_temp`;

/** The furthest ahead a run's `alive_until` may be stamped (ms, migration 29): five leases of two minutes. */
export const RUN_ALIVE_MAX_AHEAD_MS = 600_000;

/**
 * The approval rules' refusals, by SQLSTATE (migration 28; docs/decisions/approvals-port.md), so the
 * console tells "this needs an approval" from "your role may not do this" without reading English.
 * A custom class ("PD") is no standard SQLSTATE class, so no other error shares it.
 */
export const APPROVAL_SQLSTATE = {
  approvalRequired: 'PD001',
  changedSinceApproval: 'PD002',
  ownRequest: 'PD010',
  notWaiting: 'PD011',
  notApprover: 'PD012',
  notWhatWasSeen: 'PD013',
  /** Migration 30: an approved request whose money has left is not withdrawn. */
  alreadySent: 'PD014',
  /** Migration 43: an approved payout's approval was spent by another entry (one approval, one send). */
  approvalSpent: 'PD020',
} as const;

/** People and second-admin changes' refusals (migrations 45 and 46; docs/decisions/people-and-admin-four-eyes.md). */
export const PEOPLE_SQLSTATE = {
  notAdmin: 'PD030',
  secondAdminNeeded: 'PD031',
  invalidInput: 'PD032',
  changeNotWaiting: 'PD033',
  notAPerson: 'PD034',
  directWrite: 'PD035',
} as const;

/** The team sender's role (migration 48; docs/team-sender.md): its logins alone send for a profile whose keys it holds. */
export const SENDER_ROLE = 'paydesk_sender';

/** A send refused because the profile's keys are with the team sender, or a sender login's vote (migration 48). */
export const SENDER_HELD_SQLSTATE = 'PD048';

/**
 * The team sandbox (migration 49; docs/team-sender.md "One sandbox for the team"): the team profile
 * the sender publishes on its sandbox engine, the one-row table that says where it is (control URL
 * and token: admins only), and the function only a sender login may call to publish it.
 */
export const TEAM_SANDBOX = { profileId: 'team-sandbox', table: 'team_sandbox', publish: 'paydesk_publish_team_sandbox', auditAction: 'team_sandbox_publish' } as const;

/**
 * A send of another desktop's Local sandbox batch refused (migration 50; docs/decisions/local-sandbox-batch-stays-on-its-desktop.md):
 * moving it to sending, claiming its rows or writing their pending entries from a desktop whose engine is not the batch's.
 */
export const LOCAL_SANDBOX_BATCH_SQLSTATE = 'PD050';
