/**
 * `npm run team:import -- --journal FILE --workspace postgres://LOGIN@HOST[:PORT]/DATABASE`:
 * copies a desktop's SQLite journal into a team workspace once (issue 24 item 8) and prints what
 * was copied, already there, or refused and why. Running it again copies nothing new.
 *
 * The password never goes on the command line (other users of the machine can read it there):
 * `--password-file FILE` or PGPASSWORD. `--tls verify|off` (default: verify, except for a server
 * on this machine); `--ca FILE` for a CA that is not a system authority. `--json` prints the report as JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { poolConfig, workspaceConnectionSchema, describeWorkspaceError, type WorkspaceConnection } from '../electron/console/storage/postgres/connection';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { moveJournalIn, formatMoveInReport } from '../electron/console/storage/postgres/move-in';
import { MoveInError } from '../electron/console/storage/postgres/move-in-source';
import { WorkspaceSchemaError } from '../electron/console/storage/postgres/migrate';

export const USAGE =
  'usage: npm run team:import -- --journal FILE --workspace postgres://LOGIN@HOST[:PORT]/DATABASE [--password-file FILE] [--tls verify|off] [--ca FILE] [--json]';

export interface ImportArgs {
  journal: string;
  connection: WorkspaceConnection;
  password: string | undefined;
  json: boolean;
}

const FLAGS_WITH_VALUE = new Set(['--journal', '--workspace', '--password-file', '--tls', '--ca']);

/** Reads the flags; throws an Error whose message says exactly what is wrong and how to write it. */
export function parseImportArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ImportArgs {
  const values = new Map<string, string>();
  let json = false;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    if (flag === '--json') {
      json = true;
      continue;
    }
    if (!FLAGS_WITH_VALUE.has(flag)) throw new Error(`unknown argument ${JSON.stringify(flag)}\n${USAGE}`);
    if (values.has(flag)) throw new Error(`${flag} is given twice: give it once`);
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
    values.set(flag, value);
    i += 1;
  }
  const journalArg = values.get('--journal');
  if (!journalArg) throw new Error(`--journal is missing: the path of the desktop's journal.db\n${USAGE}`);
  const journal = resolve(journalArg);
  if (!existsSync(journal)) throw new Error(`--journal ${journalArg}: no such file`);
  const workspace = values.get('--workspace');
  if (!workspace) throw new Error(`--workspace is missing: postgres://LOGIN@HOST[:PORT]/DATABASE\n${USAGE}`);
  let url: URL;
  try {
    url = new URL(workspace);
  } catch {
    throw new Error(`--workspace ${JSON.stringify(workspace)} is not a URL: write postgres://LOGIN@HOST[:PORT]/DATABASE`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error(`--workspace must start with postgres:// (found ${url.protocol}//)`);
  if (url.password) throw new Error('--workspace must not hold a password (others on this machine can read a command line): use --password-file FILE or PGPASSWORD');
  if (url.search || url.hash) throw new Error('--workspace takes no ?options or #fragment: use --tls and --ca');
  const user = decodeURIComponent(url.username);
  if (!user) throw new Error('--workspace names no login: postgres://LOGIN@HOST[:PORT]/DATABASE');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) throw new Error('--workspace names no database: postgres://LOGIN@HOST[:PORT]/DATABASE');
  const host = decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1');
  const local = host.startsWith('/') || ['localhost', '127.0.0.1', '::1'].includes(host);
  const tls = values.get('--tls') ?? (local ? 'off' : 'verify');
  if (tls !== 'verify' && tls !== 'off') throw new Error(`--tls ${JSON.stringify(tls)}: write verify or off`);
  const caFile = values.get('--ca');
  if (caFile && !existsSync(caFile)) throw new Error(`--ca ${caFile}: no such file`);
  const checked = workspaceConnectionSchema.safeParse({
    host,
    port: url.port ? Number(url.port) : 5432,
    database,
    user,
    tls,
    ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}),
  });
  if (!checked.success) {
    throw new Error(`--workspace: ${checked.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ')}`);
  }
  const passwordFile = values.get('--password-file');
  let password = env.PGPASSWORD;
  if (passwordFile) {
    if (!existsSync(passwordFile)) throw new Error(`--password-file ${passwordFile}: no such file`);
    password = readFileSync(passwordFile, 'utf8').trim();
    if (!password) throw new Error(`--password-file ${passwordFile} is empty`);
  }
  return { journal, connection: checked.data, password, json };
}

async function main(): Promise<void> {
  const args = parseImportArgs(process.argv.slice(2));
  const pool = openWorkspacePool(poolConfig(args.connection, args.password));
  try {
    const report = await moveJournalIn(pool, args.journal);
    console.log(args.json ? JSON.stringify(report, null, 2) : formatMoveInReport(report));
  } finally {
    await pool.end();
  }
}

if (process.argv[1] && resolve(process.argv[1]).endsWith('team-import.ts')) {
  main().catch((error: unknown) => {
    const known = error instanceof MoveInError || error instanceof WorkspaceSchemaError || (error instanceof Error && !(error as { code?: string }).code);
    console.error(`team:import: ${known ? (error as Error).message : describeWorkspaceError(error).message}`);
    process.exit(1);
  });
}
