/**
 * `npm run bench:first-screen`: how fast the console's first screen comes, now that the renderer
 * is split per screen (issue 17 item 6). Builds the renderer, then prints:
 * - the JavaScript the first screen loads (every script fetched until the Overview's charts are
 *   drawn; not the chunks fetched when idle afterwards), raw and gzip, against the 300 kB gzip
 *   budget, beside the whole renderer's JavaScript;
 * - time from the browser host's start to the Overview drawn (host start, Chromium launch, page
 *   load), and page navigation to drawn, over RUNS fresh browser contexts (nothing cached): to the
 *   figures drawn (cards and tables: the first screen, issue 28) and to the charts drawn after them;
 * - a screen switch (Overview -> History, click to heading and list drawn), first time (its chunk
 *   fetched) and again (cached), beside the same page's bare navigation (no script) as baseline.
 * `BENCH_BEFORE_DIST=<folder>`: also loads another build of the renderer (e.g. the previous commit's,
 * built with `vite build --outDir`) in the same runs, served by a second host over the same
 * runtime, and prints its navigation -> charts drawn and first switch beside this build's.
 * Speed is measured here, never asserted in tests. Removes its temp folder even when it fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { startBrowserHost } from '../electron/browser-host/server';
import { createConsoleRuntime } from '../electron/console/runtime';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist/renderer');
const RUNS = 6;
const BUDGET_GZIP = 300 * 1024;

/** Overview -> History in the page: from the click to the heading and the list drawn, on the page's clock. */
const SWITCH_TO_HISTORY = `(async () => {
  const t0 = performance.now();
  const nav = document.querySelector('nav[aria-label="Screens"]');
  [...nav.querySelectorAll('button')].find((b) => b.textContent === 'History').click();
  await new Promise((done) => {
    const check = () => (document.querySelector('main h1')?.textContent === 'History' && document.querySelector('.history-row, .empty') ? done() : requestAnimationFrame(check));
    check();
  });
  await new Promise((done) => requestAnimationFrame(done));
  return performance.now() - t0;
})()`;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const gzipOf = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

