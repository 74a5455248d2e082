import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../electron/client';
import { parseCliArgs } from '../../packages/sandbox/src/cli';
import { loadSeedFile } from '../../packages/sandbox/src/engine';
import { tempDir } from './helpers';

const temp = tempDir();
afterAll(() => temp.cleanup());

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'packages', 'sandbox', 'src', 'cli.ts');

/** Runs the CLI to completion (for refusals) and collects its output. */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('CLI flag parsing', () => {
  it('reads every flag, in both --flag value and --flag=value forms', () => {
    expect(parseCliArgs(['--host', '0.0.0.0', '--port=0', '--db', ':memory:', '--settle-ms', '0', '--json'])).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      db: ':memory:',
      settleMs: 0,
      json: true,
    });
    expect(parseCliArgs([])).toMatchObject({ host: '127.0.0.1', port: 4010, json: false, rateLimit: undefined });
    expect(parseCliArgs(['--rate-limit', '0']).rateLimit).toBe(0);
    expect(parseCliArgs(['--rate-limit=1200']).rateLimit).toBe(1200);
  });
});

describe('CLI refusals: message on stderr and non-zero exit before listening', () => {
  it.each([
    [['--port', 'abc'], /--port must be a whole number from 0 to 65535, got "abc"/],
    [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
    [['--settle-ms', '-1'], /--settle-ms needs a value|--settle-ms must be a whole number/],
    [['--settle-ms', '1.5'], /--settle-ms must be a whole number/],
    [['--colour', 'blue'], /unknown flag --colour/],
    [['--db'], /--db needs a value/],
    [['--host', 'not a host'], /--host must be an IP address/],
    [['--json=yes'], /--json takes no value/],
    [['--port', '1', '--port', '2'], /--port is given twice/],
    [['stray'], /unexpected argument "stray"/],
    [['--rate-limit', 'abc'], /--rate-limit must be a whole number from 0 to 1000000, got "abc"/],
    [['--rate-limit', '-1'], /--rate-limit must be a whole number from 0 to 1000000, got "-1"/],
    [['--rate-limit=2.5'], /--rate-limit must be a whole number from 0 to 1000000, got "2.5"/],
    [['--rate-limit', '1000001'], /--rate-limit must be a whole number from 0 to 1000000, got "1000001"/],
  ])('%j', async (args, message) => {
    const result = await runCli(args as string[]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('a missing seed file', async () => {
    const result = await runCli(['--seed', join(temp.dir, 'missing.json'), '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing\.json is not a valid seed:\n {2}- cannot be read \(ENOENT\)/);
  });

  it('a seed file that is not JSON', async () => {
    const file = join(temp.dir, 'broken.json');
    writeFileSync(file, '{ "applications": [');
    const result = await runCli(['--seed', file, '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.json is not a valid seed:\n {2}- is not valid JSON/);
  });

  it('a seed file with bad fields names each one', async () => {
    const file = join(temp.dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ applications: [{ id: 'app_x', name: 'X', keys: [], wallets: { sandbox: 'lots' } }] }));
    const result = await runCli(['--seed', file, '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('applications.0.keys: must list at least one key pair');
    expect(result.stderr).toContain('applications.0.wallets.sandbox: must be a number');
  });
});

describe('CLI help', () => {
  it('names the bin, and a seed example that exists and is a valid seed', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('Usage: paydesk-sandbox [options]');
    const example = /a full example: (\S+\.json)\)/.exec(stdout)?.[1];
    expect(example).toBe(join(process.cwd(), 'packages', 'sandbox', 'seed.example.json'));
    expect(existsSync(example!)).toBe(true);
    expect(loadSeedFile(example!).applications.length).toBeGreaterThan(0);
  });
});

describe('CLI start', () => {
  it('with --json --port 0 --rate-limit 0 prints one JSON line with the URL and keys, serves the API without a limit, and stops on SIGTERM', async () => {
    const child = spawn(TSX, [CLI, '--json', '--port', '0', '--db', ':memory:', '--settle-ms', '0', '--rate-limit', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        const newline = buffer.indexOf('\n');
        if (newline !== -1) resolve(buffer.slice(0, newline));
      });
      child.on('close', (code) => reject(new Error(`exited ${code}`)));
    });
    const ready = JSON.parse(line) as { url: string; port: number; adminToken: string; applications: { keys: { environment: string; type: string; publicKey: string; secretKey: string }[] }[] };
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const keys = ready.applications[0]?.keys ?? [];
    const sandbox = (type: string) => keys.find((key) => key.environment === 'sandbox' && key.type === type);
    const client = createClient(
      { baseUrl: ready.url, environment: 'sandbox', paymentPublicKey: sandbox('payment')?.publicKey ?? '', payoutPublicKey: sandbox('payout')?.publicKey ?? '' },
      async (publicKey) => keys.find((key) => key.publicKey === publicKey)?.secretKey ?? '',
      { retry: { attempts: 1 } },
    );
    try {
      expect(await client.getBalance()).toMatchObject({ kind: 'success', data: { balance: 10_000_000 } });
      const settings = await fetch(`${ready.url}/_sandbox/settings`, { headers: { authorization: `Bearer ${ready.adminToken}` } });
      expect(((await settings.json()) as { data: { rateLimitPerKeyPerMinute: number } }).data.rateLimitPerKeyPerMinute).toBe(0);
    } finally {
      await client.close();
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
