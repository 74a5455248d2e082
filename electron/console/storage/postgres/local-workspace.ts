/**
 * A team workspace on this machine, to try team mode with two consoles (`npm run team:local`):
 * a lasting PostgreSQL cluster in a user folder with password logins (scram-sha-256) on
 * 127.0.0.1 and its socket, the `paydesk_team` database migrated, and one demo login per role.
 * Running it again starts the same cluster on the same port and prints the same logins.
 * Passwords are in files only the user can read, in that folder.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { clusterRunning, freePort, startCluster, stopCluster } from './cluster';
import { migrateWorkspace } from './migrate';
import { ROLES, SENDER_ROLE } from './schema-names';

export const LOCAL_DATABASE = 'paydesk_team';
const OWNER = 'paydesk_owner';
/**
 * The demo people: one login per role, and a second admin, another person, who approves what the
 * first asks (a change to people, roles or the policy needs two: migration 46). The owner makes
 * them, the bootstrap docs/decisions/people-and-admin-four-eyes.md describes.
 */
const PEOPLE = [
  { login: 'finance_demo', role: ROLES.finance },
  { login: 'support_demo', role: ROLES.support },
  { login: 'admin_demo', role: ROLES.admin },
  { login: 'admin2_demo', role: ROLES.admin },
  // The team sender's login (docs/team-sender.md): it sends for the team sandbox it serves.
  { login: 'sender_demo', role: SENDER_ROLE },
] as const;

export interface LocalWorkspace {
  dir: string;
  host: '127.0.0.1';
  port: number;
  database: string;
  people: { login: string; role: string; password: string; passwordFile: string }[];
  /** Migrations applied by this start (none when already up to date). */
  migrated: number[];
}

const password = () => randomBytes(18).toString('base64url');

/** A secret file of the folder, made once (mode 0600; the server user's when we are root, as initdb reads it). */
function secretFile(path: string, forServer = false): string {
  if (!existsSync(path)) writeFileSync(path, `${password()}\n`, { mode: 0o600 });
  if (forServer && process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(path, id('-u'), id('-g'));
  }
  return readFileSync(path, 'utf8').trim();
}

/** `durable: false` (tests) skips fsync: the same cluster, started faster, not crash-safe. */
export async function startLocalWorkspace(dir: string, options: { durable?: boolean } = {}): Promise<LocalWorkspace> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const ownerPassword = secretFile(join(dir, 'owner-password'), true);
  const portFile = join(dir, 'port');
  if (!existsSync(portFile)) writeFileSync(portFile, String(await freePort()));
  let port = Number(readFileSync(portFile, 'utf8'));
  // The port is kept between starts; one taken meanwhile by another program is replaced (and printed).
  for (let attempt = 1; !clusterRunning(join(dir, 'data')); attempt += 1) {
    try {
      await startCluster({ dir, superuser: OWNER, tcp: true, durable: options.durable ?? true, port, auth: { method: 'scram-sha-256', passwordFile: join(dir, 'owner-password') } });
    } catch (error) {
      const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
      if (attempt >= 3 || !log.includes(`port ${port}`) || !/Address already in use/.test(log)) throw error;
      port = await freePort();
      writeFileSync(portFile, String(port));
    }
  }
  const owner = (database: string) => new pg.Client({ host: '127.0.0.1', port, user: OWNER, password: ownerPassword, database });
  const admin = owner('postgres');
  await admin.connect();
  let migrated: number[];
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [LOCAL_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${LOCAL_DATABASE}`);
    const workspace = owner(LOCAL_DATABASE);
    await workspace.connect();
    try {
      migrated = await migrateWorkspace(workspace);
    } finally {
      await workspace.end();
    }
    const people: LocalWorkspace['people'] = [];
    for (const person of PEOPLE) {
      const passwordFile = join(dir, `${person.login}-password`);
      const secret = secretFile(passwordFile);
      // Identifiers are the fixed names above; the password goes as a literal the server quotes.
      const literal = (await admin.query<{ q: string }>('SELECT quote_literal($1) AS q', [secret])).rows[0]!.q;
      const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [person.login]);
      await admin.query(`${exists.rowCount === 0 ? 'CREATE' : 'ALTER'} ROLE ${person.login} LOGIN PASSWORD ${literal}`);
      await admin.query(`GRANT ${person.role} TO ${person.login}`);
      people.push({ ...person, password: secret, passwordFile });
    }
    return { dir, host: '127.0.0.1', port, database: LOCAL_DATABASE, people, migrated };
  } finally {
    await admin.end();
  }
}

export function stopLocalWorkspace(dir: string): boolean {
  if (!clusterRunning(join(dir, 'data'))) return false;
  stopCluster(join(dir, 'data'));
  return true;
}

/**
 * The second command `npm run team:local` prints, as the README's "Try the team sender in two
 * commands" shows it: the team sender on this workspace as `sender_demo`, serving the team sandbox,
 * its data (the sandbox's database and keys) in the workspace's folder.
 */
export function senderCommand(workspace: Pick<LocalWorkspace, 'dir' | 'port' | 'database' | 'people'>): string {
  const sender = workspace.people.find((person) => person.role === SENDER_ROLE);
  if (!sender) throw new Error('this workspace has no sender login');
  return `PAYDESK_WORKSPACE_PASSWORD="$(cat ${sender.passwordFile})" npm run sender -- --workspace postgres://${sender.login}@127.0.0.1:${workspace.port}/${workspace.database} --sandbox --data ${join(workspace.dir, 'sender')}`;
}
