/**
 * Opening a team workspace safely, and what a desktop does when it goes wrong (issue 24 items 3
 * and 7). Not offered in any screen yet: this is the piece the console will open its workspace
 * with.
 *
 * Opening: the connection settings are checked (./connection.ts), the login's password is read
 * from the OS keychain (./workspace-password.ts), the schema version is checked (a newer one is
 * refused, never migrated down; an older one is migrated, one transaction per migration, when
 * the login owns the workspace, refused otherwise), and the session says who it is from the
 * database (`session_user`) and which Paydesk roles that login has.
 *
 * Every failure of the workspace itself becomes a `WorkspaceFaultError`: a code of
 * shared/api/workspace-faults.ts (the screens translate it, shared/i18n errors) and the English
 * sentence of that code. The server's own words go only to `detail`, for the log, with the
 * password taken out. What the store answers on purpose (an approval rule's refusal, the sending
 * gate's SQLSTATE, a state another desktop moved first: `isStoreAnswer`) passes through as it is,
 * for the handlers to say in their own words, as on one desktop's journal.
 *
 * Money rule: nothing is queued to send later while the database is away. Once the connection is
 * lost (a statement failed for it, or the server ended an idle connection) the session refuses
 * every write at once, without running it, until `reconnect()` finds the workspace again; sending
 * stops (`onLost`), the claims it held run out on the database's clock and their rows in flight
 * become outcome unknown there (./claims.ts). Reads still try the server and, when it is away,
 * give back what was last read under the same key, marked not fresh.
 */
import { ExternalIdKnown } from '../../journal/payout-identity';
import type pg from 'pg';
import type { WorkspaceFaultCode } from '../../../../shared/api';
import { VaultError, type Vault } from '../../vault';
import { OverviewOverflowError } from '../../journal/overview';
import { ForbiddenTransition } from '../../states/machine';
import { ApprovalRefusal } from '../approvals-port';
import { BatchStateChanged } from '../batch-drafts-port';
import type { StoragePort } from '../port';
import { TeamProfilesUnavailable } from '../team-profiles-port';
import { describeWorkspaceError, poolConfig, workspaceConnectionSchema, workspaceFaultSentence, type WorkspaceConnection, type WorkspaceFault } from './connection';
import { openWorkspacePool, type WorkspacePool } from './db';
import { appliedVersion, checkWorkspaceSchema, migrateWorkspace, WorkspaceSchemaError } from './migrate';
import { PG_MIGRATIONS, type PgMigration } from './migrations';
import { workspaceStore } from './store';
import { ROLES } from './schema-names';
import { workspacePasswordAccount } from './workspace-password';

export type WorkspaceRole = keyof typeof ROLES;
/** A workspace fault, or the keychain itself unavailable (the vault's own code and advice). */
export type SessionFaultCode = WorkspaceFaultCode | 'NO_KEYCHAIN' | 'KEYCHAIN_UNRESPONSIVE';

export class WorkspaceFaultError extends Error {
  constructor(
    readonly code: SessionFaultCode,
    message: string,
    /** What the server or driver said, for the log; never the password. */
    readonly detail: string | null = null,
  ) {
    super(message);
    this.name = 'WorkspaceFaultError';
  }
}

export interface WorkspaceIdentity {
  /** The database's `session_user`: who every entry, batch and claim is recorded as. */
  login: string;
  /** The Paydesk roles the login is a member of, in the order finance, support, admin. */
  roles: WorkspaceRole[];
}

export type SessionRead<T> = { value: T; fresh: true } | { value: T; fresh: false; fault: WorkspaceFaultError };

