/**
 * @paydesk/sandbox the way a user meets it: built from this repository's engine, packed with
 * `npm pack`, installed from the tarball into an empty project in the system temp folder (its
 * dependencies from the npm registry, better-sqlite3 compiled there: the project's package.json
 * allows its install script, as npm 11 asks), with an environment that names nothing of this
 * repository. Then `npx paydesk-sandbox --port 0 --json` prints its ready line and answers a signed
 * request, and a vitest file in that project uses the library API (signed request, webhook delivery
 * to a loopback receiver, a scenario, clock advance). The one slow test of `npm test`: minutes, not
 * seconds (install and native build), hence its own timeout.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { signParts } from '@paydesk/sandbox';
import { makeTempDir } from '../temp-dir';

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'sandbox');
const PACKAGE_TIMEOUT_MS = 1_200_000;

/** Only what npm and node need (PATH for node and the compiler, HOME for the user's npm config): no NODE_PATH, no vitest variables of this run. */
const CLEAN_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

const LIBRARY_TEST = `
import { createServer } from 'node:http';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { startSandbox } from '@paydesk/sandbox';

it('signs a request, receives its webhooks, steers one with a scenario, advances the clock', async () => {
  const received = [];
  const server = createServer((req, res) => { let body = ''; req.on('data', (c) => (body += c)); req.on('end', () => { received.push(JSON.parse(body).type); res.end('ok'); }); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sandbox = await startSandbox();
  try {
    expect(sandbox.setWebhookUrl('http://127.0.0.1:' + server.address().port + '/hooks')).toMatch(/^whsec_/);
    // The sign helper's headers on a plain fetch.
    const balance = await fetch(sandbox.url + '/v1/balance', { headers: sandbox.sign('GET', '/v1/balance', undefined, 'payout') });
    expect(balance.status).toBe(200);
    expect((await balance.json()).data.balance).toBe(10000000);
    const unsigned = await fetch(sandbox.url + '/v1/balance');
    expect(unsigned.status).toBe(401);

    const body = { payment_method: 'service_demo', amount: 5000, phone_number: '+237650000001', customer: { first_name: 'Ada', last_name: 'N', email: 'ada@example.com' }, external_id: 'pkg-1' };
    const created = await sandbox.request('POST', '/v1/payments', body);
    expect(created.status).toBe(200);
    const id = created.body.data.transaction_id;
    await sandbox.waitForStatus(id, 'completed');
    const read = await sandbox.request('GET', '/v1/payments/' + id);
    expect(read.body.data.status).toBe('completed');

    sandbox.addScenario({ external_id: 'pkg-2', status: 'failed', failed_code: 'EXPIRED', processing_seconds: 60 });
    const steered = await sandbox.request('POST', '/v1/payments', { ...body, external_id: 'pkg-2' });
    const steeredId = steered.body.data.transaction_id;
    expect((await sandbox.request('GET', '/v1/payments/' + steeredId)).body.data.status).toBe('processing');
    sandbox.advanceClock(61);
    await sandbox.waitForStatus(steeredId, 'failed');

    for (let i = 0; i < 200 && sandbox.deliveries().filter((d) => d.status === 'delivered').length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    expect(sandbox.deliveries().map((d) => d.eventType).sort()).toEqual(['payment.completed', 'payment.failed', 'payment.processing', 'payment.processing']);
    expect(received.sort()).toEqual(['payment.completed', 'payment.failed', 'payment.processing', 'payment.processing']);
  } finally {
    await sandbox.stop();
    server.close();
  }
});
`;

interface PackageFiles {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, Record<string, string>>;
}

