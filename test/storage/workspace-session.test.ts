/**
 * Opening a team workspace (issue 24 items 3 and 7): the login's password from the real OS
 * keychain (run under scripts/with-keyring.sh), a real PostgreSQL with password logins and TLS,
 * who the session is from the database, the schema checked (newer refused and left alone, older
 * migrated by its owner only, a failed migration undone), and each fault of opening as a code
 * with its English sentence, the password in none of them.
 */
import { Entry } from '@napi-rs/keyring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_FAULT_CODES } from '../../shared/api';
import { english, resources } from '../../shared/i18n';
import { createVault, KEYCHAIN_SERVICE, type Vault } from '../../electron/console/vault';
import type { WorkspaceConnection } from '../../electron/console/storage/postgres/connection';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { PG_MIGRATIONS } from '../../electron/console/storage/postgres/migrations';
import { openWorkspaceSession, type WorkspaceSession } from '../../electron/console/storage/postgres/workspace-session';
import { forgetWorkspacePassword, saveWorkspacePassword, workspacePasswordAccount } from '../../electron/console/storage/postgres/workspace-password';
import { makeTempDir } from '../temp-dir';
import { OWNER, startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { expectNoSecret, expectFault } from './session-helpers';

const LATEST = PG_MIGRATIONS.at(-1)!.version;

let workspace: PasswordWorkspace;
let vault: Vault;
const sessions: WorkspaceSession[] = [];
const log: string[] = [];
const saved: WorkspaceConnection[] = [];

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
  vault = createVault();
}, 120_000);
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
  for (const connection of saved) await forgetWorkspacePassword(vault, connection);
  await workspace?.stop();
});

/** Stores `password` for the connection's login in the OS keychain (removed after the file). */
async function remember(connection: WorkspaceConnection, password = workspace.passwords[connection.user]!): Promise<WorkspaceConnection> {
  await saveWorkspacePassword(vault, connection, password);
  saved.push(connection);
  return connection;
}

async function open(connection: WorkspaceConnection, migrations = PG_MIGRATIONS): Promise<WorkspaceSession> {
  const session = await openWorkspaceSession({ connection, vault, log: (line) => log.push(line), migrations });
  sessions.push(session);
  return session;
}

const secrets = () => [...Object.values(workspace.passwords), 'a-wrong-password-7731'];

describe('opening a team workspace', () => {
  it('opens with the password from the keychain and says who the login is and its roles, from the database', async () => {
    const opened = [];
    for (const login of ['finance_demo', 'support_demo', 'admin_demo', OWNER]) {
      const session = await open(await remember(workspace.connection(login)));
      opened.push([session.who.login, session.who.roles, session.schemaVersion, session.migrated]);
      expectNoSecret([JSON.stringify(session), JSON.stringify(session.who)], secrets());
    }
    expect(opened).toEqual([
      ['finance_demo', ['finance'], LATEST, []],
      ['support_demo', ['support'], LATEST, []],
      ['admin_demo', ['admin'], LATEST, []],
      [OWNER, ['finance', 'support', 'admin'], LATEST, []],
    ]);
    // The password is in the OS keychain itself, one entry per workspace and login, beside the API keys' service.
    const finance = workspace.connection('finance_demo');
    const account = workspacePasswordAccount(finance);
    expect(account).toBe(`workspace:finance_demo@localhost:${workspace.port}/paydesk_team`);
    expect(new Entry(KEYCHAIN_SERVICE, account).getPassword()).toBe(workspace.passwords.finance_demo);
    expect(workspacePasswordAccount({ ...finance, database: 'other_team' })).not.toBe(account);
    expect(log.filter((line) => line.includes('opened as finance_demo (finance)'))).toHaveLength(1);
    expectNoSecret(log, secrets());
  });

  it('refuses an empty password instead of storing it (the driver would fall back to PGPASSWORD)', async () => {
    const connection = workspace.connection('support_demo', { database: 'empty_password' });
    expect(() => saveWorkspacePassword(vault, connection, '')).toThrow(/empty/);
    expect(await vault.hasSecret(workspacePasswordAccount(connection))).toBe(false);
  });

  it('refuses a wrong password (LOGIN_REFUSED) and a login with no password in the keychain (PASSWORD_MISSING)', async () => {
    const wrong = await remember(workspace.connection('support_demo', { database: 'postgres' }), 'a-wrong-password-7731');
    await expectFault(open(wrong), 'WORKSPACE_LOGIN_REFUSED', secrets());
    const missing = workspace.connection('admin_demo', { database: 'never_saved' });
    await expectFault(open(missing), 'WORKSPACE_PASSWORD_MISSING', secrets());
    expectNoSecret(log, secrets());
  });

  it('names a server that is not there (UNREACHABLE) and a database that does not exist (NO_DATABASE)', async () => {
    // A socket folder with no server in it: certain to be refused (a free TCP port could be taken meanwhile).
    const nowhere = await remember({ ...workspace.connection('finance_demo'), host: makeTempDir('paydesk-no-server-') });
    await expectFault(open(nowhere), 'WORKSPACE_UNREACHABLE', secrets());
    await expectFault(open(await remember(workspace.connection('finance_demo', { database: 'no_such_team' }))), 'WORKSPACE_NO_DATABASE', secrets());
  });

  it('refuses a self-signed certificate without its CA (TLS_REFUSED) and opens over TLS with it', async () => {
    const unverified = await remember(workspace.connection('finance_demo', { tls: 'verify' }));
    await expectFault(open(unverified), 'WORKSPACE_TLS_REFUSED', secrets());
    const verified = workspace.connection('finance_demo', { tls: 'verify', ca: workspace.ca });
    // Giving the CA changes how the server is checked, not which keychain entry holds the password.
    expect(workspacePasswordAccount(verified)).toBe(workspacePasswordAccount(unverified));
    const owner = await workspace.owner();
    const earlier = (await owner.query(`SELECT array_agg(pid) AS pids FROM pg_stat_activity WHERE usename = 'finance_demo'`)).rows[0].pids ?? [];
    const session = await open(await remember(verified));
    expect(session.who).toEqual({ login: 'finance_demo', roles: ['finance'] });
    const { rows } = await owner.query(
      `SELECT bool_and(s.ssl) AS tls, count(*)::int AS n FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'finance_demo' AND NOT a.pid = ANY($1)`,
      [earlier],
    );
    expect(rows[0]).toMatchObject({ tls: true });
    expect(rows[0].n).toBeGreaterThan(0);
    await session.close();
  });

  it('refuses a login that has none of the Paydesk roles (NO_ROLE)', async () => {
    const owner = await workspace.owner();
    await owner.query(`CREATE ROLE nobody_demo LOGIN PASSWORD 'nobody-pass-4410'`);
    await expectFault(open(await remember(workspace.connection('nobody_demo'), 'nobody-pass-4410')), 'WORKSPACE_NO_ROLE', [...secrets(), 'nobody-pass-4410']);
  });
});

