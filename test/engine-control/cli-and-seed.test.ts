/**
 * Where the admin token comes from: the `--admin-token` flag, the seed's `adminToken`, or a
 * random one that the CLI prints at start.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED_INPUT, parseSeed, startEngine } from '../../packages/sandbox/src/engine';
import { parseCliArgs } from '../../packages/sandbox/src/cli';
import { control } from './control';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'packages', 'sandbox', 'src', 'cli.ts');

/** Starts the CLI and resolves with its stdout once `until` matches it (the CLI prints when listening). */
function startCli(args: string[], until = /\n/): Promise<{ output: string; stop: () => Promise<number | null> }> {
  const child = spawn(TSX, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (until.test(buffer)) resolve({ output: buffer, stop: () => (child.kill('SIGTERM'), exited) });
    });
    child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

describe('admin token sources', () => {
  it('parses --admin-token and refuses a weak or spaced one', () => {
    expect(parseCliArgs(['--admin-token', 'dev-admin-token-0123456789']).adminToken).toBe('dev-admin-token-0123456789');
    expect(parseCliArgs([]).adminToken).toBeUndefined();
    expect(() => parseCliArgs(['--admin-token', 'short'])).toThrow('--admin-token must be 16 to 200 characters');
    expect(() => parseCliArgs(['--admin-token=has spaces in it 000000'])).toThrow('--admin-token must be 16 to 200 characters');
  });

  it('uses the seed adminToken when no option is given', async () => {
    const seed = parseSeed({ ...DEFAULT_SEED_INPUT, adminToken: 'seeded-admin-token-abcdef' });
    const engine = await startEngine({ db: ':memory:', port: 0, seed });
    try {
      expect(engine.control.adminToken).toBe('seeded-admin-token-abcdef');
      expect((await control(engine, 'GET', '/clock')).status).toBe(200);
      const overridden = await startEngine({ db: ':memory:', port: 0, seed, adminToken: 'flag-wins-over-seed-0000' });
      expect(overridden.control.adminToken).toBe('flag-wins-over-seed-0000');
      await overridden.stop();
    } finally {
      await engine.stop();
    }
  });

  it('the CLI takes --admin-token, prints it in --json, and the control API accepts it', async () => {
    const cli = await startCli(['--json', '--port', '0', '--db', ':memory:', '--admin-token', 'cli-admin-token-0123456789']);
    try {
      const ready = JSON.parse(cli.output) as { url: string; adminToken: string };
      expect(ready.adminToken).toBe('cli-admin-token-0123456789');
      const ok = await fetch(`${ready.url}/_sandbox/settings`, { headers: { authorization: `Bearer ${ready.adminToken}` } });
      expect(ok.status).toBe(200);
      const refused = await fetch(`${ready.url}/_sandbox/settings`);
      expect(refused.status).toBe(401);
      expect((await fetch(`${ready.url}/openapi.json`)).status).toBe(200);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it('the CLI prints a random token and the control API URL when no token is given', async () => {
    const cli = await startCli(['--port', '0', '--db', ':memory:'], /Press Ctrl\+C to stop\./);
    try {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.output)?.[1];
      const token = /Control API: http:\/\/127\.0\.0\.1:\d+\/_sandbox {2}\(Authorization: Bearer (adm_[A-Za-z0-9_-]{32})\)/.exec(cli.output)?.[1];
      expect(url).toBeDefined();
      expect(token).toBeDefined();
      expect(cli.output).toContain(`OpenAPI document: ${url}/openapi.json`);
      const answer = await fetch(`${url}/_sandbox/clock`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });
});
