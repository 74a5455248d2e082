/**
 * @paydesk/sandbox the way a user meets it: built from this repository's engine, packed with
 * `npm pack`, installed from the tarball into an empty temporary project (its other dependencies from
 * the npm registry, better-sqlite3 compiled there), then `npx paydesk-sandbox --json` starts and
 * answers, and a vitest file in that project uses the library API (signed request, webhook
 * delivery to a loopback receiver, clock advance, a scenario). Slow: one file, generous timeouts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../temp-dir';

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'sandbox');

const LIBRARY_TEST = `
import { createServer } from 'node:http';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { startSandbox } from '@paydesk/sandbox';

it('creates a signed payment, receives its webhooks, steers one with a scenario, advances the clock', async () => {
  const received = [];
  const server = createServer((req, res) => { let body = ''; req.on('data', (c) => (body += c)); req.on('end', () => { received.push(JSON.parse(body).type); res.end('ok'); }); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sandbox = await startSandbox();
  try {
    expect(sandbox.setWebhookUrl('http://127.0.0.1:' + server.address().port + '/hooks')).toMatch(/^whsec_/);
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
    sandbox.advanceClock(61);
    await sandbox.waitForStatus(steeredId, 'failed');
    for (let i = 0; i < 100 && sandbox.deliveries().filter((d) => d.status === 'delivered').length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    expect(sandbox.deliveries().map((d) => d.eventType).sort()).toEqual(['payment.completed', 'payment.failed', 'payment.processing', 'payment.processing']);
    expect(received.sort()).toEqual(['payment.completed', 'payment.failed', 'payment.processing', 'payment.processing']);
  } finally {
    await sandbox.stop();
    server.close();
  }
});
`;

function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
}

describe('@paydesk/sandbox from its packed tarball', () => {
  it('installs into an empty project; the bin starts with --json and the library API works under vitest', async () => {
    run(process.execPath, [join(PACKAGE, 'scripts', 'build.mjs')], PACKAGE, 180_000);
    const packDir = makeTempDir('paydesk-pack-');
    run('npm', ['pack', '--pack-destination', packDir], PACKAGE, 60_000);
    const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^paydesk-sandbox-0\.1\.0\.tgz$/);

    // An empty project outside this repository: nothing resolves from here.
    const project = makeTempDir('paydesk-consumer-');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
    run('npm', ['install', '--no-audit', '--no-fund', join(packDir, tarball as string), 'vitest@4'], project, 540_000);

    // The bin, as `npx paydesk-sandbox --port 0 --json` runs it.
    const child = spawn('npx', ['--no-install', 'paydesk-sandbox', '--port', '0', '--db', ':memory:', '--json'], { cwd: project, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`the bin exited with ${String(code)} before its ready line`)));
      });
      const ready = JSON.parse(firstLine) as { url: string; adminToken: string };
      expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const openapi = await fetch(`${ready.url}/openapi.json`);
      expect(openapi.status).toBe(200);
      const scenarios = await fetch(`${ready.url}/_sandbox/scenarios`, { headers: { authorization: `Bearer ${ready.adminToken}` } });
      expect(((await scenarios.json()) as { data: { scenarios: unknown[] } }).data.scenarios).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }

    writeFileSync(join(project, 'library.test.js'), LIBRARY_TEST);
    const output = run(join(project, 'node_modules', '.bin', 'vitest'), ['run', 'library.test.js'], project, 120_000);
    expect(output).toMatch(/1 passed/);
  }, 900_000);
});
