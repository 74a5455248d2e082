/**
 * `paydesk-sender --workspace postgres://LOGIN@HOST:PORT/DATABASE --keys FILE [--data DIR]`
 * (`npm run sender -- …`; docs/team-sender.md). With `--sandbox` (`--keys` then optional) it also
 * runs the team's sandbox engine and publishes it on the workspace (./team-sandbox.ts). The workspace's password from
 * PAYDESK_WORKSPACE_PASSWORD (never on the command line); the keys from FILE, mode 0600. One JSON
 * line per event on stdout (ready, batch-sending, batch-ended, ask-answered, fault; never a key);
 * SIGTERM or SIGINT stops it after the rows in flight are answered.
 *
 * Tests start it as `node --import tsx electron/sender/cli.ts …`: a SIGKILL then reaches the sender
 * itself, not a tsx parent.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseWorkspaceFlag } from '../browser-host/workspace-flag';
import { poolConfig } from '../console/storage/postgres/connection';
import { KeysFileError, readKeysFileProfiles, senderKeysOf, type SenderProfileKeys } from './keys-file';
import { startTeamSender, type SenderEvent } from './sender';
import { startTeamSandbox, type TeamSandbox } from './team-sandbox';
import { TEAM_SANDBOX } from '../console/storage/postgres/schema-names';

const USAGE = 'usage: paydesk-sender --workspace postgres://LOGIN@HOST:PORT/DATABASE (--keys FILE | --sandbox | both) [--data DIR] [--watch-ms N] [--lease-ms N] [--sandbox-port N] [--sandbox-host ADDRESS] [--webhook-port N [--webhook-host ADDRESS] [--webhook-secret-file FILE]]';

function fail(message: string, code = 2): never {
  process.stderr.write(`paydesk-sender: ${message}\n${code === 2 ? `${USAGE}\n` : ''}`);
  process.exit(code);
}

export interface SenderArgs {
  workspace: string;
  /** The keys file; absent when only the team sandbox is served. */
  keys?: string;
  /** The team's sandbox engine, run by this sender (docs/team-sender.md "One sandbox for the team"). */
  sandbox?: { host: string; port: number };
  data: string;
  watchMs?: number;
  leaseMs?: number;
  /** Webhooks received on POST /webhooks/service at this port (0: any free port). */
  webhookPort?: number;
  webhookHost?: string;
  /** A file holding the service's `whsec_` signing secret (its first line). */
  webhookSecretFile?: string;
}

/** The command line, checked: every refusal is a sentence (tested without starting anything). */
export function parseSenderArgs(argv: readonly string[], cwd = process.cwd()): { ok: true; args: SenderArgs } | { ok: false; message: string } {
  const values = new Map<string, string>();
  let sandbox = false;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    if (flag === '--sandbox') {
      sandbox = true;
      continue;
    }
    if (!['--workspace', '--keys', '--data', '--watch-ms', '--lease-ms', '--webhook-port', '--webhook-host', '--webhook-secret-file', '--sandbox-port', '--sandbox-host'].includes(flag)) return { ok: false, message: `unknown argument ${JSON.stringify(flag)}` };
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) return { ok: false, message: `${flag} needs a value` };
    values.set(flag, value);
    i += 1;
  }
  const workspace = values.get('--workspace');
  const keys = values.get('--keys');
  if (!workspace) return { ok: false, message: '--workspace is required' };
  if (!keys && !sandbox) return { ok: false, message: '--keys is required (a JSON file of the team profiles\' keys, mode 0600), unless --sandbox runs the team sandbox only' };
  const sandboxPortText = values.get('--sandbox-port');
  const sandboxHost = values.get('--sandbox-host');
  if (!sandbox && (sandboxPortText !== undefined || sandboxHost !== undefined)) return { ok: false, message: '--sandbox-port and --sandbox-host need --sandbox' };
  if (sandboxPortText !== undefined && !(/^\d+$/.test(sandboxPortText) && Number(sandboxPortText) <= 65_535)) return { ok: false, message: '--sandbox-port is a port number from 0 to 65535 (0: any free port)' };
  // One receiver, one signing secret: the team sandbox's own.
  if (sandbox && values.has('--webhook-secret-file')) return { ok: false, message: '--webhook-secret-file cannot go with --sandbox: the team sandbox signs its webhooks with its own secret, which the sender reads itself' };
  const number = (flag: string) => {
    const text = values.get(flag);
    if (text === undefined) return undefined;
    const n = Number(text);
    return Number.isSafeInteger(n) && n >= 50 && n <= 3_600_000 ? n : Number.NaN;
  };
  const watchMs = number('--watch-ms');
  const leaseMs = number('--lease-ms');
  if (Number.isNaN(watchMs) || Number.isNaN(leaseMs)) return { ok: false, message: '--watch-ms and --lease-ms are whole milliseconds from 50 to 3600000' };
  const portText = values.get('--webhook-port');
  const webhookPort = portText === undefined ? undefined : Number(portText);
  if (webhookPort !== undefined && !(/^\d+$/.test(portText!) && webhookPort <= 65_535)) return { ok: false, message: '--webhook-port is a port number from 0 to 65535 (0: any free port)' };
  const webhookHost = values.get('--webhook-host');
  const secretFile = values.get('--webhook-secret-file');
  if (webhookPort === undefined && (webhookHost !== undefined || secretFile !== undefined)) return { ok: false, message: '--webhook-host and --webhook-secret-file need --webhook-port' };
  return {
    ok: true,
    args: {
      workspace,
      ...(keys ? { keys: resolve(cwd, keys) } : {}),
      ...(sandbox ? { sandbox: { host: sandboxHost ?? '127.0.0.1', port: sandboxPortText === undefined ? 0 : Number(sandboxPortText) } } : {}),
      data: resolve(cwd, values.get('--data') ?? join(homedir(), '.paydesk-sender')),
      ...(watchMs ? { watchMs } : {}),
      ...(leaseMs ? { leaseMs } : {}),
      ...(webhookPort !== undefined ? { webhookPort, webhookHost: webhookHost ?? '127.0.0.1' } : {}),
      ...(secretFile !== undefined ? { webhookSecretFile: resolve(cwd, secretFile) } : {}),
    },
  };
}