describe('the schema of the workspace being opened', () => {
  async function workspaceAt(name: string, version: number): Promise<void> {
    const root = await workspace.owner('postgres');
    await root.query(`CREATE DATABASE ${name}`);
    const client = await workspace.owner(name);
    await migrateWorkspace(client, PG_MIGRATIONS.filter((migration) => migration.version <= version));
  }

  async function versions(name: string): Promise<number[]> {
    const client = await workspace.owner(name);
    return (await client.query<{ version: number }>('SELECT version FROM paydesk_schema_migrations ORDER BY version')).rows.map((row) => row.version);
  }

  it('refuses a schema newer than this Paydesk, for every login, and never migrates it down', async () => {
    await workspaceAt('team_newer', LATEST);
    const owner = await workspace.owner('team_newer');
    await owner.query(`INSERT INTO paydesk_schema_migrations (version, name) VALUES ($1, 'from a newer Paydesk')`, [LATEST + 1]);
    const before = await versions('team_newer');
    const refusal = await expectFault(open(await remember(workspace.connection('finance_demo', { database: 'team_newer' }))), 'WORKSPACE_SCHEMA_NEWER', secrets());
    expect(refusal.detail).toContain(`version ${LATEST + 1}`);
    await expectFault(open(await remember(workspace.connection(OWNER, { database: 'team_newer' }))), 'WORKSPACE_SCHEMA_NEWER', secrets());
    expect(await versions('team_newer')).toEqual(before);
  });

  it('migrates an older workspace when its owner opens it, and refuses a person who may not', async () => {
    await workspaceAt('team_older', 10);
    await expectFault(open(await remember(workspace.connection('finance_demo', { database: 'team_older' }))), 'WORKSPACE_SCHEMA_OLDER', secrets());
    expect((await versions('team_older')).at(-1)).toBe(10);
    const session = await open(await remember(workspace.connection(OWNER, { database: 'team_older' })));
    expect(session.migrated).toEqual(PG_MIGRATIONS.filter((migration) => migration.version > 10).map((migration) => migration.version));
    expect(session.schemaVersion).toBe(LATEST);
    const person = await open(await remember(workspace.connection('finance_demo', { database: 'team_older' })));
    expect([person.who.login, person.migrated]).toEqual(['finance_demo', []]);
  });

  it('leaves the workspace as it was when a migration fails (each migration is one transaction)', async () => {
    await workspaceAt('team_broken', LATEST);
    const broken = [...PG_MIGRATIONS, { version: LATEST + 1, name: 'half done', sql: 'CREATE TABLE half_done (x int); SELECT 1 / 0' }];
    const refusal = await expectFault(open(await remember(workspace.connection(OWNER, { database: 'team_broken' })), broken), 'WORKSPACE_MIGRATION_FAILED', secrets());
    expect(refusal.detail).toMatch(/division by zero/);
    const owner = await workspace.owner('team_broken');
    expect((await owner.query(`SELECT to_regclass('half_done') AS t`)).rows[0].t).toBeNull();
    expect((await versions('team_broken')).at(-1)).toBe(LATEST);
  });
});

describe('the faults in words', () => {
  it('has a title and what to do for every workspace fault, in English and in French', () => {
    const en = resources.en.errors as Record<string, { title: string; next: string }>;
    const fr = resources.fr.errors as Record<string, { title: string; next: string }>;
    const incomplete = WORKSPACE_FAULT_CODES.filter((code) => !en[code]?.title || !en[code]?.next || !fr[code]?.title || !fr[code]?.next || fr[code]!.next === en[code]!.next);
    expect(incomplete).toEqual([]);
    expect(english.errors.WORKSPACE_CONNECTION_LOST.next).toMatch(/nothing is kept to send later/);
    expect(resources.fr.errors.WORKSPACE_CONNECTION_LOST.next).toMatch(/rien n’est gardé pour être envoyé plus tard/);
  });
});
