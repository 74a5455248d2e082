/**
 * What can go wrong with a team workspace (issue 24 item 7), as codes a screen translates
 * (shared/i18n errors: a title and what to do, English and French). Main's
 * electron/console/storage/postgres/workspace-session.ts gives each failure one of these.
 * - WORKSPACE_UNREACHABLE: the server cannot be reached when the workspace is opened;
 * - WORKSPACE_CONNECTION_LOST: the server went away or the connection was cut after it was open
 *   (sending stops; what was read stays readable);
 * - WORKSPACE_LOGIN_REFUSED: wrong login or password;
 * - WORKSPACE_PASSWORD_MISSING: no password for this login in the OS keychain;
 * - WORKSPACE_TLS_REFUSED: the server's certificate could not be verified;
 * - WORKSPACE_NO_PERMISSION: the login's role does not allow the operation;
 * - WORKSPACE_NO_ROLE: the login is in none of the Paydesk roles;
 * - WORKSPACE_NO_DATABASE: no such database on the server;
 * - WORKSPACE_SCHEMA_NEWER: a newer Paydesk updated the workspace (never migrated down);
 * - WORKSPACE_SCHEMA_OLDER: the workspace needs an update this login may not make;
 * - WORKSPACE_MIGRATION_FAILED: an update failed and was undone;
 * - WORKSPACE_OTHER: any other error the server gave.
 */
export const WORKSPACE_FAULT_CODES = [
  'WORKSPACE_UNREACHABLE',
  'WORKSPACE_CONNECTION_LOST',
  'WORKSPACE_LOGIN_REFUSED',
  'WORKSPACE_PASSWORD_MISSING',
  'WORKSPACE_TLS_REFUSED',
  'WORKSPACE_NO_PERMISSION',
  'WORKSPACE_NO_ROLE',
  'WORKSPACE_NO_DATABASE',
  'WORKSPACE_SCHEMA_NEWER',
  'WORKSPACE_SCHEMA_OLDER',
  'WORKSPACE_MIGRATION_FAILED',
  'WORKSPACE_OTHER',
] as const;
export type WorkspaceFaultCode = (typeof WORKSPACE_FAULT_CODES)[number];