/**
 * libpq's `?host=/folder`: the server's unix socket in that folder (a sender on the database's own
 * machine, no TCP); the URL's host then only has to be this machine.
 */
export function socketFolderOf(text: string): { url: string; socketFolder: string | null } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { url: text, socketFolder: null };
  }
  const folder = url.searchParams.get('host');
  if (folder === null || !folder.startsWith('/') || !['localhost', '127.0.0.1'].includes(url.hostname)) return { url: text, socketFolder: null };
  url.searchParams.delete('host');
  return { url: url.toString(), socketFolder: folder };
}

async function main(): Promise<void> {
  const parsed = parseSenderArgs(process.argv.slice(2));
  if (!parsed.ok) fail(parsed.message);
  const { args } = parsed;
  const { url, socketFolder } = socketFolderOf(args.workspace);
  const flag = parseWorkspaceFlag(url);
  if (!flag.ok) fail(flag.message);
  const { caFile, ...where } = flag.workspace;
  if (socketFolder) Object.assign(where, { host: socketFolder, tls: 'off' as const });
  const ca = caFile ? readFileSync(caFile, 'utf8') : undefined;
  const password = process.env.PAYDESK_WORKSPACE_PASSWORD;
  if (password === '') fail('PAYDESK_WORKSPACE_PASSWORD is empty: unset it (a login without a password) or give the password');
  let profiles: Record<string, SenderProfileKeys> = {};
  try {
    if (args.keys) profiles = readKeysFileProfiles(args.keys);
  } catch (error) {
    fail(error instanceof KeysFileError ? error.message : String(error), 1);
  }
  if (args.sandbox && profiles[TEAM_SANDBOX.profileId]) fail(`the keys file names the profile ${TEAM_SANDBOX.profileId}: with --sandbox its keys are the team sandbox's own; remove it from the file`, 1);
  let webhookSecret: string | undefined;
  if (args.webhookSecretFile) {
    try {
      webhookSecret = readFileSync(args.webhookSecretFile, 'utf8').split('\n')[0]!.trim();
    } catch (error) {
      fail(`could not read the webhook secret file ${args.webhookSecretFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 1);
    }
    if (!webhookSecret.startsWith('whsec_')) fail(`the webhook secret file ${args.webhookSecretFile} does not start with whsec_ (the service's signing secret)`, 1);
  }
  const say = (event: SenderEvent | { event: 'team-sandbox'; profileId: string; baseUrl: string; controlUrl: string }) => process.stdout.write(`${JSON.stringify(event)}\n`);
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const workspace = poolConfig({ ...where, ...(ca ? { ca } : {}) }, password);
  let sandbox: TeamSandbox | null = null;
  if (args.sandbox) {
    try {
      sandbox = await startTeamSandbox({ dir: join(args.data, 'team-sandbox'), ...args.sandbox });
      await sandbox.publish(workspace);
    } catch (error) {
      await sandbox?.stop();
      fail(`could not start the team sandbox: ${error instanceof Error ? error.message : String(error)}`, 1);
    }
    profiles = { ...profiles, [TEAM_SANDBOX.profileId]: sandbox.profileKeys };
    say({ event: 'team-sandbox', profileId: TEAM_SANDBOX.profileId, baseUrl: sandbox.baseUrl, controlUrl: sandbox.controlUrl });
  }
  // The team sandbox's webhooks reach this sender with no flag: its own receiver, on any free port unless told.
  const webhooks = args.webhookPort !== undefined
    ? { host: args.webhookHost ?? '127.0.0.1', port: args.webhookPort, ...(sandbox ? { secret: sandbox.webhookSecret } : webhookSecret ? { secret: webhookSecret } : {}) }
    : sandbox ? { host: '127.0.0.1', port: 0, secret: sandbox.webhookSecret } : null;
  const sender = await startTeamSender({
    userDataDir: args.data,
    workspace,
    keys: senderKeysOf(profiles),
    version,
    ...(args.watchMs ? { watchMs: args.watchMs } : {}),
    ...(args.leaseMs ? { batchClaims: { leaseMs: args.leaseMs, watchMs: args.watchMs ?? 1_000 } } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(sandbox ? { onWebhookUrl: (url: string) => sandbox.pointWebhooksAt(url) } : {}),
    report: say,
  }).catch(async (error: unknown) => {
    await sandbox?.stop();
    return fail(`could not start: ${error instanceof Error ? error.message : String(error)}`, 1);
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void sender.close().then(() => sandbox?.stop()).then(
      () => process.exit(0),
      (error: unknown) => fail(`stopped with an error: ${error instanceof Error ? error.message : String(error)}`, 1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) void main();
