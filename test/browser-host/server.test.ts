import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_TOKEN_HEADER, PUSH_EVENTS } from '../../shared/api';
import { MAX_BODY_BYTES, startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { OPEN_CODE_LIFETIME_MS, sessionCookieName } from '../../electron/browser-host/access';
import { CONTENT_SECURITY_POLICY } from '../../electron/net/renderer-files';
import { FakePushSource, fakeHandlers } from './fakes';
import { openEventStream, rawRequest } from './http';

let staticRoot: string;
let staticDir: string;

beforeAll(() => {
  // A renderer folder with a secret file next to it, to prove traversal cannot reach it.
  staticRoot = mkdtempSync(join(tmpdir(), 'paydesk-host-'));
  staticDir = join(staticRoot, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Paydesk</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log("paydesk")');
  writeFileSync(join(staticRoot, 'secret.txt'), 'do-not-serve');
});

afterAll(() => rmSync(staticRoot, { recursive: true, force: true }));

let host: BrowserHost;
let handlers: ReturnType<typeof fakeHandlers>;
let events: FakePushSource;

beforeEach(async () => {
  handlers = fakeHandlers();
  events = new FakePushSource();
  host = await startBrowserHost({ handlers, events, staticDir, host: '127.0.0.1', port: 0 });
});

afterEach(async () => {
  await host.close();
});

function invoke(channel: string, body: string | undefined, headers: Record<string, string> = {}) {
  return rawRequest({
    port: host.port,
    method: 'POST',
    path: `/api/invoke/${channel}`,
    headers: { 'content-type': 'application/json', [BROWSER_TOKEN_HEADER]: host.token, ...headers },
    body,
  });
}

describe('browser host: startup', () => {
  it('listens on a random loopback port and prints a URL carrying the token in the fragment', () => {
    expect(host.port).toBeGreaterThan(0);
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=${host.token}`);
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('uses a fresh token on every run', async () => {
    const other = await startBrowserHost({ handlers, staticDir, port: 0 });
    try {
      expect(other.token).not.toBe(host.token);
    } finally {
      await other.close();
    }
  });

  it('refuses to listen on a non-loopback address', async () => {
    await expect(startBrowserHost({ handlers, staticDir, host: '0.0.0.0', port: 0 })).rejects.toThrow(/loopback only/);
  });
});

describe('browser host: calls', () => {
  it('passes a valid call to the handler table and answers its Result as JSON', async () => {
    const res = await invoke('profiles:list', '{}');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ ok: true, value: { channel: 'profiles:list', input: {} } });
    expect(handlers['profiles:list']).toHaveBeenCalledTimes(1);
  });

  it('passes the input through untouched: validation is the handler table\'s job', async () => {
    const input = { id: 'p1', extra: [1, 2, 3] };
    const res = await invoke('profiles:delete', JSON.stringify(input));
    expect(res.json()).toEqual({ ok: true, value: { channel: 'profiles:delete', input } });
  });

  it('answers an ok:false Result with 200, as IPC would carry it', async () => {
    handlers['secrets:has'].mockResolvedValueOnce({ ok: false, error: { code: 'NO_KEYCHAIN', message: 'Install gnome-keyring.' } });
    const res = await invoke('secrets:has', '{"profileId":"p","keyType":"payment"}');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: false, error: { code: 'NO_KEYCHAIN', message: 'Install gnome-keyring.' } });
  });

  it('turns a handler that throws into an INTERNAL Result, not a 500', async () => {
    handlers['app:info'].mockRejectedValueOnce(new Error('boom'));
    const res = await invoke('app:info', '{}');
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('refuses a call without a token with 401, without calling the handler', async () => {
    const res = await rawRequest({ port: host.port, method: 'POST', path: '/api/invoke/profiles:list', body: '{}' });
    expect(res.status).toBe(401);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('refuses a wrong token, and a token that is a prefix of the right one, with 401', async () => {
    for (const wrong of ['x'.repeat(43), host.token.slice(0, -1), `${host.token}x`, '']) {
      const res = await invoke('profiles:list', '{}', { [BROWSER_TOKEN_HEADER]: wrong });
      expect(res.status).toBe(401);
    }
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('refuses a foreign Origin with 403 even with the right token', async () => {
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${host.port + 1}`, `https://127.0.0.1:${host.port}`]) {
      const res = await invoke('profiles:list', '{}', { origin });
      expect(res.status).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
    }
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('accepts its own origin, by address or by localhost', async () => {
    for (const origin of [`http://127.0.0.1:${host.port}`, `http://localhost:${host.port}`]) {
      expect((await invoke('profiles:list', '{}', { origin })).status).toBe(200);
    }
  });

  it('refuses a foreign Host (DNS rebinding) with 403 even with the right token', async () => {
    for (const hostHeader of ['evil.example', `evil.example:${host.port}`, `127.0.0.1:${host.port + 1}`, '127.0.0.1']) {
      const res = await invoke('profiles:list', '{}', { host: hostHeader });
      expect(res.status).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
    }
    expect((await invoke('profiles:list', '{}', { host: `localhost:${host.port}` })).status).toBe(200);
    expect(handlers['profiles:list']).toHaveBeenCalledTimes(1);
  });

  it('answers 404 for an unknown channel, including prototype names', async () => {
    for (const channel of ['profiles:steal', 'constructor', '__proto__', 'toString', '']) {
      const res = await invoke(channel, '{}');
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } });
    }
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await invoke('profiles:list', '{"unterminated');
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'MALFORMED_REQUEST' } });
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await invoke('transactions:search', big);
    expect(declared.status).toBe(413);
    expect(declared.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const chunked = await invoke('transactions:search', big, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
    expect(handlers['transactions:search']).not.toHaveBeenCalled();
  });

  it('answers 405 for a GET on a channel', async () => {
    const res = await rawRequest({ port: host.port, path: '/api/invoke/profiles:list', headers: { [BROWSER_TOKEN_HEADER]: host.token } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('browser host: push events', () => {
  it('delivers push events on the event stream as one `pushes` event: the bundle as JSON', async () => {
    const stream = await openEventStream(host.port, '/api/events', { [BROWSER_TOKEN_HEADER]: host.token });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(await stream.nextFrame()).toBe(': connected');
      events.emit('transaction:changed', { journalId: 'j1', status: 'SUCCESSFUL', state: 'known' });
      expect(await stream.nextFrame()).toBe('event: pushes\ndata: [["transaction:changed",{"journalId":"j1","status":"SUCCESSFUL","state":"known"}]]');
    } finally {
      stream.close();
    }
  });

  it('sends the pushes of one moment as one event, every push in the order emitted', async () => {
    const stream = await openEventStream(host.port, '/api/events', { [BROWSER_TOKEN_HEADER]: host.token });
    try {
      expect(await stream.nextFrame()).toBe(': connected');
      const journalIds = Array.from({ length: 30 }, (_, i) => `j${i}`);
      for (const journalId of journalIds) {
        events.emit('transaction:changed', { journalId, status: 'PENDING', state: 'known' });
        events.emit('sandbox:event', { kind: 'status', transactionId: journalId, detail: 'PENDING' });
      }
      const frame = await stream.nextFrame();
      expect(frame.startsWith('event: pushes\ndata: ')).toBe(true);
      expect(JSON.parse(frame.slice('event: pushes\ndata: '.length))).toEqual(
        journalIds.flatMap((journalId) => [
          ['transaction:changed', { journalId, status: 'PENDING', state: 'known' }],
          ['sandbox:event', { kind: 'status', transactionId: journalId, detail: 'PENDING' }],
        ]),
      );
    } finally {
      stream.close();
    }
  });

  it('refuses the event stream without the token, and a token in the query string (it would sit in logs and history)', async () => {
    for (const path of ['/api/events?token=wrong', '/api/events', `/api/events?token=${host.token}`]) {
      const res = await rawRequest({ port: host.port, path });
      expect(res.status, path).toBe(401);
    }
  });

  it('stops listening to the runtime when closed', async () => {
    // One listener per push event.
    expect(events.listenerCount()).toBe(PUSH_EVENTS.length);
    await host.close();
    expect(events.listenerCount()).toBe(0);
  });
});

describe('browser host: the session cookie', () => {
  const cookieOf = (res: { headers: Record<string, string | string[] | undefined> }) => {
    const set = res.headers['set-cookie'];
    return Array.isArray(set) ? set[0] : set;
  };

  it('trades the token for an HttpOnly, SameSite=Strict cookie that then authorises calls and the event stream', async () => {
    const session = await rawRequest({ port: host.port, method: 'POST', path: '/api/session', headers: { [BROWSER_TOKEN_HEADER]: host.token } });
    expect(session.status).toBe(204);
    const cookie = cookieOf(session)!;
    expect(cookie).toBe(`${sessionCookieName(host.port)}=${host.token}; HttpOnly; SameSite=Strict; Path=/`);
    const pair = cookie.split(';')[0]!;
    const call = await rawRequest({ port: host.port, method: 'POST', path: '/api/invoke/profiles:list', headers: { cookie: `other=1; ${pair}` }, body: '{}' });
    expect(call.status).toBe(200);
    const stream = await openEventStream(host.port, '/api/events', { cookie: pair });
    try {
      expect(stream.status).toBe(200);
    } finally {
      stream.close();
    }
    // Without the token, no cookie; a cookie of another port's host (another run) is not ours.
    const refused = await rawRequest({ port: host.port, method: 'POST', path: '/api/session' });
    expect(refused.status).toBe(401);
    expect(cookieOf(refused)).toBeUndefined();
    const otherPort = await rawRequest({ port: host.port, method: 'POST', path: '/api/invoke/profiles:list', headers: { cookie: `paydesk_session_1=${host.token}` }, body: '{}' });
    expect(otherPort.status).toBe(401);
  });

  it('a one-time code sets the cookie and lands on the page once; used again, it is refused', async () => {
    const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
    const opened = host.openUrl();
    expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/open\?code=[A-Za-z0-9_-]{32}$/);
    expect(opened).not.toContain(host.token);
    const first = await rawRequest({ port: host.port, path: pathOf(opened) });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    expect(cookieOf(first)).toBe(`${sessionCookieName(host.port)}=${host.token}; HttpOnly; SameSite=Strict; Path=/`);
    const again = await rawRequest({ port: host.port, path: pathOf(opened) });
    expect(again.status).toBe(401);
    expect(cookieOf(again)).toBeUndefined();
    expect(again.text).toContain('used already');
    // Each openUrl() is its own code; a made-up one is refused.
    expect((await rawRequest({ port: host.port, path: pathOf(host.openUrl()) })).status).toBe(303);
    expect((await rawRequest({ port: host.port, path: '/api/open?code=made-up-code-made-up-code' })).status).toBe(401);
    expect((await rawRequest({ port: host.port, path: '/api/open' })).status).toBe(401);
  });

  it('an unused code expires', async () => {
    let now = 1_000_000;
    const timed = await startBrowserHost({ handlers, staticDir, port: 0, now: () => now });
    try {
      const url = new URL(timed.openUrl());
      now += OPEN_CODE_LIFETIME_MS;
      expect((await rawRequest({ port: timed.port, path: url.pathname + url.search })).status).toBe(401);
    } finally {
      await timed.close();
    }
  });
});

describe('browser host: static files', () => {
  it('serves the renderer with the strict CSP and hardening headers', async () => {
    const page = await rawRequest({ port: host.port, path: '/' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Paydesk</title>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const script = await rawRequest({ port: host.port, path: '/assets/app.js' });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('refuses path traversal, plain or percent-encoded', async () => {
    for (const path of ['/../secret.txt', '/assets/../../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/assets/..%2F..%2Fsecret.txt']) {
      const res = await rawRequest({ port: host.port, path });
      // Dot segments are folded by URL parsing (then 404 inside the folder); encoded slashes are refused.
      expect([403, 404], path).toContain(res.status);
      expect(res.text).not.toContain('do-not-serve');
    }
    expect((await rawRequest({ port: host.port, path: '/..%2fsecret.txt' })).status).toBe(403);
    for (const path of ['/..%5csecret.txt', '/%00index.html', '/%E0%A4%A']) {
      const res = await rawRequest({ port: host.port, path });
      expect(res.status, path).toBe(400);
    }
  });

  it('answers 404 for a missing file and for a folder', async () => {
    expect((await rawRequest({ port: host.port, path: '/nope.js' })).status).toBe(404);
    expect((await rawRequest({ port: host.port, path: '/assets' })).status).toBe(404);
  });

  it('refuses static files too when the Host is foreign', async () => {
    const res = await rawRequest({ port: host.port, path: '/', headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('Paydesk</title>');
  });
});