async function main(): Promise<void> {
  execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-first-screen-'));
  let browser: Browser | null = null;
  const cleanups: (() => Promise<void>)[] = [];
  const stop = () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const started = performance.now();
    const runtime = await createConsoleRuntime({ userDataDir: dir, transport: 'browser', allowLive: false, version: 'bench' });
    cleanups.push(() => runtime.close());
    const host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: DIST, port: 0 });
    cleanups.push(() => host.close());
    const hostReady = performance.now() - started;
    const beforeDist = process.env.BENCH_BEFORE_DIST;
    const beforeHost = beforeDist ? await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: beforeDist, port: 0 }) : null;
    if (beforeHost) cleanups.push(() => beforeHost.close());
    const before = { figures: [] as number[], drawn: [] as number[], first: [] as number[] };
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const browserReady = performance.now() - started;

    const preloads = [...readFileSync(join(DIST, 'index.html'), 'utf8').matchAll(/<link [^>]*href="\.([^"]+)"[^>]*data-opening-screen/g)].map((m) => m[1]!);
    const navigationToFigures: number[] = [];
    const navigationToDrawn: number[] = [];
    const firstSwitch: number[] = [];
    const againSwitch: number[] = [];
    const bare: number[] = [];
    let scripts: string[] = [];
    for (let run = 0; run < RUNS + 1; run += 1) {
      const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, timezoneId: 'Africa/Douala', locale: 'en-GB' });
      const page = await context.newPage();
      const fetched: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'script') fetched.push(new URL(request.url()).pathname);
      });
      await page.goto(host.url);
      await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
      const drawnAt = performance.now();
      const [figures, drawn] = await page.evaluate(() => ['paydesk:overview:figures', 'paydesk:overview:drawn'].map((name) => performance.getEntriesByName(name)[0]!.startTime));
      // Only those asked for before the charts were drawn: the reading screens' chunks follow when idle.
      const beforeDrawn = await page.evaluate((at) => performance.getEntriesByType('resource').filter((r) => r.startTime <= at).map((r) => new URL(r.name).pathname), drawn!);
      if (run === 0) scripts = fetched.filter((path) => beforeDrawn.includes(path));
      // Overview -> History: from the click to the heading and the list drawn (the page's own clock).
      // A string, not a function: tsx's name-keeping helper does not exist in the page.
      const switchTime = () => page.evaluate(SWITCH_TO_HISTORY) as Promise<number>;
      const first = await switchTime();
      await page.getByRole('button', { name: 'Overview', exact: true }).click();
      await page.locator('.ov-charts[data-drawn="true"]').waitFor();
      const again = await switchTime();
      // Baseline: the same page with scripts off, navigation to its load event. Only the page and
      // its own stylesheet are fetched: the links index.html names for the opening screen would
      // otherwise make the baseline slower (a script-less page never needs them).
      if (beforeHost && run > 0) {
        const other = await browser.newContext({ viewport: { width: 1360, height: 900 }, timezoneId: 'Africa/Douala', locale: 'en-GB' });
        const otherPage = await other.newPage();
        await otherPage.goto(beforeHost.url);
        await otherPage.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
        const [otherFigures, otherDrawn] = await otherPage.evaluate(() => ['paydesk:overview:figures', 'paydesk:overview:drawn'].map((name) => performance.getEntriesByName(name)[0]?.startTime ?? null));
        // A build older than the figures mark has only the charts' one.
        if (otherFigures !== null && otherFigures !== undefined) before.figures.push(otherFigures);
        before.drawn.push(otherDrawn!);
        before.first.push((await otherPage.evaluate(SWITCH_TO_HISTORY)) as number);
        await other.close();
      }
      const plain = await browser.newContext({ javaScriptEnabled: false });
      const plainPage = await plain.newPage();
      // Blocked inside the browser (no round trip through this process, unlike page.route).
      const cdp = await plain.newCDPSession(plainPage);
      await cdp.send('Network.enable');
      await cdp.send('Network.setBlockedURLs', { urls: preloads.map((path) => `*${path}`) });
      await plainPage.goto(host.url.split('#')[0]!);
      const bareLoad = await plainPage.evaluate(() => (performance.getEntriesByType('navigation' as never)[0] as PerformanceNavigationTiming).loadEventEnd);
      await plain.close();
      await context.close();
      if (run === 0) {
        // The very first page also pays for the host and the browser starting.
        console.log(`start -> Overview drawn, first page: ${ms(drawnAt - started)} (host ready ${ms(hostReady)}, Chromium launched ${ms(browserReady)})`);
        continue; // warm-up otherwise
      }
      navigationToFigures.push(figures!);
      navigationToDrawn.push(drawn!);
      firstSwitch.push(first);
      againSwitch.push(again);
      bare.push(bareLoad);
    }

    const unique = [...new Set(scripts)];
    const sizes = unique.map((path) => {
      const file = join(DIST, path.replace(/^\//, ''));
      return { path, raw: readFileSync(file).length, gzip: gzipOf(file) };
    });
    const firstRaw = sizes.reduce((n, s) => n + s.raw, 0);
    const firstGzip = sizes.reduce((n, s) => n + s.gzip, 0);
    const all = readdirSync(join(DIST, 'assets')).filter((f) => f.endsWith('.js'));
    const allGzip = all.reduce((n, f) => n + gzipOf(join(DIST, 'assets', f)), 0);
    console.log('\nJavaScript of the first screen (scripts fetched until the Overview was drawn)');
    for (const s of sizes.sort((a, b) => b.gzip - a.gzip)) console.log(`  ${s.path.padEnd(48)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(9)} gzip`);
    console.log(`  total: ${kb(firstRaw)} raw, ${kb(firstGzip)} gzip = ${((firstGzip / BUDGET_GZIP) * 100).toFixed(0)} % of the 300 kB budget; ${unique.length} of ${all.length} chunks, ${((firstGzip / allGzip) * 100).toFixed(0)} % of all the renderer's JavaScript (${kb(allGzip)} gzip)`);
    console.log(`\nPage loads in fresh contexts (${RUNS} after a warm-up), medians`);
    console.log(`  bare page without scripts (navigation -> load): ${ms(median(bare))}`);
    console.log(`  navigation -> Overview figures drawn (first screen): ${ms(median(navigationToFigures))}, ratio ${(median(navigationToFigures) / median(bare)).toFixed(1)}x the bare page (target <= 2x)`);
    console.log(`  navigation -> Overview charts drawn (whole screen): ${ms(median(navigationToDrawn))}, ratio ${(median(navigationToDrawn) / median(bare)).toFixed(1)}x`);
    console.log(`  screen switch Overview -> History: first ${ms(median(firstSwitch))} (chunk fetched), again ${ms(median(againSwitch))}; first / again = ${(median(firstSwitch) / median(againSwitch)).toFixed(2)} (target: first <= 150 ms)`);
    if (beforeHost) {
      const otherFigures = before.figures.length > 0 ? `figures drawn ${ms(median(before.figures))} (${(median(before.figures) / median(bare)).toFixed(1)}x the bare page), ` : '';
      console.log(`  the other build (${beforeDist}), same runs: ${otherFigures}navigation -> charts drawn ${ms(median(before.drawn))} (${(median(before.drawn) / median(bare)).toFixed(1)}x the bare page), first switch ${ms(median(before.first))}`);
      if (before.figures.length > 0) console.log(`  this build / the other: figures drawn ${(median(navigationToFigures) / median(before.figures)).toFixed(2)}`);
      console.log(`  this build / the other: charts drawn ${(median(navigationToDrawn) / median(before.drawn)).toFixed(2)}, figures drawn vs the other's charts ${(median(navigationToFigures) / median(before.drawn)).toFixed(2)}, first switch ${(median(firstSwitch) / median(before.first)).toFixed(2)}`);
    }
    console.log(`load average (1/5/15 min): ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
  } finally {
    await browser?.close().catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
