/**
 * End-to-end harness: the built renderer served by the real browser host, over the real console
 * runtime (engine, journal, OS keychain) in a temp user-data folder, driven in Debian's Chromium.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { makeTempDir } from '../temp-dir';
import { CHROMIUM } from '../preflight';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { createConsoleRuntime, type ConsoleRuntime, type ConsoleRuntimeOptions } from '../../electron/console/runtime';
import type { Clock } from '../../electron/console/deps';

export const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist/renderer');
/** test-results/screenshots (ignored by git); `PAYDESK_SCREENSHOTS=docs/screenshots` refreshes the README's. */
export const SCREENSHOTS = resolve(ROOT, process.env.PAYDESK_SCREENSHOTS ?? 'test-results/screenshots');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = statSync(path);
    newest = Math.max(newest, info.isDirectory() ? newestMtime(path) : info.mtimeMs);
  }
  return newest;
}

/** Builds dist/renderer only when it is missing or older than the renderer's or shared sources. */
export function ensureRendererBuilt(): void {
  const index = join(DIST, 'index.html');
  const sources = Math.max(newestMtime(join(ROOT, 'renderer')), newestMtime(join(ROOT, 'shared')));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * A fresh temporary Chromium profile per run (playwright's default for launch()). Playwright makes
 * its profile and artifacts folders in the system temp folder and leaves them there when the
 * launch fails; with TMPDIR pointed at `tempDir` while launching, they are made inside it instead.
 */
async function launchChromium(tempDir: string, executablePath: string): Promise<Browser> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tempDir;
  try {
    return await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

export interface Harness {
  runtime: ConsoleRuntime;
  host: BrowserHost;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console messages and page errors, to fail on anything the page logged as an error. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * `clock`: the console's clock (a test moves it to make a transaction old); the system clock by default.
 * Requests are signed with real time whatever it says, as the engine checks their window against real time.
 * `chromiumPath`: another browser binary (a test of a browser that does not start).
 */
/** The page's time zone (every context here): a merchant file's dates are days there, not UTC's. */
export const BROWSER_TIME_ZONE = 'Africa/Douala';

/**
 * Today in the page's time zone, as a merchant file writes it (YYYY-MM-DD). From 23:00 UTC
 * Douala is already in the next day: a file dated by UTC's day then covered a day that ended an
 * hour ago, and the reconcile tests failed every evening.
 */
export function browserDay(at: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: BROWSER_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** Within a minute of midnight in the page's time zone, waits past it: a test's transactions and its file's day fall in one day. */
async function clearOfMidnight(): Promise<void> {
  const day = browserDay();
  for (let waited = 0; browserDay(new Date(Date.now() + 60_000)) !== day && waited < 61; waited += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (browserDay() !== day) return;
  }
}

export async function startHarness(
  options: { allowLive?: boolean; viewport?: { width: number; height: number }; clock?: Clock; chromiumPath?: string; openStorage?: ConsoleRuntimeOptions['openStorage']; engineWallMicros?: () => number } = {},
): Promise<Harness> {
  await clearOfMidnight();
  ensureRendererBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Both folders are removed after the test file even if nothing below gets to close them.
  const userDataDir = makeTempDir('paydesk-e2e-');
  const runtime = await createConsoleRuntime({ userDataDir, transport: 'browser', allowLive: options.allowLive ?? true, version: '0.1.0', engine: { settleMs: 800, ...(options.engineWallMicros ? { wallMicros: options.engineWallMicros } : {}) }, ...(options.clock ? { clock: options.clock, client: { now: Date.now } } : {}), ...(options.openStorage ? { openStorage: options.openStorage } : {}) });
  const host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: DIST, port: 0 });
  const browserTemp = makeTempDir('paydesk-e2e-browser-');
  let browser: Browser;
  try {
    browser = await launchChromium(browserTemp, options.chromiumPath ?? CHROMIUM);
  } catch (error) {
    await host.close();
    await runtime.close();
    for (const dir of [userDataDir, browserTemp]) rmSync(dir, { recursive: true, force: true });
    throw new Error(`Chromium did not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); \`npm run setup\` installs it.`, { cause: error });
  }
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1360, height: 900 }, deviceScaleFactor: 1, timezoneId: BROWSER_TIME_ZONE, locale: 'en-GB' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  return {
    runtime,
    host,
    browser,
    context,
    page,
    pageErrors,
    async close() {
      await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await host.close();
      await runtime.close();
      for (const dir of [userDataDir, browserTemp]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