export interface WorkspaceSession {
  readonly who: WorkspaceIdentity;
  readonly schemaVersion: number;
  /** Versions this opening migrated (none when the workspace was up to date). */
  readonly migrated: readonly number[];
  readonly state: 'open' | 'lost' | 'closed';
  /** Why the session is lost, while it is. */
  readonly lostBy: WorkspaceFaultError | null;
  /** Reads through the port; when the server is away, what was last read under `key`, not fresh. */
  read<T>(key: string, work: (store: StoragePort) => Promise<T>): Promise<SessionRead<T>>;
  /**
   * Reads through the port now, even while the connection is lost (the server may be back), and
   * never answers from what was read before: for reads whose old answer would mislead (the
   * approvals lists, read to learn whether a decision lost on its way was recorded).
   */
  readNow<T>(work: (store: StoragePort) => Promise<T>): Promise<T>;
  /** Writes through the port now, or fails now: never kept to run later. */
  write<T>(work: (store: StoragePort) => Promise<T>): Promise<T>;
  /** Called once each time the connection is lost: sending stops. Returns an unsubscribe. */
  onLost(listener: (fault: WorkspaceFaultError) => void): () => void;
  /** Finds the workspace again (same login, same schema checks); writes are allowed again after it. */
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenWorkspaceOptions {
  connection: WorkspaceConnection;
  vault: Vault;
  /** Main's log; lines name the workspace and the fault, never the password. */
  log?: (line: string) => void;
  /** The migrations this Paydesk knows (tests pass others). */
  migrations?: readonly PgMigration[];
  /** This desktop's own id (../../desktop-id.ts): the database stamps it on the entries this desktop writes. */
  desktopId?: string;
}

const FROM_CONNECTION: Record<WorkspaceFault, WorkspaceFaultCode> = {
  UNREACHABLE: 'WORKSPACE_UNREACHABLE',
  LOGIN_REFUSED: 'WORKSPACE_LOGIN_REFUSED',
  TLS_REFUSED: 'WORKSPACE_TLS_REFUSED',
  NO_PERMISSION: 'WORKSPACE_NO_PERMISSION',
  CONNECTION_LOST: 'WORKSPACE_CONNECTION_LOST',
  NO_DATABASE: 'WORKSPACE_NO_DATABASE',
  OTHER: 'WORKSPACE_OTHER',
};

const FROM_SCHEMA: Record<WorkspaceSchemaError['code'], WorkspaceFaultCode> = {
  SCHEMA_NEWER: 'WORKSPACE_SCHEMA_NEWER',
  SCHEMA_OLDER: 'WORKSPACE_SCHEMA_OLDER',
  MIGRATION_FAILED: 'WORKSPACE_MIGRATION_FAILED',
};

/** At most this many reads are kept to show while the server is away (the most recent ones). */
const KEPT_READS = 200;

function fault(code: WorkspaceFaultCode, detail: string | null = null): WorkspaceFaultError {
  return new WorkspaceFaultError(code, workspaceFaultSentence(code), detail);
}

/** The server's words without the password, whatever put it there. */
function withoutSecret(text: string, secret: string | null): string {
  const clean = secret ? text.split(secret).join('[password]') : text;
  return clean.slice(0, 500);
}

/**
 * What the store answers on purpose, as one desktop's journal answers it: a rule's refusal (an
 * approval's, or the sending gate's own SQLSTATE `PDnnn` raised by a write), a state another
 * desktop moved first, a move the state table refuses, a sum too large to show, team profiles on
 * no workspace. The caller handles those by their class or code (the handlers turn them into
 * APPROVAL_*, CONFLICT, ...): passed on unchanged, never a workspace fault.
 */
export function isStoreAnswer(error: unknown): boolean {
  if (error instanceof ApprovalRefusal || error instanceof BatchStateChanged || error instanceof ForbiddenTransition) return true;
  if (error instanceof OverviewOverflowError || error instanceof TeamProfilesUnavailable || error instanceof ExternalIdKnown) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^PD\d{3}$/.test(code);
}

/**
 * Any failure as a workspace fault. Before the session is open, a server that does not answer is
 * unreachable; once open, the same failure means the connection was lost (sending stops).
 */
function faultOf(error: unknown, phase: 'opening' | 'open', secret: string | null): WorkspaceFaultError {
  if (error instanceof WorkspaceFaultError) return error;
  if (error instanceof VaultError) {
    return error.code === 'SECRET_MISSING' ? fault('WORKSPACE_PASSWORD_MISSING') : new WorkspaceFaultError(error.code, error.message);
  }
  if (error instanceof WorkspaceSchemaError) return fault(FROM_SCHEMA[error.code], withoutSecret(error.message, secret));
  let code = FROM_CONNECTION[describeWorkspaceError(error).code];
  if (code === 'WORKSPACE_UNREACHABLE' || code === 'WORKSPACE_CONNECTION_LOST') code = phase === 'opening' ? 'WORKSPACE_UNREACHABLE' : 'WORKSPACE_CONNECTION_LOST';
  const text = error instanceof Error ? error.message : String(error);
  return fault(code, withoutSecret(text, secret));
}

/** Who the workspace is, for logs: never the password. */
export function describeWorkspace(connection: WorkspaceConnection): string {
  return `${connection.user}@${connection.host}:${connection.port}/${connection.database}${connection.tls === 'verify' ? ' (TLS verified)' : ''}`;
}

/** Whether this login may bring the schema up to date: it owns the workspace (or it is still empty and may create). */
async function mayMigrate(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ may: boolean }>(
    `SELECT CASE WHEN to_regclass('paydesk_schema_migrations') IS NULL THEN has_schema_privilege('public', 'CREATE')
       ELSE pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass('paydesk_schema_migrations')), 'USAGE') END AS may`,
  );
  return rows[0]?.may === true;
}

