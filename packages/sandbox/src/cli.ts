/**
 * `paydesk-sandbox [--host 127.0.0.1] [--port 4010] [--db FILE|:memory:] [--seed FILE] [--settle-ms N] [--rate-limit N] [--inspector-size N]
 *   [--variant NAME[,NAME…]] [--reset-every N] [--json]`
 *
 * (`npx @paydesk/sandbox …`; in the Paydesk repository `npm run sandbox -- …`). Starts the local
 * sandbox engine and prints its URL and keys (or, with --json, one JSON line).
 * Bad flags or a bad seed file: a precise message on stderr and exit code 2 before anything listens.
 */
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_INSPECTOR_SIZE, MAX_INSPECTOR_SIZE } from './inspector';
import { ADMIN_TOKEN_PATTERN } from './control';
import { MAX_RESET_EVERY, parseServiceVariants, SERVICE_VARIANTS, type ServiceVariant, type ServiceVariants } from './variants/catalogue';
import { DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE, defaultDbFile, loadSeedFile, MAX_RATE_LIMIT_PER_KEY_PER_MINUTE, SeedError, startEngine, type EngineHandle, type Seed } from './engine';

export interface CliOptions {
  host: string;
  port: number;
  db: string;
  seedFile: string | null;
  settleMs: number | undefined;
  /** Requests per minute per key; 0 turns the limit off; undefined: the default (600). */
  rateLimit: number | undefined;
  adminToken: string | undefined;
  /** --inspector-size; absent: the engine's default. */
  inspectorSize?: number;
  /** --variant and --reset-every; absent: none (the default engine). */
  variants?: ServiceVariants;
  json: boolean;
  help: boolean;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The seed example ships at the package's root: one folder up from both this source file (src/cli.ts)
 * and the built bin (dist/cli.js), so the path printed is one that exists wherever the CLI runs.
 */
export const SEED_EXAMPLE_FILE = fileURLToPath(new URL('../seed.example.json', import.meta.url));

export const USAGE = `Usage: paydesk-sandbox [options]
       (npx paydesk-sandbox [options] once the packed tarball is installed; in the Paydesk repository: npm run sandbox -- [options])

Options:
  --host ADDRESS    address to listen on (default 127.0.0.1; anything else exposes the sandbox)
  --port N          port, 0 for a random free one (default 4010)
  --db FILE         SQLite database file, or :memory: (default ${defaultDbFile()})
  --seed FILE       seed file (JSON, a full example: ${SEED_EXAMPLE_FILE}); used for a new database only
  --settle-ms N     delay before a transaction settles, in milliseconds (default 2000, 0 allowed)
  --rate-limit N    requests per minute per API key (default ${DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE}, 0 = no limit, for load tests)
  --admin-token T   bearer token for the /_sandbox control API (default: the seed's, else random per start)
  --inspector-size N  requests the request inspector keeps in memory (default ${DEFAULT_INSPECTOR_SIZE}, 0 turns it off)
  --variant NAMES   service variants, comma-separated: answer a silence of the spec the other way
                    (${SERVICE_VARIANTS.join(', ')};
                    see docs/sandbox-engine.md; none by default)
  --reset-every N   with --variant reset-after-create: reset every Nth create (default 1, at most ${MAX_RESET_EVERY})
  --json            print one JSON line with the URL and keys when ready
  --help            show this help`;

const VALUE_FLAGS = new Set(['--host', '--port', '--db', '--seed', '--settle-ms', '--rate-limit', '--admin-token', '--inspector-size', '--variant', '--reset-every']);
const BOOLEAN_FLAGS = new Set(['--json', '--help']);

function integerFlag(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return Number(text);
}

export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { host: '127.0.0.1', port: 4010, db: defaultDbFile(), seedFile: null, settleMs: undefined, rateLimit: undefined, adminToken: undefined, json: false, help: false };
  const seen = new Set<string>();
  let variantNames: string[] | undefined;
  let resetEvery: number | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!VALUE_FLAGS.has(flag) && !BOOLEAN_FLAGS.has(flag)) {
      throw new UsageError(arg.startsWith('-') ? `unknown flag ${flag}` : `unexpected argument "${arg}"`);
    }
    if (seen.has(flag)) throw new UsageError(`${flag} is given twice`);
    seen.add(flag);
    if (BOOLEAN_FLAGS.has(flag)) {
      if (eq !== -1) throw new UsageError(`${flag} takes no value`);
      if (flag === '--json') options.json = true;
      else options.help = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[index + 1];
      index += 1;
    }
    if (value === undefined || value === '' || (eq === -1 && value.startsWith('--'))) throw new UsageError(`${flag} needs a value`);
    switch (flag) {
      case '--host':
        if (isIP(value) === 0 && value !== 'localhost') throw new UsageError(`--host must be an IP address or localhost, got "${value}"`);
        options.host = value;
        break;
      case '--port':
        options.port = integerFlag('--port', value, 0, 65535);
        break;
      case '--db':
        options.db = value === ':memory:' ? value : resolve(value);
        break;
      case '--seed':
        options.seedFile = resolve(value);
        break;
      case '--settle-ms':
        options.settleMs = integerFlag('--settle-ms', value, 0, 86_400_000);
        break;
      case '--rate-limit':
        options.rateLimit = integerFlag('--rate-limit', value, 0, MAX_RATE_LIMIT_PER_KEY_PER_MINUTE);
        break;
      case '--admin-token':
        if (!ADMIN_TOKEN_PATTERN.test(value)) throw new UsageError('--admin-token must be 16 to 200 characters of letters, digits and . _ ~ + / = -');
        options.adminToken = value;
        break;
      case '--inspector-size':
        options.inspectorSize = integerFlag('--inspector-size', value, 0, MAX_INSPECTOR_SIZE);
        break;
      case '--variant':
        variantNames = value.split(',').map((name) => name.trim());
        break;
      case '--reset-every':
        resetEvery = integerFlag('--reset-every', value, 1, MAX_RESET_EVERY);
        break;
    }
  }
  const variants = variantsFrom(variantNames, resetEvery);
  if (variants !== undefined) options.variants = variants;
  return options;
}

