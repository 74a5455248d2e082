/**
 * The browser host over the real console runtime: real journal file, real settings file, real
 * keychain (run inside dbus-run-session with an unlocked gnome-keyring, as scripts/test.sh does),
 * real local sandbox engine.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TOKEN_HEADER } from '../../shared/api';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { openEventStream } from './http';

let dir: string;
let runtime: ConsoleRuntime;
let host: BrowserHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paydesk-host-runtime-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Paydesk</title>');
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'data'), transport: 'browser', allowLive: false, version: '0.1.0-test' });
  host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir, port: 0 });
});

afterAll(async () => {
  await host?.close();
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function invoke(channel: string, input: unknown): Promise<{ status: number; body: { ok: boolean; value?: unknown; error?: { code: string; message: string } } }> {
  const res = await fetch(`${host.origin}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [BROWSER_TOKEN_HEADER]: host.token },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: (await res.json()) as never };
}

describe('browser host over the real runtime', () => {
  it('lists the profiles over HTTP, starting with the built-in local sandbox', async () => {
    const { status, body } = await invoke('profiles:list', {});
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    const value = body.value as { profiles: { id: string; builtIn: boolean; environment: string }[]; activeId: string };
    expect(value.profiles[0]).toMatchObject({ id: 'local-sandbox', builtIn: true, environment: 'sandbox' });
    expect(value.activeId).toBe('local-sandbox');
  });

  it('says it is the browser transport with live profiles refused', async () => {
    const { body } = await invoke('app:info', {});
    expect(body).toMatchObject({ ok: true, value: { transport: 'browser', allowLive: false, version: '0.1.0-test' } });
  });

  it('carries the handler\'s validation refusal as a Result', async () => {
    const { status, body } = await invoke('profiles:delete', { id: 42, extra: true });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('refuses to use a live profile when started without --allow-live', async () => {
    const saved = await invoke('profiles:save', {
      name: 'Production',
      baseUrl: 'https://api.example.com',
      environment: 'live',
      headerWord: 'SVC',
      paymentPublicKey: '',
      payoutPublicKey: '',
    });
    expect(saved.body.ok).toBe(true);
    const id = (saved.body.value as { id: string }).id;
    expect((await invoke('profiles:activate', { id })).body.ok).toBe(true);
    const balance = await invoke('balance:get', {});
    expect(balance.body).toMatchObject({ ok: false, error: { code: 'LIVE_REFUSED' } });
    expect(balance.body.error?.message).toMatch(/--allow-live/);
    expect((await invoke('profiles:activate', { id: 'local-sandbox' })).body.ok).toBe(true);
  });

  it('streams the runtime\'s push events to the page', async () => {
    const stream = await openEventStream(host.port, '/api/events', { [BROWSER_TOKEN_HEADER]: host.token });
    try {
      expect(await stream.nextFrame()).toBe(': connected');
      await invoke('profiles:activate', { id: 'local-sandbox' });
      const frame = await stream.nextFrame();
      expect(frame.startsWith('event: pushes\ndata: ')).toBe(true);
      // The previous test's activation may still be in the bundle (pushes wait up to 50 ms).
      expect(JSON.parse(frame.slice('event: pushes\ndata: '.length)).at(-1)).toEqual(['profiles:changed', { activeId: 'local-sandbox' }]);
    } finally {
      stream.close();
    }
  });
});
