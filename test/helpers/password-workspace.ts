/**
 * A team workspace whose logins need passwords and whose server speaks TLS, for the tests of
 * opening a workspace and of its faults: the `npm run team:local` cluster (scram-sha-256 logins
 * on 127.0.0.1, one demo login per role, the `paydesk_team` database migrated) in a temp folder,
 * with `ssl = on` and a throwaway self-signed certificate made by openssl for `localhost`.
 * (test/helpers/workspace.ts trusts its unix socket: no password could be refused there.)
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { WorkspaceConnection } from '../../electron/console/storage/postgres/connection';
import { startLocalWorkspace, stopLocalWorkspace, type LocalWorkspace } from '../../electron/console/storage/postgres/local-workspace';
import { makeTempDir } from '../temp-dir';

export const OWNER = 'paydesk_owner';

export interface PasswordWorkspace {
  port: number;
  database: string;
  /** login → password, for finance_demo, support_demo, admin_demo and the owner. */
  passwords: Record<string, string>;
  /** The server certificate's PEM (self-signed: it is its own CA). */
  ca: string;
  /** Settings to reach `database` as `login` over TCP on localhost. */
  connection(login: string, options?: { database?: string; tls?: 'verify' | 'off'; ca?: string }): WorkspaceConnection;
  /** A raw connection as the owner (superuser); closed by stop(). */
  owner(database?: string): Promise<pg.Client>;
  /** Stops the server (fast: every session is ended, open transactions rolled back). */
  stopServer(): void;
  /** Starts it again on the same folder and port. */
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

function handToServer(path: string): void {
  // PostgreSQL runs as `postgres` when the tests run as root, and wants its key readable by it only.
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(path, id('-u'), id('-g'));
  }
  chmodSync(path, 0o600);
}

export async function startPasswordWorkspace(): Promise<PasswordWorkspace> {
  const parent = makeTempDir('paydesk-session-');
  chmodSync(parent, 0o711);
  const dir = join(parent, 'team-pg');
  let local: LocalWorkspace = await startLocalWorkspace(dir, { durable: false });
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  handToServer(cert);
  handToServer(key);
  const ownerPassword = readFileSync(join(dir, 'owner-password'), 'utf8').trim();
  const clients = new Set<pg.Client>();
  async function owner(database = local.database): Promise<pg.Client> {
    const client = new pg.Client({ host: '127.0.0.1', port: local.port, user: OWNER, password: ownerPassword, database });
    client.on('error', () => undefined);
    await client.connect();
    clients.add(client);
    return client;
  }
  const admin = await owner('postgres');
  await admin.query(`ALTER SYSTEM SET ssl_cert_file = '${cert}'`);
  await admin.query(`ALTER SYSTEM SET ssl_key_file = '${key}'`);
  await admin.query('ALTER SYSTEM SET ssl = on');
  await admin.end();
  // A restart, not a reload: the next connection is certain to find TLS on.
  stopLocalWorkspace(dir);
  local = await startLocalWorkspace(dir, { durable: false });
  const passwords = Object.fromEntries([...local.people.map((person) => [person.login, person.password]), [OWNER, ownerPassword]]);
  return {
    port: local.port,
    database: local.database,
    passwords,
    ca: readFileSync(cert, 'utf8'),
    connection: (login, options = {}) => ({
      host: 'localhost',
      port: local.port,
      database: options.database ?? local.database,
      user: login,
      tls: options.tls ?? 'off',
      ...(options.ca ? { ca: options.ca } : {}),
    }),
    owner,
    stopServer: () => {
      stopLocalWorkspace(dir);
    },
    async startServer() {
      local = await startLocalWorkspace(dir, { durable: false });
    },
    async stop() {
      await Promise.all([...clients].map((client) => client.end().catch(() => undefined)));
      stopLocalWorkspace(dir);
    },
  };
}
