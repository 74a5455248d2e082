/** The browser host's CLI as a user runs it: a real process, its printed URL, a real HTTP call, a signal. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TOKEN_HEADER } from '../../shared/api';
import { CONTENT_SECURITY_POLICY } from '../../electron/net/renderer-files';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let staticDir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'paydesk-cli-'));
  staticDir = join(dir, 'renderer');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Paydesk CLI</title>');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout text matching the pattern. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function startCli(args: string[], env: NodeJS.ProcessEnv = process.env): Cli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'electron/browser-host/cli.ts', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const waiter of [...waiters]) {
      const match = out.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const match = out.match(pattern);
        if (match) return resolve(match);
        waiters.push({ pattern, resolve });
        void exited.then((code) => reject(new Error(`the CLI exited (${code}) before printing ${pattern}:\n${out}\n${err}`)));
      }),
  };
}

describe('browser host CLI', () => {
  it('prints the URL with the token, serves the page and the API, and stops cleanly on SIGTERM', async () => {
    const cli = startCli(['--port', '0', '--no-open', '--user-data', join(dir, 'data'), '--static', staticDir]);
    try {
      const [, url, origin, token] = await cli.waitFor(/Open: ((http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+))\n/);
      await cli.waitFor(/Ctrl\+C stops\.\n/);
      expect(cli.stdout()).toContain('Live profiles: refused');
      // Where a developer finds the sandbox's OpenAPI document and control API; the admin token's place, not the token.
      const engineUrl = /Local sandbox engine: (http:\/\/127\.0\.0\.1:\d+)\n/.exec(cli.stdout())?.[1];
      expect(engineUrl).toBeDefined();
      expect(cli.stdout()).toContain(`OpenAPI document: ${engineUrl}/openapi.json`);
      expect(cli.stdout()).toContain(`Control API: ${engineUrl}/_sandbox (admin token: Sandbox screen, "For your app", Reveal)`);
      expect(await fetch(`${engineUrl}/openapi.json`).then((r) => r.status)).toBe(200);

      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>Paydesk CLI</title>');
      expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);

      const call = (withToken: string) =>
        fetch(`${origin}/api/invoke/app:info`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [BROWSER_TOKEN_HEADER]: withToken },
          body: '{}',
        });
      const info = await call(token!);
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ ok: true, value: { transport: 'browser', allowLive: false } });
      expect((await call('wrong-token-wrong-token')).status).toBe(401);

      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain('paydesk: stopped.');
      await expect(fetch(`${origin}/`)).rejects.toThrow();
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('passes --allow-live to the console', async () => {
    const cli = startCli(['--no-open', '--allow-live', '--user-data', join(dir, 'live'), '--static', staticDir]);
    try {
      const [, origin, token] = await cli.waitFor(/Open: (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)\n/);
      const info = await fetch(`${origin}/api/invoke/app:info`, { method: 'POST', headers: { [BROWSER_TOKEN_HEADER]: token! }, body: '{}' });
      expect(await info.json()).toMatchObject({ ok: true, value: { allowLive: true } });
      cli.child.kill('SIGINT');
      expect(await cli.exited).toBe(0);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('opens the browser with a one-time code, never the token, in the opener\'s arguments (readable by any local user)', async () => {
    // Stand-ins for xdg-open / open, first on PATH: they write the arguments they were given.
    const bin = join(dir, 'bin');
    const argsFile = join(dir, 'opener-args.txt');
    mkdirSync(bin, { recursive: true });
    for (const name of ['xdg-open', 'open']) {
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\n`, { mode: 0o755 });
    }
    const cli = startCli(['--user-data', join(dir, 'opener'), '--static', staticDir], { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
    try {
      const [, origin, token] = await cli.waitFor(/Open: (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)\n/);
      await cli.waitFor(/Ctrl\+C stops\.\n/);
      const args = await vi.waitFor(() => readFileSync(argsFile, 'utf8'), { timeout: 10_000, interval: 50 });
      expect(args).not.toContain(token!);
      const [openUrl] = args.trim().split('\n');
      expect(openUrl).toMatch(new RegExp(`^${origin}/api/open\\?code=[A-Za-z0-9_-]+$`));
      // The browser's first visit trades the code for the session cookie; the code is then spent.
      const first = await fetch(openUrl!, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      const info = await fetch(`${origin}/api/invoke/app:info`, { method: 'POST', headers: { cookie }, body: '{}' });
      expect(await info.json()).toMatchObject({ ok: true, value: { transport: 'browser' } });
      const again = await fetch(openUrl!, { redirect: 'manual' });
      expect(again.status).toBe(401);
      expect(again.headers.get('set-cookie')).toBeNull();
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('exits with 2 and a precise message on a bad flag', async () => {
    const cli = startCli(['--port', 'eighty']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('paydesk: --port must be a whole number from 0 to 65535, got "eighty"');
    expect(cli.stderr()).toContain('Usage:');
  });

  it('refuses a non-loopback host', async () => {
    const cli = startCli(['--host', '0.0.0.0']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('--host must be a loopback address');
  });

  it('exits with 1 and says what to do when the renderer is not built', async () => {
    const cli = startCli(['--no-open', '--user-data', join(dir, 'nostatic'), '--static', join(dir, 'missing')]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/no built renderer at .*missing .*vite build/);
  });
});