async function identity(client: pg.ClientBase): Promise<WorkspaceIdentity> {
  const { rows } = await client.query<{ login: string; finance: boolean; support: boolean; admin: boolean }>(
    `SELECT session_user AS login, pg_has_role(session_user, $1, 'MEMBER') AS finance,
       pg_has_role(session_user, $2, 'MEMBER') AS support, pg_has_role(session_user, $3, 'MEMBER') AS admin`,
    [ROLES.finance, ROLES.support, ROLES.admin],
  );
  const row = rows[0]!;
  const roles = (['finance', 'support', 'admin'] as const).filter((role) => row[role]);
  return { login: row.login, roles };
}

interface Opened {
  who: WorkspaceIdentity;
  schemaVersion: number;
  migrated: number[];
}

/** The checks of an opening (and of a reconnect): schema, then who the login is. */
async function checkWorkspace(pool: WorkspacePool, migrations: readonly PgMigration[]): Promise<Opened> {
  const client = await pool.connect();
  try {
    let migrated: number[] = [];
    try {
      await checkWorkspaceSchema(client, migrations);
    } catch (error) {
      // A login in no Paydesk role may not even read the schema's version.
      if ((error as { code?: string }).code === '42501') throw fault('WORKSPACE_NO_ROLE', withoutSecret((error as Error).message, null));
      // Newer: refused as it is, never migrated down. Older: updated only by the workspace's owner.
      if (!(error instanceof WorkspaceSchemaError && error.code === 'SCHEMA_OLDER') || !(await mayMigrate(client))) throw error;
      migrated = await migrateWorkspace(client, migrations);
    }
    const who = await identity(client);
    if (who.roles.length === 0) throw fault('WORKSPACE_NO_ROLE', `${who.login} is a member of none of ${Object.values(ROLES).join(', ')}`);
    return { who, schemaVersion: await appliedVersion(client), migrated };
  } finally {
    client.release();
  }
}

export async function openWorkspaceSession(options: OpenWorkspaceOptions): Promise<WorkspaceSession> {
  const connection = workspaceConnectionSchema.parse(options.connection);
  const log = options.log ?? (() => undefined);
  const migrations = options.migrations ?? PG_MIGRATIONS;
  const where = describeWorkspace(connection);
  let password: string;
  try {
    password = await options.vault.useSecret(workspacePasswordAccount(connection));
  } catch (error) {
    const refusal = faultOf(error, 'opening', null);
    log(`workspace ${where}: not opened, ${refusal.code}`);
    throw refusal;
  }
  const pool = openWorkspacePool(poolConfig(connection, password, options.desktopId));
  // Connections the server ends, idle or in use: the session is told once it is open.
  const ended = { listener: (_error: unknown) => undefined as void };
  pool.on('error', (error) => ended.listener(error));
  pool.on('connect', (client) => client.on('error', (error) => ended.listener(error)));
  let opened: Opened;
  try {
    opened = await checkWorkspace(pool, migrations);
  } catch (error) {
    await pool.end().catch(() => undefined);
    const refusal = faultOf(error, 'opening', password);
    log(`workspace ${where}: not opened, ${refusal.code}${refusal.detail ? ` (${refusal.detail})` : ''}`);
    throw refusal;
  }
  log(`workspace ${where}: opened as ${opened.who.login} (${opened.who.roles.join(', ')}), schema ${opened.schemaVersion}${opened.migrated.length ? `, migrated ${opened.migrated.join(', ')}` : ''}`);
  return sessionOver(pool, opened, { where, password, log, migrations, ended });
}

