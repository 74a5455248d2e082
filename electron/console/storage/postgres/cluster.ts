/**
 * A PostgreSQL cluster of its own in a folder: initdb, pg_ctl on a free port, its unix socket in
 * that folder. The test harness (test/helpers/postgres.ts) starts a throwaway one per test file and
 * `npm run team:local` (scripts/team-local.ts) a lasting one in a user folder.
 *
 * PostgreSQL refuses to run as root (CI runs as root): then initdb and pg_ctl run as the
 * unprivileged `postgres` user that Debian's package creates, and the folder is handed to it.
 * Debian keeps the server binaries under /usr/lib/postgresql/<version>/bin, not on PATH.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The user Debian's `postgresql` package creates: the server runs as it when we are root. */
const SERVER_USER = 'postgres';

/** The newest installed server's bin folder (PAYDESK_PG_BIN wins), or null when there is none. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates: string[] = [];
  if (env.PAYDESK_PG_BIN) candidates.push(env.PAYDESK_PG_BIN);
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(DEBIAN_ROOT, version, 'bin')));
  }
  for (const dir of (env.PATH ?? '').split(':')) if (dir) candidates.push(dir);
  return candidates.find((dir) => executable(join(dir, 'initdb')) && executable(join(dir, 'pg_ctl'))) ?? null;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The uid and gid of the server user, when we must hand it the folder. */
function serverUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', SERVER_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', SERVER_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Runs a server binary, as the server user when we are root; throws with its output on failure. */
function runServerCommand(bin: string, args: string[]): string {
  const [command, argv] = isRoot() ? ['runuser', ['-u', SERVER_USER, '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${bin.split('/').pop()} failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout || String(result.error)).trim().slice(0, 800)}`);
  }
  return result.stdout;
}

/** A TCP port nothing listens on now (it names the socket file; TCP stays off unless asked). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ClusterOptions {
  /** The folder that holds `data/`, the socket and the log (made by the caller). */
  dir: string;
  /** The superuser initdb creates. */
  superuser: string;
  /** Listen on 127.0.0.1 too (team:local); tests use the socket only. */
  tcp?: boolean;
  /** `trust` for a throwaway test cluster; `scram-sha-256` with a password file for a lasting one. */
  auth: { method: 'trust' } | { method: 'scram-sha-256'; passwordFile: string };
  /** fsync off: a throwaway cluster need not survive a power cut, and starts and writes faster. */
  durable: boolean;
  /** A fixed port (team:local keeps its own between starts); a free one otherwise. */
  port?: number;
}

export interface RunningCluster {
  host: string;
  port: number;
  superuser: string;
  dataDir: string;
  logFile: string;
  /** Stops the server (immediate: a throwaway cluster has nothing to flush). */
  stop(mode?: 'fast' | 'immediate'): void;
}

/**
 * The root-only part: every folder above `dir` must be traversable by the server user, and `dir`
 * is handed to it. A parent that is not (a TMPDIR under /root) is named instead of changed.
 */
function handOver(dir: string): void {
  for (let parent = dirname(dir); parent !== dirname(parent); parent = dirname(parent)) {
    if ((statSync(parent).mode & 0o001) === 0) {
      throw new Error(`PostgreSQL runs as the "${SERVER_USER}" user when Paydesk runs as root, and it cannot enter ${parent}: use a folder under /tmp (set TMPDIR=/tmp) or make ${parent} traversable (chmod o+x).`);
    }
  }
  const { uid, gid } = serverUser();
  chownSync(dir, uid, gid);
}

/** Whether a server runs on this data folder now (pg_ctl status). */
export function clusterRunning(dataDir: string, bin: string | null = postgresBinDir()): boolean {
  if (!bin || !existsSync(join(dataDir, 'PG_VERSION'))) return false;
  try {
    runServerCommand(join(bin, 'pg_ctl'), ['-D', dataDir, 'status']);
    return true;
  } catch {
    return false;
  }
}

/** Stops the server on a data folder (team:local --stop). */
export function stopCluster(dataDir: string, bin: string | null = postgresBinDir()): void {
  if (!bin) throw new Error('PostgreSQL is not installed.');
  runServerCommand(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
}

/** initdb into `<dir>/data` (when absent), then starts the server and waits until it accepts connections. */
export async function startCluster(options: ClusterOptions, bin: string | null = postgresBinDir()): Promise<RunningCluster> {
  if (!bin) throw new Error('PostgreSQL is not installed: install the Debian package "postgresql" (npm run setup).');
  const { dir } = options;
  if (isRoot()) handOver(dir);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const auth = options.auth.method === 'trust' ? ['--auth=trust'] : ['--auth=scram-sha-256', `--pwfile=${options.auth.passwordFile}`];
    runServerCommand(join(bin, 'initdb'), ['-D', dataDir, '-U', options.superuser, '-E', 'UTF8', '--locale=C.UTF-8', ...auth, ...(options.durable ? [] : ['--no-sync'])]);
  }
  if (!existsSync(logFile)) {
    writeFileSync(logFile, '');
    if (isRoot()) chownSync(logFile, serverUser().uid, serverUser().gid);
  }
  const port = options.port ?? (await freePort());
  const settings = [
    `-p ${port}`,
    `-c unix_socket_directories='${dir}'`,
    `-c listen_addresses='${options.tcp ? '127.0.0.1' : ''}'`,
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ');
  runServerCommand(join(bin, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', settings, 'start']);
  let stopped = false;
  return {
    host: dir,
    port,
    superuser: options.superuser,
    dataDir,
    logFile,
    stop(mode = 'immediate') {
      if (stopped) return;
      stopped = true;
      runServerCommand(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', mode, '-w', 'stop']);
    },
  };
}
