/**
 * `npx tsx bench/profile-first-screen.ts`: a V8 CPU profile of one fresh page from navigation to
 * the Overview's charts drawn (after a warm-up page), its samples mapped through the build's
 * source maps to the source file they ran in (a package, or a file of ours), top 30 by self time.
 * A diagnostic beside bench/trace-first-screen.ts. Assumes `vite build` has run (dist/renderer).
 * `--map <file>.cpuprofile`: the same table for a profile saved by another bench (batch-ui's
 * BENCH_PAGE_PROFILE), against the same build.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { SourceMapConsumer } from 'source-map-js';
import { startBrowserHost } from '../electron/browser-host/server';
import { createConsoleRuntime } from '../electron/console/runtime';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist/renderer');
interface ProfileNode { id: number; callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number }; hitCount?: number; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

function sourceOf(url: string, line: number, column: number, maps: Map<string, SourceMapConsumer | null>, withLine = false): string {
  const path = url.replace(/^https?:\/\/[^/]+\//, '');
  if (!path.startsWith('assets/')) return url || '(native)';
  if (!maps.has(path)) {
    try {
      maps.set(path, new SourceMapConsumer(JSON.parse(readFileSync(join(DIST, `${path}.map`), 'utf8'))));
    } catch {
      maps.set(path, null);
    }
  }
  const position = maps.get(path)?.originalPositionFor({ line: line + 1, column });
  const source = position?.source;
  if (!source) return path;
  if (withLine) return `${source.replace(/^(\.\.\/)+/, '')}:${position.line}`;
  return source.replace(/.*node_modules\/((@[^/]+\/)?[^/]+)\/.*/, '$1').replace(/^(\.\.\/)+/, '');
}

/** Self time by source file (a package, or a file of ours), top 30. */
function summarize(profile: CpuProfile): void {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const maps = new Map<string, SourceMapConsumer | null>();
  profile.samples.forEach((id, i) => {
    const f = byNode.get(id)!.callFrame;
    const key = ['(idle)', '(program)', '(garbage collector)'].includes(f.functionName) ? f.functionName : sourceOf(f.url, f.lineNumber, f.columnNumber, maps);
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const busy = [...self].filter(([k]) => k !== '(idle)').reduce((n, [, v]) => n + v, 0);
  console.log(`Self time by source (ms), busy ${busy.toFixed(0)} ms of the page's main thread`);
  for (const [key, total] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${total.toFixed(1).padStart(7)}  ${key}`);
  // Each busy sample to the nearest function of ours on its stack (renderer/ or shared/): who asked for the work.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const ours = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (byNode.get(id)!.callFrame.functionName === '(idle)') return;
    let key = '(no function of ours)';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byNode.get(at)!.callFrame;
      const where = sourceOf(f.url, f.lineNumber, f.columnNumber, maps, true);
      if (/^(renderer|shared)\//.test(where)) {
        key = where;
        break;
      }
    }
    ours.set(key, (ours.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  console.log('Busy time by the nearest function of ours on the stack (source:line)');
  for (const [key, total] of [...ours].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${total.toFixed(1).padStart(7)}  ${key}`);
}

const mapArg = process.argv.indexOf('--map');
if (mapArg > 0) {
  summarize(JSON.parse(readFileSync(process.argv[mapArg + 1]!, 'utf8')) as CpuProfile);
  process.exit(0);
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
    summarize(profile);
  }
} finally {
  await browser.close();
  await host.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
