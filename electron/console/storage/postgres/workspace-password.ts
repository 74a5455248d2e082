/**
 * A workspace login's password in the OS keychain: the same vault as the API secret keys
 * (../../vault.ts, service `Paydesk`), one entry per workspace and login. The account name says
 * which server, database and login it opens, so two workspaces (or two logins on one) never
 * share an entry, and it cannot be mistaken for an API public key (those never contain `@`).
 * Like a secret key, the password is written and deleted here and read only by the session that
 * connects (./workspace-session.ts); it never goes to settings, logs, SQLite or an error.
 */
import type { Vault } from '../../vault';
import type { WorkspaceConnection } from './connection';

/** The keychain account of a workspace login: `workspace:<login>@<host>:<port>/<database>`. */
export function workspacePasswordAccount(connection: Pick<WorkspaceConnection, 'user' | 'host' | 'port' | 'database'>): string {
  return `workspace:${connection.user}@${connection.host}:${connection.port}/${connection.database}`;
}

/** Longer than any password a person types or a manager generates; the server's own limit is higher. */
const MAX_PASSWORD = 1_000;

export class WorkspacePasswordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspacePasswordError';
  }
}

/** Stores (or replaces) the login's password; an empty or oversized one is refused at once (thrown), not stored. */
export function saveWorkspacePassword(vault: Vault, connection: WorkspaceConnection, password: string): Promise<void> {
  // An empty password would make the driver fall back to PGPASSWORD or ~/.pgpass: outside the keychain.
  if (typeof password !== 'string' || password.length === 0) throw new WorkspacePasswordError('The workspace password is empty: enter the password of your workspace login.');
  if (password.length > MAX_PASSWORD) throw new WorkspacePasswordError(`The workspace password is longer than ${MAX_PASSWORD} characters.`);
  return vault.setSecret(workspacePasswordAccount(connection), password);
}

export function hasWorkspacePassword(vault: Vault, connection: WorkspaceConnection): Promise<boolean> {
  return vault.hasSecret(workspacePasswordAccount(connection));
}

export function forgetWorkspacePassword(vault: Vault, connection: WorkspaceConnection): Promise<boolean> {
  return vault.deleteSecret(workspacePasswordAccount(connection));
}
