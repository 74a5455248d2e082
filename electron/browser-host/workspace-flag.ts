/**
 * `--workspace postgres://LOGIN@HOST:PORT/DATABASE` on the browser host's command line: a team
 * workspace for this run (two consoles on one machine, scripts). Checked here, pure, so each
 * refusal is tested without starting anything. The password is never in the URL (every local user
 * can read a process's arguments): it comes from the OS keychain (saved once in Settings) or, for
 * scripts, from PAYDESK_WORKSPACE_PASSWORD.
 *
 * TLS: off for a server on this machine; any other host verified (`sslmode=verify-full`, the
 * default there), with `sslrootcert=FILE` for a CA that is not a system authority.
 */
import { isLocalWorkspaceHost } from '../../shared/api/workspace';

export interface WorkspaceFlag {
  host: string;
  port: number;
  database: string;
  user: string;
  tls: 'verify' | 'off';
  /** A CA file to read (PEM), when given. */
  caFile?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;
const EXAMPLE = 'postgres://LOGIN@HOST:PORT/DATABASE, e.g. postgres://finance_demo@127.0.0.1:5433/paydesk_team';

export function parseWorkspaceFlag(text: string): { ok: true; workspace: WorkspaceFlag } | { ok: false; message: string } {
  const fail = (why: string) => ({ ok: false as const, message: `--workspace ${why} (expected ${EXAMPLE})` });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(`is not a URL: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return fail(`must start with postgres://, got ${JSON.stringify(url.protocol)}`);
  if (url.password !== '') return fail('must not hold a password (anyone on this machine can read the command line): save it in Settings → Team workspace, or set PAYDESK_WORKSPACE_PASSWORD');
  const user = decodeURIComponent(url.username);
  if (!IDENTIFIER.test(user)) return fail(user === '' ? 'needs a login before @' : `has a login that is not a PostgreSQL name: ${JSON.stringify(user)}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return fail('needs a host');
  const port = url.port === '' ? 5432 : Number(url.port);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!IDENTIFIER.test(database)) return fail(database === '' ? 'needs a database after the port' : `has a database that is not a PostgreSQL name: ${JSON.stringify(database)}`);
  if (url.hash !== '') return fail('must not have a # part');
  let tls: 'verify' | 'off' = isLocalWorkspaceHost(host) ? 'off' : 'verify';
  let caFile: string | undefined;
  for (const [key, value] of url.searchParams) {
    if (key === 'sslmode') {
      if (value === 'verify-full') tls = 'verify';
      else if (value === 'disable') tls = 'off';
      else return fail(`sslmode must be verify-full or disable, got ${JSON.stringify(value)}: Paydesk never connects over TLS without verifying the server`);
    } else if (key === 'sslrootcert') {
      if (value === '') return fail('sslrootcert needs a file');
      caFile = value;
    } else return fail(`has an unknown setting ${JSON.stringify(key)} (known: sslmode, sslrootcert)`);
  }
  if (tls === 'off' && !isLocalWorkspaceHost(host)) return fail(`cannot turn TLS off for ${host}: a server on another machine is reached over TLS with its certificate verified`);
  if (caFile !== undefined && tls === 'off') return fail('has sslrootcert with TLS off');
  return { ok: true, workspace: { host, port, database, user, tls, ...(caFile !== undefined ? { caFile } : {}) } };
}
