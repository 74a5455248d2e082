/**
 * `npx tsx bench/profile-first-screen.ts`: a V8 CPU profile of one fresh page from navigation to
 * the Overview's charts drawn (after a warm-up page), its samples mapped through the build's
 * source maps to the source file they ran in (a package, or a file of ours), top 30 by self time.
 * A diagnostic beside bench/trace-first-screen.ts. Assumes `vite build` has run (dist/renderer).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { SourceMapConsumer } from 'source-map-js';
import { startBrowserHost } from '../electron/browser-host/server';
import { createConsoleRuntime } from '../electron/console/runtime';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist/renderer');
interface ProfileNode { id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number }; hitCount?: number }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

function sourceOf(url: string, line: number, column: number, maps: Map<string, SourceMapConsumer | null>): string {
  const path = url.replace(/^https?:\/\/[^/]+\//, '');
  if (!path.startsWith('assets/')) return url || '(native)';
  if (!maps.has(path)) {
    try {
      maps.set(path, new SourceMapConsumer(JSON.parse(readFileSync(join(DIST, `${path}.map`), 'utf8'))));
    } catch {
      maps.set(path, null);
    }
  }
  const source = maps.get(path)?.originalPositionFor({ line: line + 1, column })?.source;
  if (!source) return path;
  return source.replace(/.*node_modules\/((@[^/]+\/)?[^/]+)\/.*/, '$1').replace(/^(\.\.\/)+/, '');
}

const dir = mkdtempSync(join(tmpdir(), 'paydesk-profile-'));
const runtime = await createConsoleRuntime({ userDataDir: dir, transport: 'browser', allowLive: false, version: 'bench' });
const host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: DIST, port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
try {
  for (const warm of [true, false]) {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, timezoneId: 'Africa/Douala', locale: 'en-GB' });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.goto(host.url);
    await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    await context.close();
    if (warm) continue;
    const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    const maps = new Map<string, SourceMapConsumer | null>();
    profile.samples.forEach((id, i) => {
      const node = byNode.get(id)!;
      const f = node.callFrame;
      const key = ['(idle)', '(program)', '(garbage collector)'].includes(f.functionName) ? f.functionName : sourceOf(f.url, f.lineNumber, f.columnNumber, maps);
      self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    const busy = [...self].filter(([k]) => k !== '(idle)').reduce((n, [, v]) => n + v, 0);
    console.log(`Self time by source (ms), busy ${busy.toFixed(0)} ms of the page's main thread`);
    for (const [key, total] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${total.toFixed(1).padStart(7)}  ${key}`);
  }
} finally {
  await browser.close();
  await host.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
