/**
 * The browser host's defences as a real browser meets them: Chromium on a page of another origin
 * calling the console, a DNS-rebinding name that resolves to loopback, and the CSP on the page.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { FakePushSource, fakeHandlers, type FakeHandlers } from './fakes';

const REBIND_NAME = 'rebind.paydesk.test';

let dir: string;
let handlers: FakeHandlers;
let events: FakePushSource;
let host: BrowserHost;
let evil: Server;
let evilOrigin: string;
const evilRequests: string[] = [];
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paydesk-browser-'));
  // Another site on this machine (any page the user has open elsewhere could be this).
  evil = createServer((req, res) => {
    evilRequests.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html' });
    res.end(req.url?.endsWith('.js') ? 'document.title = "remote script ran";' : '<!doctype html><title>Elsewhere</title>');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  // The page's own script tries what an injected one would: eval, and a script from elsewhere.
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Paydesk</title><script type="module" src="./app.js"></script>');
  writeFileSync(
    join(dir, 'app.js'),
    `window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.effectiveDirective));
let evalOutcome;
try { new Function('return 1')(); evalOutcome = 'eval ran'; } catch (e) { evalOutcome = e.name; }
const remote = document.createElement('script');
remote.src = '${evilOrigin}/inject.js';
document.head.append(remote);
document.title = 'Paydesk ready: ' + evalOutcome;`,
  );
  handlers = fakeHandlers();
  events = new FakePushSource();
  host = await startBrowserHost({ handlers, events, staticDir: dir, port: 0 });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      // The rebinding attacker's name, resolved to loopback as their DNS server would.
      `--host-resolver-rules=MAP ${REBIND_NAME} 127.0.0.1`,
    ],
  });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await new Promise((resolve) => evil?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  for (const handler of Object.values(handlers)) handler.mockClear();
});

/** Runs fetch in the page; answers the status, or the error's name when the browser blocked it. */
function fetchFromPage(url: string, init: { method: string; headers?: Record<string, string>; body?: string; mode?: RequestMode }): Promise<string> {
  return page.evaluate(
    async ([target, options]) => {
      try {
        const res = await fetch(target, options);
        return `status ${res.status}`;
      } catch (error) {
        return `blocked ${(error as Error).name}`;
      }
    },
    [url, init] as const,
  );
}

describe('browser host in Chromium', () => {
  it('serves the page with its CSP: own scripts run, eval and remote scripts are refused', async () => {
    await page.goto(host.url);
    await page.waitForFunction(() => document.title.startsWith('Paydesk ready'));
    expect(await page.title()).toBe('Paydesk ready: EvalError');
    await page.waitForFunction(() => (window as unknown as { violations: string[] }).violations.includes('script-src-elem'));
    expect(await page.title()).not.toBe('remote script ran');
    expect(evilRequests).not.toContain('/inject.js');
  });

  it('answers the page\'s own calls with the token', async () => {
    await page.goto(host.url);
    const outcome = await fetchFromPage(`${host.origin}/api/invoke/profiles:list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Paydesk-Token': host.token },
      body: '{}',
    });
    expect(outcome).toBe('status 200');
    expect(handlers['profiles:list']).toHaveBeenCalledTimes(1);
  });

  it('refuses another origin\'s page, even one that knows the token', async () => {
    await page.goto(evilOrigin);
    // With the token header the browser must ask first (preflight); the host refuses it.
    const withToken = await fetchFromPage(`${host.origin}/api/invoke/payouts:initiate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Paydesk-Token': host.token },
      body: '{}',
    });
    expect(withToken).toBe('blocked TypeError');
    // A "simple" request goes without asking; the host refuses it on its Origin.
    await fetchFromPage(`${host.origin}/api/invoke/payouts:initiate`, { method: 'POST', mode: 'no-cors', body: '{}' });
    expect(handlers['payouts:initiate']).not.toHaveBeenCalled();
  });

  it('refuses a DNS-rebinding name that resolves to loopback', async () => {
    const response = await page.goto(`http://${REBIND_NAME}:${host.port}/`);
    expect(response?.status()).toBe(403);
    // From the rebound origin the API is "same origin" to the browser, and still refused.
    const outcome = await fetchFromPage(`http://${REBIND_NAME}:${host.port}/api/invoke/profiles:list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Paydesk-Token': host.token },
      body: '{}',
    });
    expect(outcome).toBe('status 403');
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('the one-time link sets an HttpOnly session cookie the page\'s calls carry, and works only once', async () => {
    const link = host.openUrl();
    const landed = await page.goto(link);
    expect(landed?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/');
    // HttpOnly: no script of the page (nor one injected into it) can read the token.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await fetchFromPage(`${host.origin}/api/invoke/profiles:list`, { method: 'POST', body: '{}' })).toBe('status 200');
    expect(handlers['profiles:list']).toHaveBeenCalledTimes(1);
    // Another page on this machine (same site, other port) gets the cookie sent along, and is refused on its Origin.
    await page.goto(evilOrigin);
    await fetchFromPage(`${host.origin}/api/invoke/payouts:initiate`, { method: 'POST', mode: 'no-cors', body: '{}' });
    expect(handlers['payouts:initiate']).not.toHaveBeenCalled();
    const again = await page.goto(link);
    expect(again?.status()).toBe(401);
  });

  it('delivers push events to the page over EventSource, authorised by the session cookie', async () => {
    await page.goto(host.url);
    await page.evaluate(async (token) => {
      await fetch('/api/session', { method: 'POST', headers: { 'X-Paydesk-Token': token } });
      const source = new EventSource('/api/events');
      (window as unknown as { received: Promise<string> }).received = new Promise((resolve) => {
        source.addEventListener('pushes', (message) => resolve((message as MessageEvent<string>).data));
      });
      return new Promise<void>((resolve) => source.addEventListener('open', () => resolve()));
    }, host.token);
    events.emit('sandbox:event', { kind: 'wallet', detail: 'top-up' });
    const data = await page.evaluate(() => (window as unknown as { received: Promise<string> }).received);
    expect(JSON.parse(data)).toEqual([['sandbox:event', { kind: 'wallet', detail: 'top-up' }]]);
  });
});
