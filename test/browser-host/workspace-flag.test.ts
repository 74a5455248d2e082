/**
 * The browser host's --workspace flag: each bad URL refused with a precise message (never a
 * password on the command line, never TLS turned off for another machine), and two real browser
 * hosts started with it on one workspace, the password from PAYDESK_WORKSPACE_PASSWORD, each
 * saying where it records and as whom.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../electron/browser-host/cli-args';
import { parseWorkspaceFlag } from '../../electron/browser-host/workspace-flag';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('--workspace', () => {
  it('reads a login, host, port and database; TLS off on this machine, verified elsewhere', () => {
    expect(parseWorkspaceFlag('postgres://finance_demo@127.0.0.1:5433/paydesk_team')).toEqual({
      ok: true,
      workspace: { host: '127.0.0.1', port: 5433, database: 'paydesk_team', user: 'finance_demo', tls: 'off' },
    });
    expect(parseWorkspaceFlag('postgresql://fatou@db.example.com/team?sslrootcert=ca.pem')).toEqual({
      ok: true,
      workspace: { host: 'db.example.com', port: 5432, database: 'team', user: 'fatou', tls: 'verify', caFile: 'ca.pem' },
    });
    expect(parseWorkspaceFlag('postgres://fatou@localhost:5433/team?sslmode=verify-full')).toMatchObject({ ok: true, workspace: { tls: 'verify' } });
    const parsed = parseCliArgs(['--workspace', 'postgres://fatou@db.example.com/team?sslrootcert=certs/ca.pem'], { cwd: '/home/fatou', userDataDir: '/data', staticDir: '/static' });
    expect(parsed.ok && parsed.options.workspace?.caFile).toBe('/home/fatou/certs/ca.pem');
  });

  it.each([
    ['postgres://fatou:secret@127.0.0.1/team', 'must not hold a password'],
    ['mysql://fatou@127.0.0.1/team', 'must start with postgres://'],
    ['not a url', 'is not a URL'],
    ['postgres://127.0.0.1/team', 'needs a login before @'],
    ['postgres://fatou@127.0.0.1/', 'needs a database after the port'],
    ['postgres://fatou@127.0.0.1/te;am', 'has a database that is not a PostgreSQL name'],
    ['postgres://fatou@db.example.com/team?sslmode=disable', 'cannot turn TLS off for db.example.com'],
    ['postgres://fatou@db.example.com/team?sslmode=require', 'sslmode must be verify-full or disable'],
    ['postgres://fatou@127.0.0.1/team?password=x', 'unknown setting "password"'],
  ])('refuses %s: %s', (url, words) => {
    const parsed = parseWorkspaceFlag(url);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(words);
    const cli = parseCliArgs(['--workspace', url], { cwd: '/', userDataDir: '/data', staticDir: '/static' });
    expect(cli).toEqual({ ok: false, message: expect.stringContaining('--workspace') });
    expect(JSON.stringify(cli)).not.toContain('secret');
  });
});

describe('two browser hosts on one workspace', () => {
  let workspace: PasswordWorkspace;
  const staticDir = join(makeTempDir('paydesk-flag-'), 'renderer');

  beforeAll(async () => {
    workspace = await startPasswordWorkspace();
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Paydesk</title>');
  }, 120_000);
  afterAll(() => workspace?.stop());

  function host(login: string, userData: string, password: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/browser-host/cli.ts', '--no-open', '--static', staticDir, '--user-data', userData, '--workspace', `postgres://${login}@127.0.0.1:${workspace.port}/${workspace.database}`], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PAYDESK_WORKSPACE_PASSWORD: password },
    });
    let out = '';
    const ready = new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (/Ctrl\+C stops/.test(out)) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    return { child, ready, stopped: new Promise((resolve) => child.on('exit', resolve)) };
  }

  it('each says where it records and as whom; a wrong password is the fault, not the desktop journal', async () => {
    const a = host('finance_demo', makeTempDir('paydesk-a-'), workspace.passwords.finance_demo!);
    const b = host('support_demo', makeTempDir('paydesk-b-'), workspace.passwords.support_demo!);
    const c = host('finance_demo', makeTempDir('paydesk-c-'), 'a-wrong-password-1');
    const [outA, outB, outC] = await Promise.all([a.ready, b.ready, c.ready]);
    expect(outA).toContain(`Records: team workspace finance_demo@127.0.0.1:${workspace.port}/${workspace.database}, as finance_demo (finance).`);
    expect(outB).toContain('as support_demo (support).');
    expect(outC).toContain('NOT OPEN (WORKSPACE_LOGIN_REFUSED)');
    for (const out of [outA, outB, outC]) {
      expect(out).not.toContain(workspace.passwords.finance_demo!);
      expect(out).not.toContain('a-wrong-password-1');
    }
    for (const each of [a, b, c]) each.child.kill('SIGTERM');
    await Promise.all([a.stopped, b.stopped, c.stopped]);
  }, 120_000);
});