function sessionOver(
  pool: WorkspacePool,
  opened: Opened,
  context: { where: string; password: string; log: (line: string) => void; migrations: readonly PgMigration[]; ended: { listener: (error: unknown) => void } },
): WorkspaceSession {
  const { where, password, log, migrations, ended } = context;
  const store = workspaceStore(pool);
  let state: WorkspaceSession['state'] = 'open';
  let lostBy: WorkspaceFaultError | null = null;
  const listeners = new Set<(fault: WorkspaceFaultError) => void>();
  const lastReads = new Map<string, unknown>();

  function lose(why: WorkspaceFaultError): void {
    if (state !== 'open') return;
    state = 'lost';
    lostBy = why;
    log(`workspace ${where}: connection lost, sending stopped${why.detail ? ` (${why.detail})` : ''}`);
    for (const listener of listeners) listener(why);
  }

  // The server ending a connection (restart, pg_terminate_backend, network), even an idle one, is
  // a loss: the next write must not go through a fresh connection as if nothing happened.
  ended.listener = (error) => {
    const why = faultOf(error, 'open', password);
    if (why.code === 'WORKSPACE_CONNECTION_LOST') lose(why);
  };

  async function run<T>(work: (store: StoragePort) => Promise<T>): Promise<T> {
    if (state === 'closed') throw new Error('This workspace session is closed.');
    try {
      return await work(store);
    } catch (error) {
      if (isStoreAnswer(error)) throw error;
      const why = faultOf(error, 'open', password);
      if (why.code === 'WORKSPACE_CONNECTION_LOST') lose(why);
      else log(`workspace ${where}: ${why.code}${why.detail ? ` (${why.detail})` : ''}`);
      throw why;
    }
  }

  function keep(key: string, value: unknown): void {
    lastReads.delete(key);
    lastReads.set(key, value);
    if (lastReads.size > KEPT_READS) lastReads.delete(lastReads.keys().next().value as string);
  }

  return {
    who: opened.who,
    schemaVersion: opened.schemaVersion,
    migrated: opened.migrated,
    get state() {
      return state;
    },
    get lostBy() {
      return lostBy;
    },
    async read<T>(key: string, work: (store: StoragePort) => Promise<T>): Promise<SessionRead<T>> {
      try {
        const value = await run(work);
        keep(key, value);
        return { value, fresh: true };
      } catch (error) {
        if (error instanceof WorkspaceFaultError && error.code === 'WORKSPACE_CONNECTION_LOST' && lastReads.has(key)) {
          return { value: lastReads.get(key) as T, fresh: false, fault: error };
        }
        throw error;
      }
    },
    readNow: run,
    async write<T>(work: (store: StoragePort) => Promise<T>): Promise<T> {
      // Refused before it runs: a write kept for later could move money after the person looked away.
      if (state === 'lost') throw fault('WORKSPACE_CONNECTION_LOST', lostBy?.detail ?? null);
      return run(work);
    },
    onLost(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async reconnect() {
      if (state === 'closed') throw new Error('This workspace session is closed.');
      let again: Opened;
      try {
        again = await checkWorkspace(pool, migrations);
      } catch (error) {
        const why = faultOf(error, 'open', password);
        log(`workspace ${where}: not back yet, ${why.code}${why.detail ? ` (${why.detail})` : ''}`);
        throw why;
      }
      if (again.who.login !== opened.who.login) throw fault('WORKSPACE_OTHER', `the workspace answered as ${again.who.login}, not ${opened.who.login}`);
      state = 'open';
      lostBy = null;
      log(`workspace ${where}: back, as ${again.who.login}`);
    },
    async close() {
      if (state === 'closed') return;
      state = 'closed';
      await pool.end().catch(() => undefined);
    },
  };
}
