/**
 * `npm run start:browser`: the whole console in a browser, for machines without Electron and for
 * remote or headless boxes (reach it through an SSH tunnel: it only ever listens on loopback).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../../package.json' with { type: 'json' };
import type { WorkspaceConnection } from '../console/storage/postgres/connection';
import { startConsoleHost, type ConsoleHost } from '../console/workspace/console-host';
import { defaultUserDataDir, parseCliArgs, USAGE, type CliOptions } from './cli-args';
import { startBrowserHost, type BrowserHost } from './server';

const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function fail(message: string, exitCode: number): never {
  console.error(`paydesk: ${message}`);
  process.exit(exitCode);
}

/**
 * Opens the URL in the user's browser; a failure only means the user opens it by hand. Its
 * arguments are readable by every local user (`ps`), so the URL holds a one-time code, never the
 * token (see access.ts).
 */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? // Not `cmd /c start`: cmd would interpret characters of the URL.
          ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => console.log('paydesk: could not open a browser; open the URL above yourself.'));
    child.unref();
  } catch {
    console.log('paydesk: could not open a browser; open the URL above yourself.');
  }
}

async function run(options: CliOptions): Promise<void> {
  if (!existsSync(path.join(options.staticDir, 'index.html'))) {
    fail(`no built renderer at ${options.staticDir} (index.html missing): run \`npx vite build\` first, or use \`npm run start:browser\`, which does`, 1);
  }

  let workspace: WorkspaceConnection | undefined;
  if (options.workspace) {
    const { caFile, ...where } = options.workspace;
    let ca: string | undefined;
    if (caFile) {
      try {
        ca = readFileSync(caFile, 'utf8');
      } catch (error) {
        fail(`--workspace: the CA file ${caFile} cannot be read: ${describe(error)}`, 2);
      }
      if (!ca.trimStart().startsWith('-----BEGIN CERTIFICATE-----')) fail(`--workspace: ${caFile} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`, 2);
    }
    workspace = { ...where, ...(ca ? { ca } : {}) };
  }
  const workspacePassword = process.env.PAYDESK_WORKSPACE_PASSWORD;
  if (workspacePassword !== undefined && workspace === undefined) fail('PAYDESK_WORKSPACE_PASSWORD is set but no --workspace is given: it is only used with --workspace', 2);
  if (workspacePassword === '') fail('PAYDESK_WORKSPACE_PASSWORD is empty: unset it to use the keychain, or give the password', 2);

  let runtime: ConsoleHost;
  try {
    runtime = await startConsoleHost({
      userDataDir: options.userDataDir,
      transport: 'browser',
      allowLive: options.allowLive,
      version: pkg.version,
      ...(workspace ? { workspace } : {}),
      ...(workspacePassword ? { workspacePassword } : {}),
    });
  } catch (error) {
    fail(`could not start the console with data folder ${options.userDataDir}: ${describe(error)}`, 1);
  }

  let host: BrowserHost;
  try {
    host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: options.staticDir, host: options.host, port: options.port });
  } catch (error) {
    await runtime.close();
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    fail(
      inUse ? `port ${options.port} on ${options.host} is in use: pick another with --port, or --port 0 for a free one` : `could not listen: ${describe(error)}`,
      1,
    );
  }

  console.log('Paydesk console (browser host) is running.');
  console.log(`Open: ${host.url}`);
  console.log(`Data folder: ${options.userDataDir}`);
  const status = runtime.status();
  if (status.store === 'desktop') console.log('Records: on this desktop (its own journal).');
  else {
    const place = `${status.place.user}@${status.place.host}:${status.place.port}/${status.place.database}`;
    if (status.state === 'fault') console.log(`Records: team workspace ${place} — NOT OPEN (${status.fault.code}): ${status.fault.message} Nothing is recorded until it opens; the window offers Try again.`);
    else console.log(`Records: team workspace ${place}, as ${status.who.login} (${status.who.roles.join(', ')}).`);
  }
  const engineUrl = runtime.runtime()?.engineUrl ?? null;
  console.log(`Local sandbox engine: ${engineUrl ?? 'not running (see the log in the data folder)'}`);
  if (engineUrl) {
    // The admin token is a secret: where to find it, never the token itself (this text may be logged).
    console.log(`  OpenAPI document: ${engineUrl}/openapi.json`);
    console.log(`  Control API: ${engineUrl}/_sandbox (admin token: Sandbox screen, "For your app", Reveal)`);
  }
  console.log(options.allowLive ? 'Live profiles: ALLOWED (--allow-live).' : 'Live profiles: refused (start with --allow-live to use them).');
  console.log('The token in the URL is this run\'s key to the console: do not share it. Ctrl+C stops.');
  if (options.open) openInBrowser(host.openUrl());

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl+C while closing: the user wants out now.
      console.error(`paydesk: ${signal} again, exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    console.log(`paydesk: ${signal}, stopping...`);
    void (async () => {
      let exitCode = 0;
      for (const [what, close] of [
        ['browser host', () => host.close()],
        ['console', () => runtime.close()],
      ] as const) {
        try {
          await close();
        } catch (error) {
          exitCode = 1;
          console.error(`paydesk: closing the ${what} failed: ${describe(error)}`);
        }
      }
      console.log('paydesk: stopped.');
      process.exit(exitCode);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const parsed = parseCliArgs(process.argv.slice(2), {
  cwd: process.cwd(),
  userDataDir: defaultUserDataDir(process.platform, process.env, homedir()),
  staticDir: path.join(repoRoot, 'dist', 'renderer'),
});
if (!parsed.ok) fail(`${parsed.message}\n\n${USAGE}`, 2);
if (parsed.options.help) {
  console.log(USAGE);
} else {
  run(parsed.options).catch((error: unknown) => fail(`unexpected failure: ${describe(error)}`, 1));
}