/** --variant's names (checked one by one, so the message names the bad one) and --reset-every, through the engine's schema. */
function variantsFrom(names: string[] | undefined, resetEvery: number | undefined): ServiceVariants | undefined {
  if (names === undefined) {
    if (resetEvery !== undefined) throw new UsageError('--reset-every needs --variant reset-after-create');
    return undefined;
  }
  for (const name of names) {
    if (!(SERVICE_VARIANTS as readonly string[]).includes(name)) {
      throw new UsageError(`--variant: unknown variant "${name}"; known variants: ${SERVICE_VARIANTS.join(', ')}`);
    }
  }
  if (new Set(names).size !== names.length) throw new UsageError('--variant names a variant twice');
  if (resetEvery !== undefined && !names.includes('reset-after-create')) throw new UsageError('--reset-every needs --variant reset-after-create');
  return parseServiceVariants({ enabled: names as ServiceVariant[], resetEvery });
}

function describeStart(engine: EngineHandle, options: CliOptions): string {
  const lines = [`Paydesk local sandbox listening on ${engine.api.url}`, `Database: ${options.db === ':memory:' ? 'in memory (nothing is kept)' : options.db}`];
  for (const app of engine.api.applications()) {
    lines.push('', `Application ${app.name} (${app.id}), ${app.status}${app.liveApproved ? ', live approved' : ', live not approved'}`);
    for (const key of app.keys) {
      lines.push(`  ${key.environment.padEnd(7)} ${key.type.padEnd(7)} public ${key.publicKey}  secret ${key.secretKey}${key.active ? '' : '  (disabled)'}`);
    }
  }
  const variants = engine.control.variants.read();
  if (variants.enabled.length > 0) {
    const every = variants.enabled.includes('reset-after-create') ? ` (reset every ${variants.resetEvery === 1 ? 'create' : `${variants.resetEvery}th create`})` : '';
    lines.push('', `Service variants: ${variants.enabled.join(', ')}${every}`);
  }
  const perMinute = engine.control.settings().rateLimitPerKeyPerMinute;
  lines.push('', `Rate limit: ${perMinute === 0 ? 'off' : `${perMinute} requests per minute per key`}`);
  lines.push('', `Control API: ${engine.api.url}/_sandbox  (Authorization: Bearer ${engine.control.adminToken})`, `OpenAPI document: ${engine.api.url}/openapi.json`);
  lines.push('', 'Press Ctrl+C to stop.');
  return lines.join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  let options: CliOptions;
  let seed: Seed | undefined;
  try {
    options = parseCliArgs(argv);
    if (options.help) {
      console.log(USAGE);
      return 0;
    }
    if (options.seedFile !== null) seed = loadSeedFile(options.seedFile);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`paydesk sandbox: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof SeedError) {
      console.error(`paydesk sandbox: ${error.message}`);
      return 2;
    }
    throw error;
  }
  let engine: EngineHandle;
  try {
    engine = await startEngine({
      host: options.host,
      port: options.port,
      db: options.db,
      seed,
      settleMs: options.settleMs,
      rateLimit: options.rateLimit === undefined ? undefined : { perKeyPerMinute: options.rateLimit },
      adminToken: options.adminToken,
      inspectorSize: options.inspectorSize,
      variants: options.variants,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE' ? `port ${options.port} on ${options.host} is already in use (try --port 0)`
      : code === 'EADDRNOTAVAIL' ? `${options.host} is not an address of this machine`
      : (error as Error).message;
    console.error(`paydesk sandbox: cannot start: ${reason}`);
    return 1;
  }
  if (options.json) {
    const apps = engine.api.applications().map((app) => ({
      id: app.id,
      name: app.name,
      keys: app.keys.map((key) => ({ environment: key.environment, type: key.type, publicKey: key.publicKey, secretKey: key.secretKey })),
    }));
    console.log(JSON.stringify({ url: engine.api.url, port: engine.api.port, db: options.db, adminToken: engine.control.adminToken, variants: engine.control.variants.read(), applications: apps }));
  } else {
    console.log(describeStart(engine, options));
  }
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await engine.stop();
  return 0;
}

/** Runs only as the entry point, so tests can import the parser. */
const entry = process.argv[1];
/** The script node was started with, symlinks resolved (an npm `bin` is a symlink to the package's file). */
function entryUrl(file: string): string {
  try {
    return pathToFileURL(realpathSync(file)).href;
  } catch {
    return pathToFileURL(resolve(file)).href;
  }
}
if (entry !== undefined && import.meta.url === entryUrl(entry)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error('paydesk sandbox: unexpected error', error);
      process.exitCode = 1;
    },
  );
}
