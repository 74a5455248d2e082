/**
 * `npx tsx bench/trace-first-screen.ts`: where the first screen's time goes, for one fresh page
 * after a warm-up. Records a Chromium performance trace (devtools.timeline + v8) and prints, on
 * the page's navigation clock: each script and host call (fetch start -> end), the Overview's
 * performance marks, and the main thread's busy time by kind (script compile, evaluation, style,
 * layout, paint) and by script URL. A diagnostic, not a bench: no ratio, no figure in the docs.
 * Assumes `vite build` has run (dist/renderer).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startBrowserHost } from '../electron/browser-host/server';
import { createConsoleRuntime } from '../electron/console/runtime';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist/renderer');
type TraceEvent = { name: string; cat: string; ph: string; ts: number; dur?: number; tid: number; pid: number; args?: { data?: { url?: string; frame?: string; [k: string]: unknown }; [k: string]: unknown } };

const dir = mkdtempSync(join(tmpdir(), 'paydesk-trace-'));
const runtime = await createConsoleRuntime({ userDataDir: dir, transport: 'browser', allowLive: false, version: 'bench' });
const host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: DIST, port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
try {
  for (const warm of [true, false]) {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, timezoneId: 'Africa/Douala', locale: 'en-GB' });
    const page = await context.newPage();
    const traceFile = join(dir, 'trace.json');
    if (!warm) await browser.startTracing(page, { path: traceFile, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing', 'loading'] });
    await page.goto(host.url);
    await page.locator('.ov-charts[data-drawn="true"]').waitFor({ timeout: 60_000 });
    const timing = await page.evaluate(() => ({
      resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({ name: new URL(r.name).pathname, start: r.startTime, end: r.responseEnd, type: r.initiatorType })),
      marks: performance.getEntriesByType('mark').map((m) => ({ name: m.name, start: m.startTime })),
      paints: performance.getEntriesByType('paint').map((m) => ({ name: m.name, start: m.startTime })),
      nav: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).toJSON(),
    }));
    if (warm) {
      await context.close();
      continue;
    }
    const trace = await browser.stopTracing();
    await context.close();
    const rows = [
      ...timing.resources.map((r) => ({ at: r.start, text: `${r.type.padEnd(6)} ${r.name} -> ${r.end.toFixed(0)} ms` })),
      ...timing.marks.map((m) => ({ at: m.start, text: `mark   ${m.name}` })),
      ...timing.paints.map((m) => ({ at: m.start, text: `paint  ${m.name}` })),
      { at: timing.nav.responseEnd as number, text: 'html   response end' },
      { at: timing.nav.domContentLoadedEventEnd as number, text: 'html   DOMContentLoaded end' },
    ].sort((a, b) => a.at - b.at);
    console.log('Timeline (ms from navigation start)');
    for (const row of rows) console.log(`  ${row.at.toFixed(0).padStart(5)}  ${row.text}`);

    const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    const main = events.find((e) => e.name === 'thread_name' && (e.args as { name?: string })?.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.name === 'EvaluateScript'));
    const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur);
    const nav = events.find((e) => e.name === 'navigationStart' && main && e.pid === main.pid);
    const t0 = nav?.ts ?? Math.min(...onMain.map((e) => e.ts));
    const byName = new Map<string, number>();
    for (const e of onMain) if (['EvaluateScript', 'v8.compile', 'v8.compileModule', 'v8.evaluateModule', 'FunctionCall', 'UpdateLayoutTree', 'Layout', 'Paint', 'ParseHTML', 'v8.parseOnBackground', 'TimerFire', 'FireAnimationFrame', 'EventDispatch', 'RunMicrotasks', 'V8.GCScavenger', 'MajorGC', 'MinorGC', 'CompileCode', 'CompileScript', 'ParseAuthorStyleSheet', 'PrePaint', 'Commit'].includes(e.name)) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur! / 1000);
    console.log('\nMain thread busy time by kind (ms; nested kinds overlap)');
    for (const [name, total] of [...byName].sort((a, b) => b[1] - a[1])) console.log(`  ${total.toFixed(1).padStart(7)}  ${name}`);
    const top = onMain.filter((e) => e.dur! > 3000 && ['EvaluateScript', 'v8.compileModule', 'v8.evaluateModule', 'FunctionCall', 'RunTask', 'ThreadControllerImpl::RunTask', 'v8.compile', 'Layout', 'UpdateLayoutTree', 'Paint', 'RunMicrotasks', 'FireAnimationFrame', 'TimerFire', 'ParseHTML'].includes(e.name));
    console.log('\nMain-thread slices over 3 ms, in order (start, duration, kind, script)');
    for (const e of top.sort((a, b) => a.ts - b.ts)) {
      const url = e.args?.data?.url ?? (e.args as { fileName?: string })?.fileName ?? '';
      console.log(`  ${((e.ts - t0) / 1000).toFixed(0).padStart(5)} +${(e.dur! / 1000).toFixed(1).padStart(6)}  ${e.name.padEnd(28)} ${String(url).replace(/^https?:\/\/[^/]+/, '')}`);
    }
  }
} finally {
  await browser.close();
  await host.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
