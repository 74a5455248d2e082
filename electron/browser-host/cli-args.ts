/**
 * The browser host's command line: flags, their checks, and the per-user data folder. Pure, so
 * every refusal is tested without starting anything.
 */
import path from 'node:path';
import { isLoopbackHost } from '@paydesk/sandbox';
import { parseWorkspaceFlag, type WorkspaceFlag } from './workspace-flag';

export interface CliOptions {
  port: number;
  host: string;
  userDataDir: string;
  staticDir: string;
  allowLive: boolean;
  open: boolean;
  help: boolean;
  /** A team workspace for this run (--workspace), instead of the one chosen in Settings. */
  workspace?: WorkspaceFlag;
}

export type CliParse = { ok: true; options: CliOptions } | { ok: false; message: string };

export const USAGE = `Usage: npm run start:browser -- [options]
  (or: tsx electron/browser-host/cli.ts [options])

Serves the Paydesk console on loopback for a browser, with a random per-run token.

Options:
  --port N          port to listen on, 0 to 65535 (default 0: a free port)
  --host ADDRESS    loopback address to listen on: 127.0.0.1 (default), ::1 or localhost
  --user-data DIR   data folder: journal, settings, log, sandbox database
                    (default: the per-user Paydesk folder)
  --static DIR      the built renderer to serve (default: dist/renderer)
  --allow-live      allow live profiles (refused by default in the browser host)
  --no-open         do not open a browser; just print the URL
  --workspace URL   record in this team workspace for this run:
                    postgres://LOGIN@HOST:PORT/DATABASE[?sslmode=verify-full&sslrootcert=CA.pem]
                    (TLS off only on this machine; the password from the keychain, saved in
                    Settings → Team workspace, or PAYDESK_WORKSPACE_PASSWORD; never in the URL)
  --help            show this help`;

/** The per-user data folder, where the desktop app would keep its data on this platform. */
export function defaultUserDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Paydesk');
    case 'win32':
      return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), 'Paydesk');
    default: {
      const xdg = env.XDG_DATA_HOME;
      // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
      const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share');
      return path.join(base, 'paydesk');
    }
  }
}

const VALUE_FLAGS = ['--port', '--host', '--user-data', '--static', '--workspace'] as const;
const SWITCHES = ['--allow-live', '--no-open', '--help'] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];
type Switch = (typeof SWITCHES)[number];

function isValueFlag(name: string): name is ValueFlag {
  return (VALUE_FLAGS as readonly string[]).includes(name);
}
function isSwitch(name: string): name is Switch {
  return (SWITCHES as readonly string[]).includes(name);
}

export interface CliDefaults {
  cwd: string;
  userDataDir: string;
  staticDir: string;
}

export function parseCliArgs(argv: readonly string[], defaults: CliDefaults): CliParse {
  const values = new Map<ValueFlag, string>();
  const switches = new Set<Switch>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      switches.add('--help');
      continue;
    }
    if (!arg.startsWith('--')) return { ok: false, message: `unexpected argument ${JSON.stringify(arg)}: options start with --` };
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (isSwitch(name)) {
      if (eq !== -1) return { ok: false, message: `${name} takes no value` };
      switches.add(name);
      continue;
    }
    if (!isValueFlag(name)) return { ok: false, message: `unknown option ${name}` };
    if (values.has(name)) return { ok: false, message: `${name} is given twice` };
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) return { ok: false, message: `${name} needs a value` };
      i++;
    }
    if (value === '') return { ok: false, message: `${name} needs a value` };
    values.set(name, value);
  }

  let port = 0;
  const portText = values.get('--port');
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
      return { ok: false, message: `--port must be a whole number from 0 to 65535, got ${JSON.stringify(portText)}` };
    }
    port = Number(portText);
  }

  let host = values.get('--host') ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    return {
      ok: false,
      message: `--host must be a loopback address (127.0.0.1, ::1 or localhost), got ${JSON.stringify(host)}: the console can send payouts and is never served to a network`,
    };
  }
  // One address, so the Host check and the printed URL agree with what the browser connects to.
  if (host === 'localhost') host = '127.0.0.1';

  let workspace: WorkspaceFlag | undefined;
  const workspaceText = values.get('--workspace');
  if (workspaceText !== undefined) {
    const parsed = parseWorkspaceFlag(workspaceText);
    if (!parsed.ok) return parsed;
    workspace = parsed.workspace.caFile ? { ...parsed.workspace, caFile: path.resolve(defaults.cwd, parsed.workspace.caFile) } : parsed.workspace;
  }

  return {
    ok: true,
    options: {
      port,
      host,
      userDataDir: path.resolve(defaults.cwd, values.get('--user-data') ?? defaults.userDataDir),
      staticDir: path.resolve(defaults.cwd, values.get('--static') ?? defaults.staticDir),
      allowLive: switches.has('--allow-live'),
      open: !switches.has('--no-open'),
      help: switches.has('--help'),
      ...(workspace ? { workspace } : {}),
    },
  };
}
