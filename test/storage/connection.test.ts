/**
 * Reaching a workspace: the settings checked at the boundary (TLS verified for any other machine),
 * and each fault a real server gives named with what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { describeWorkspaceError, poolConfig, workspaceConnectionSchema } from '../../electron/console/storage/postgres/connection';
import { makeTempDir } from '../temp-dir';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

async function failureOf(config: pg.ClientConfig, sql = 'SELECT 1'): Promise<unknown> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(sql);
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
  throw new Error('expected a failure');
}

describe('workspace connection settings', () => {
  it('refuses a remote server without TLS, and bad names, with the field named', () => {
    const remote = workspaceConnectionSchema.safeParse({ host: 'db.example.com', database: 'paydesk', user: 'fatou', tls: 'off' });
    expect(remote.success ? null : remote.error.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['tls', 'a server on another machine must be reached over TLS with its certificate verified'],
    ]);
    const names = workspaceConnectionSchema.safeParse({ host: 'localhost', database: 'x; DROP', user: '', tls: 'off' });
    expect(names.success ? [] : names.error.issues.map((issue) => issue.path.join('.'))).toEqual(['database', 'user']);
    expect(workspaceConnectionSchema.safeParse({ host: '/run/postgresql', database: 'paydesk', user: 'fatou', tls: 'off' }).success).toBe(true);
  });

  it('verifies the certificate of a remote server, with the CA given', () => {
    const connection = workspaceConnectionSchema.parse({ host: 'db.example.com', port: 6543, database: 'paydesk', user: 'fatou', tls: 'verify', ca: '-----BEGIN CERTIFICATE-----\nMII…' });
    expect(poolConfig(connection, 'secret')).toMatchObject({ host: 'db.example.com', port: 6543, password: 'secret', ssl: { rejectUnauthorized: true, ca: expect.stringContaining('BEGIN'), servername: 'db.example.com' } });
  });
});

describe('workspace faults, from a real server', () => {
  it('names a server that is not there', async () => {
    // A socket folder with no server in it: certain to be refused (a free TCP port could be taken meanwhile).
    const error = await failureOf({ host: makeTempDir('paydesk-no-server-'), port: 5432, user: 'fatou', database: 'postgres' });
    expect(describeWorkspaceError(error).code).toBe('UNREACHABLE');
  });

  it('names a database that does not exist', async () => {
    expect(describeWorkspaceError(await failureOf(workspaces.server.config('fatou', 'no_such_workspace'))).code).toBe('NO_DATABASE');
  });

  it('names a login that does not exist, and a refusal of the role', async () => {
    expect(describeWorkspaceError(await failureOf(workspaces.server.config('nobody', 'postgres'))).code).toBe('LOGIN_REFUSED');
    const database = await workspaces.create();
    const refusal = describeWorkspaceError(await failureOf(workspaces.server.config('samuel', database), `INSERT INTO team_settings VALUES ('k', '1', 1)`));
    expect(refusal).toEqual({ code: 'NO_PERMISSION', message: expect.stringContaining('administrator') });
  });

  it('names a connection the server ended while it was in use', async () => {
    const database = await workspaces.create();
    const client = await workspaces.connectAs('fatou', database);
    const root = await workspaces.server.connect(undefined, database);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const ended = new Promise<unknown>((resolve) => client.once('error', resolve));
    await root.query('SELECT pg_terminate_backend($1)', [pid]);
    // What the idle connection hears (the server's 57P01), then what the next query gets.
    expect(describeWorkspaceError(await ended).code).toBe('CONNECTION_LOST');
    const error = await client.query('SELECT 1').then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(describeWorkspaceError(error).code).toBe('CONNECTION_LOST');
  });
});