/** The files a package.json points at, relative to the package folder. */
function namedFiles(pkg: PackageFiles): string[] {
  const files = [pkg.main, pkg.types, ...Object.values(pkg.bin), ...Object.values(pkg.exports).flatMap((target) => Object.values(target))];
  return [...new Set(files.map((file) => file.replace(/^\.\//, '')))];
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: CLEAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`.slice(-6000), { cause: error });
  }
}

/** Starts the installed bin through npx in its own process group (killed as a group: npx, then node). */
async function startBin(project: string): Promise<{ ready: { url: string; adminToken: string }; stop: () => void }> {
  const child = spawn('npx', ['--no-install', 'paydesk-sandbox', '--port', '0', '--db', ':memory:', '--json'], { cwd: project, env: CLEAN_ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stop = () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the bin exited with ${String(code)} before its ready line: ${stderr}`)));
    });
    return { ready: JSON.parse(firstLine) as { url: string; adminToken: string }, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

describe('@paydesk/sandbox from its packed tarball', () => {
  it('installs into an empty project; the bin answers a signed request and the library API works under vitest', async () => {
    const packDir = makeTempDir('paydesk-pack-');
    const project = makeTempDir('paydesk-consumer-');
    try {
      expect(relative(ROOT, project).startsWith('..')).toBe(true);
      run(process.execPath, [join(PACKAGE, 'scripts', 'build.mjs')], PACKAGE, 300_000);
      run('npm', ['pack', '--pack-destination', packDir], PACKAGE, 120_000);
      const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
      expect(tarball).toBe('paydesk-sandbox-0.1.0.tgz');
      // Every file the package.json names is in the tarball (the library, the bin, the type declarations a
      // TypeScript user's editor reads): checked before the slow install, so a wrong "files" fails at once.
      const packed = run('tar', ['-tzf', join(packDir, tarball!)], packDir, 60_000).split('\n').map((entry) => entry.replace(/^package\//, ''));
      expect(namedFiles(JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as PackageFiles).filter((file) => !packed.includes(file))).toEqual([]);

      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', allowScripts: { 'better-sqlite3': true, esbuild: true } }, null, 2));
      // --engine-strict: a dependency that claims a newer Node than the package's own claim (cookie@2 through
      // fastify's light-my-request wanted Node 22) fails the install instead of warning EBADENGINE.
      run('npm', ['install', '--no-audit', '--no-fund', '--engine-strict', join(packDir, tarball!)], project, 900_000);
      run('npm', ['install', '--no-audit', '--no-fund', 'vitest@4'], project, 300_000);
      // Installed as a copy from the tarball, not a link back into this repository.
      const installedDir = join(project, 'node_modules', '@paydesk', 'sandbox');
      expect(lstatSync(installedDir).isSymbolicLink()).toBe(false);
      expect(namedFiles(JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')) as PackageFiles).filter((file) => !existsSync(join(installedDir, file)))).toEqual([]);

      // The installed bin's help names itself and a seed example that the package ships.
      const help = run('npx', ['--no-install', 'paydesk-sandbox', '--help'], project, 60_000);
      expect(help.split('\n')[0]).toBe('Usage: paydesk-sandbox [options]');
      const example = /a full example: (\S+\.json)\)/.exec(help)?.[1];
      expect(example).toBe(join(realpathSync(installedDir), 'seed.example.json'));
      expect(existsSync(example!)).toBe(true);

      const bin = await startBin(project);
      try {
        expect(bin.ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const publicKey = 'pk_sandbox_payout_paydeskdemo01';
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = signParts('sk_sandbox_payout_paydeskdemo01_secret', { publicKey, timestamp, method: 'GET', path: '/v1/balance', payload: '' });
        const balance = await fetch(`${bin.ready.url}/v1/balance`, { headers: { Authorization: publicKey, 'X-SVC-Timestamp': timestamp, 'X-SVC-Signature': signature, 'X-SVC-Environment': 'sandbox' } });
        expect(balance.status).toBe(200);
        expect(((await balance.json()) as { data: { balance: number; currency: string } }).data).toMatchObject({ balance: 10_000_000, currency: 'XAF' });
        const scenarios = await fetch(`${bin.ready.url}/_sandbox/scenarios`, { headers: { authorization: `Bearer ${bin.ready.adminToken}` } });
        expect(((await scenarios.json()) as { data: { scenarios: unknown[] } }).data.scenarios).toEqual([]);
      } finally {
        bin.stop();
      }

      writeFileSync(join(project, 'library.test.js'), LIBRARY_TEST);
      const output = run(join(project, 'node_modules', '.bin', 'vitest'), ['run', 'library.test.js'], project, 180_000);
      expect(output).toMatch(/1 passed/);
    } finally {
      // Also when a step failed (the setup file removes them again after the file; this is the first line).
      rmSync(project, { recursive: true, force: true, maxRetries: 3 });
      rmSync(packDir, { recursive: true, force: true, maxRetries: 3 });
    }
  }, PACKAGE_TIMEOUT_MS);
});
