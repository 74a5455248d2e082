/**
 * `npx tsx bench/batch-ui.ts`: does the Bulk payouts screen ever drop a frame over 50 ms while a
 * 10,000-row batch sends, and when it ends? Everything is real: the built renderer in Chromium,
 * served by the browser host over the console runtime (journal, runner, sweeper) and the local
 * sandbox engine in this process. The batch is imported and started through the handler table
 * (as the screen's buttons would); the page has it open the whole time, fed by the real pushes
 * (progress with the rows that changed) and the rows pages it asks for.
 *
 * In the page, a requestAnimationFrame loop records the gap between frames and a
 * PerformanceObserver the long animation frames (> 50 ms), in three phases: idle (the baseline,
 * measured in the same run before anything is sent), sending, and the end (END_MS after the last
 * row: the final pushes, the summary and rows fetched again, statuses settling). Prints the worst
 * frame of each phase with the machine's load; asserts nothing. `BENCH_SCREENSHOTS=1` also takes a
 * screenshot halfway through sending and one at the end (test-results/batch-ui-*.png), with the
 * recorders paused around them (a screenshot costs the page a frame). `BENCH_PAGE_PROFILE=<file>`
 * writes a V8 CPU profile of the page while sending (`bench/profile-first-screen.ts` maps one).
 * `BENCH_TRACE=<file>` writes a Chromium performance trace of the page while sending and the end
 * (`npx tsx bench/long-frames.ts <file>` says what each long task of the page was made of).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { benchTempDir, browserTempDir } from './temp';
import { PUSH_EVENTS, type BatchProgress, type PushEvent } from '../shared/api';
import { createConsoleRuntime } from '../electron/console/runtime';
import { startBrowserHost } from '../electron/browser-host/server';
import { PUSH_BUNDLE_MS as PUSH_BUNDLE_DEFAULT_MS } from '../electron/console/push-bundles';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const IDLE_MS = 2_000;
const END_MS = Number(process.env.BENCH_END_MS ?? 4_000);
const SCREENSHOTS = process.env.BENCH_SCREENSHOTS === '1';
const ROOT = resolve(import.meta.dirname, '..');
/** `BENCH_DIST=<folder>`: another build of the renderer (e.g. the code before a change, for the same machine's load). */
const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : join(ROOT, 'dist/renderer');
const TARGET_MS = 50;
/** `BENCH_PUSH_BUNDLE_MS=0`: each push written to the page alone, as before bundles (electron/console/push-bundles.ts). */
const PUSH_BUNDLE_MS = process.env.BENCH_PUSH_BUNDLE_MS === undefined ? undefined : Number(process.env.BENCH_PUSH_BUNDLE_MS);

/** Ordinary numbers complete; every 10th row is one of the sandbox's outcome numbers (failures, cancellations). */
function batchCsv(rows: number): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,meta.region'];
  for (let i = 0; i < rows; i += 1) {
    const phone = i % 10 === 9 ? `+23765000000${1 + ((i / 10) % 9 | 0)}` : `+2376${String(70_000_000 + i)}`;
    lines.push(`${phone},${100 + (i % 50) * 10},Awa${i},Nkemdirim,awa${i}@example.com,Commission ${i},Littoral`);
  }
  return `${lines.join('\n')}\n`;
}

type Phase = 'off' | 'idle' | 'sending' | 'end';
/** A long animation frame, split: its scripts (the biggest one named), its style and layout, the rest. */
interface LongFrame {
  duration: number;
  script: number;
  render: number;
  top: string;
}
interface Frames {
  phase: Phase;
  gaps: Record<Exclude<Phase, 'off'>, number[]>;
  loaf: Record<Exclude<Phase, 'off'>, number[]>;
  long: Record<Exclude<Phase, 'off'>, LongFrame[]>;
  last: number;
}

/** Runs in the page before the app: the frame recorders, switched between phases by the bench. */
function recorder() {
  const frames: Frames = { phase: 'off', gaps: { idle: [], sending: [], end: [] }, loaf: { idle: [], sending: [], end: [] }, long: { idle: [], sending: [], end: [] }, last: 0 };
  (window as unknown as { __bench: Frames }).__bench = frames;
  const loop = (time: number) => {
    if (frames.phase !== 'off' && frames.last) frames.gaps[frames.phase].push(time - frames.last);
    frames.last = time;
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  try {
    new PerformanceObserver((list) => {
      if (frames.phase === 'off') return;
      for (const entry of list.getEntries()) {
        frames.loaf[frames.phase].push(entry.duration);
        // Where the frame went: a frame long without script or layout waited for a CPU core.
        const frame = entry as PerformanceEntry & { renderStart: number; scripts: { duration: number; invoker: string; sourceFunctionName: string; sourceURL: string }[] };
        const scripts = [...(frame.scripts ?? [])].sort((a, b) => b.duration - a.duration);
        const top = scripts[0];
        frames.long[frames.phase].push({
          duration: entry.duration,
          script: scripts.reduce((n, s) => n + s.duration, 0),
          render: frame.renderStart ? entry.startTime + entry.duration - frame.renderStart : 0,
          top: top ? `${top.invoker} ${top.sourceFunctionName || ''} ${(top.sourceURL || '').replace(/^.*\//, '')} ${top.duration.toFixed(0)} ms` : '',
        });
      }
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch {
    // not offered by this Chromium: the rAF gaps still tell
  }
}

const setPhase = (page: Page, phase: Phase) => page.evaluate((next) => ((window as unknown as { __bench: Frames }).__bench.phase = next), phase);
const worst = (values: number[]) => values.reduce((max, value) => Math.max(max, value), 0);
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/**
 * Each Chromium process's CPU ticks as last read: a process that exits (a renderer or utility process
 * the browser swaps) keeps its last reading in the sum, which otherwise went down (sampled every second).
 */
const chromiumTicks = new Map<number, number>();
/** CPU seconds (user + system) of this process's Chromium descendants: the whole browser, not only the page. */
function chromiumCpuSeconds(): number {
  const children = (pid: number): number[] => {
    try {
      return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return [];
    }
  };
  let ticks = 0;
  const walk = (pid: number) => {
    for (const child of children(pid)) {
      try {
        if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('chromium')) {
          // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
          const fields = readFileSync(`/proc/${child}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
          chromiumTicks.set(child, Number(fields[11]) + Number(fields[12]));
        }
      } catch {
        // gone meanwhile
      }
      walk(child);
    }
  };
  walk(process.pid);
  for (const value of chromiumTicks.values()) ticks += value;
  return ticks / 100;
}

/** The page's own counters (CDP Performance): its main thread's CPU, its process's CPU, layouts and style recalcs. */
type PageMetrics = Record<'ThreadTime' | 'ProcessTime' | 'LayoutCount' | 'RecalcStyleCount' | 'ScriptDuration' | 'LayoutDuration' | 'RecalcStyleDuration', number>;
async function pageMetrics(cdp: CDPSession): Promise<PageMetrics> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value])) as PageMetrics;
}

async function main() {
  if (!existsSync(join(DIST, 'index.html')) && !process.env.BENCH_DIST) execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const userData = benchTempDir('paydesk-bench-batch-ui-');
  browserTempDir();
  // The sandbox's per-key rate limit off, as in bench:batch: the rows go at the engine's pace (the most pushes).
  const runtime = await createConsoleRuntime({ userDataDir: userData.path, transport: 'browser', allowLive: false, version: 'bench', engine: { settleMs: 800, rateLimit: { perKeyPerMinute: 0 } } });
  const host = await startBrowserHost({ handlers: runtime.handlers, events: runtime, staticDir: DIST, port: 0, ...(PUSH_BUNDLE_MS === undefined ? {} : { pushBundleMs: PUSH_BUNDLE_MS }) });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const imported = await runtime.handlers['batches:import']({ fileName: `bench-${ROWS}.csv`, text: batchCsv(ROWS), paymentMethod: 'momo_cm' });
    if (!imported.ok) throw new Error(`import: ${imported.error.message}`);
    const batchId = imported.value.batch.id;

    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: 'en-GB' });
    // tsx (esbuild keepNames) wraps named functions in __name(...): the page needs it too.
    await page.addInitScript('globalThis.__name = (target) => target;');
    await page.addInitScript(recorder);
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(host.url);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
    await page.getByRole('button', { name: new RegExp(`^Open batch bench-${ROWS}`) }).click();
    await page.getByRole('table', { name: /Rows of the batch/ }).getByRole('row').nth(5).waitFor();

    // The machine's own share of long frames: a blank page in the same browser, its frames recorded
    // at the same moments. What it misses the page could not have helped (no core was free).
    const blank = await browser.newPage({ viewport: { width: 400, height: 300 } });
    await blank.addInitScript('globalThis.__name = (target) => target;');
    await blank.addInitScript(recorder);
    await blank.goto(`${host.origin}/blank-page-for-the-bench`).catch(() => undefined);
    // Its renderer's start-up is not the idle baseline's.
    await blank.waitForTimeout(1000);
    const phases = async (phase: Phase) => {
      await Promise.all([setPhase(page, phase), setPhase(blank, phase)]);
    };

    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    await phases('idle');
    const idleMetrics = await pageMetrics(cdp);
    const idleChromium = chromiumCpuSeconds();
    const idleStarted = Date.now();
    await page.waitForTimeout(IDLE_MS);
    const idleSeconds = (Date.now() - idleStarted) / 1000;
    const idleThread = ((await pageMetrics(cdp)).ThreadTime - idleMetrics.ThreadTime) / idleSeconds;
    const idleAll = (chromiumCpuSeconds() - idleChromium) / idleSeconds;

    const sampleChromium = setInterval(chromiumCpuSeconds, 1000).unref();
    const ended = new Promise<BatchProgress>((resolveEnd) => {
      const off = runtime.on('batch:progress', (progress) => {
        if (progress.batchId === batchId && progress.mode === 'send' && (progress.state === 'done' || progress.state === 'interrupted') && !progress.stopping) {
          off();
          resolveEnd(progress);
        }
      });
    });
    // Every push the page hears while sending, by event (the host streams all of them to the page).
    const heard = new Map<PushEvent, number>();
    const offHeard = PUSH_EVENTS.map((event) => runtime.on(event, () => heard.set(event, (heard.get(event) ?? 0) + 1)));
    let pushes = 0;
    let deltaRows = 0;
    const offCount = runtime.on('batch:progress', (progress) => {
      if (progress.batchId !== batchId) return;
      pushes += 1;
      deltaRows += progress.changedRows?.length ?? 0;
    });
    const confirmation = await runtime.handlers['batches:prepare']({ batchId });
    if (!confirmation.ok) throw new Error(`prepare: ${confirmation.error.message}`);
    const profiler = process.env.BENCH_PAGE_PROFILE ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.start');
    }
    if (process.env.BENCH_TRACE) {
      await browser.startTracing(page, {
        categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'disabled-by-default-v8.cpu_profiler', 'blink.user_timing'],
      });
    }
    const metricsBefore = await pageMetrics(cdp);
    const chromiumBefore = chromiumCpuSeconds();
    await phases('sending');
    const loadBefore = load();
    const started = Date.now();
    const start = await runtime.handlers['batches:start']({ batchId, confirmationToken: confirmation.value.confirmationToken, concurrency: CONCURRENCY });
    if (!start.ok) throw new Error(`start: ${start.error.message}`);
    const halfway = new Promise<void>((resolveHalf) => {
      const off = runtime.on('batch:progress', (progress) => {
        if (progress.batchId !== batchId || progress.sent < ROWS / 2) return;
        off();
        resolveHalf();
      });
    });
    if (SCREENSHOTS) {
      await halfway;
      // Not measured: a screenshot costs the page a frame.
      await phases('off');
      await page.screenshot({ path: join(ROOT, 'test-results/batch-ui-sending.png') });
      await phases('sending');
    }
    const last = await ended;
    if (profiler) writeFileSync(process.env.BENCH_PAGE_PROFILE!, JSON.stringify((await profiler.send('Profiler.stop')).profile));
    const sendingSeconds = (Date.now() - started) / 1000;
    const heardSending = new Map(heard);
    const metricsSending = await pageMetrics(cdp);
    const chromiumSending = chromiumCpuSeconds() - chromiumBefore;
    clearInterval(sampleChromium);
    await phases('end');
    await page.waitForTimeout(END_MS);
    await phases('off');
    offCount();
    offHeard.forEach((off) => off());
    if (process.env.BENCH_TRACE) writeFileSync(process.env.BENCH_TRACE, await browser.stopTracing());
    if (SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'test-results/batch-ui-end.png') });

    const frames = await page.evaluate(() => (window as unknown as { __bench: Frames }).__bench);
    const blankFrames = await blank.evaluate(() => (window as unknown as { __bench: Frames }).__bench);
    const shown = await page.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow');
    console.log(`batch UI, real stack: ${ROWS.toLocaleString('en')} rows at concurrency ${CONCURRENCY}, sent in ${sendingSeconds.toFixed(1)} s (${Math.round(ROWS / sendingSeconds)} rows/s), ended ${last.state}; progress bar at ${shown}`);
    console.log(`pushes to the page: ${PUSH_BUNDLE_MS === 0 ? 'each written alone (as before bundles)' : `written together every ${PUSH_BUNDLE_MS ?? PUSH_BUNDLE_DEFAULT_MS} ms`}`);
    console.log(`progress pushes: ${pushes}, changed rows carried: ${deltaRows.toLocaleString('en')} (${(deltaRows / Math.max(pushes, 1)).toFixed(0)} a push)`);
    console.log(`all pushes to the page while sending: ${[...heardSending].map(([event, n]) => `${event} ${n.toLocaleString('en')} (${(n / sendingSeconds).toFixed(0)}/s)`).join(', ')}`);
    console.log(`load average (1, 5, 15 min): before sending ${loadBefore}, after ${load()}; CPUs shared with other work`);
    // What the page costs, whatever the load: CPU (not wall) time while sending, per second of sending.
    const spent = (name: keyof PageMetrics) => metricsSending[name] - metricsBefore[name];
    const perSecond = (value: number) => `${((value * 1000) / sendingSeconds).toFixed(1)} ms/s`;
    console.log(
      `CPU while sending: page main thread ${perSecond(spent('ThreadTime'))}, page process ${perSecond(spent('ProcessTime'))}, all of Chromium ${perSecond(chromiumSending)} (${((chromiumSending / sendingSeconds) * 100).toFixed(1)} % of a core); ` +
        `layouts ${spent('LayoutCount')} (${perSecond(spent('LayoutDuration'))}), style recalcs ${spent('RecalcStyleCount')} (${perSecond(spent('RecalcStyleDuration'))}), script ${perSecond(spent('ScriptDuration'))}`,
    );
    console.log(`CPU idle (baseline, the same page before sending): page main thread ${(idleThread * 1000).toFixed(1)} ms/s, all of Chromium ${(idleAll * 1000).toFixed(1)} ms/s`);
    // Above the idle page (the frame recorder's own frames), per 1,000 rows: comparable between runs of different speeds.
    const perThousand = (total: number, idlePerSecond: number) => (((total - idlePerSecond * sendingSeconds) * 1000) / ROWS) * 1000;
    console.log(`CPU above idle per 1,000 rows sent: page main thread ${perThousand(spent('ThreadTime'), idleThread).toFixed(0)} ms, all of Chromium ${perThousand(chromiumSending, idleAll).toFixed(0)} ms`);
    for (const phase of ['idle', 'sending', 'end'] as const) {
      const gaps = frames.gaps[phase];
      const longFrames = frames.loaf[phase];
      const label = { idle: `idle ${IDLE_MS / 1000} s (baseline)`, sending: 'while sending', end: `the ${END_MS / 1000} s after the last row` }[phase];
      console.log(
        `${label.padEnd(30)} frames ${String(gaps.length).padStart(5)}, gap p50 ${quantile(gaps, 0.5).toFixed(1)} ms, p99 ${quantile(gaps, 0.99).toFixed(1)} ms, worst gap ${worst(gaps).toFixed(1)} ms; long animation frames ${longFrames.length}, worst ${worst(longFrames).toFixed(1)} ms`,
      );
    }
    // Frame histogram (gaps between frames, ms) and the worst long frames split into script / render / the rest.
    const buckets = [17, 34, 50, 100, 200, Infinity];
    for (const phase of ['idle', 'sending', 'end'] as const) {
      const counts = buckets.map((limit, i) => frames.gaps[phase].filter((gap) => gap <= limit && gap > (buckets[i - 1] ?? 0)).length);
      console.log(`  ${phase.padEnd(8)} gaps ${buckets.map((limit, i) => `${i === 0 ? '≤' : '>'}${i === 0 ? limit : buckets[i - 1]}${i === 0 || limit === Infinity ? '' : `–${limit}`}: ${counts[i]}`).join(', ')}`);
      for (const frame of [...frames.long[phase]].sort((a, b) => b.duration - a.duration).slice(0, 3)) {
        console.log(`           long frame ${frame.duration.toFixed(0)} ms: script ${frame.script.toFixed(0)}, style/layout/paint ${frame.render.toFixed(0)}, other (waiting) ${Math.max(0, frame.duration - frame.script - frame.render).toFixed(0)}; biggest script: ${frame.top || '-'}`);
      }
    }
    for (const phase of ['sending', 'end'] as const) {
      const gaps = blankFrames.gaps[phase];
      const counts = buckets.map((limit, i) => gaps.filter((gap) => gap <= limit && gap > (buckets[i - 1] ?? 0)).length);
      console.log(`  blank page beside (same browser, same moments), ${phase}: frames ${gaps.length}, worst gap ${worst(gaps).toFixed(1)} ms, gaps > 50 ms: ${gaps.filter((gap) => gap > TARGET_MS).length}; ${counts.join(' / ')} in the buckets above`);
    }
    const worstSending = Math.max(worst(frames.loaf.sending), worst(frames.gaps.sending));
    const worstEnd = Math.max(worst(frames.loaf.end), worst(frames.gaps.end));
    const baseline = Math.max(worst(frames.loaf.idle), worst(frames.gaps.idle));
    console.log(`worst frame while sending ${worstSending.toFixed(1)} ms, at the end ${worstEnd.toFixed(1)} ms (target ≤ ${TARGET_MS} ms); idle baseline ${baseline.toFixed(1)} ms, ratios ${(worstSending / Math.max(baseline, 1)).toFixed(2)}× and ${(worstEnd / Math.max(baseline, 1)).toFixed(2)}×`);
    const over = (gaps: number[]) => gaps.filter((gap) => gap > TARGET_MS).length;
    console.log(`frames over ${TARGET_MS} ms while sending: the page ${over(frames.gaps.sending)} of ${frames.gaps.sending.length}, the blank page beside ${over(blankFrames.gaps.sending)} of ${blankFrames.gaps.sending.length} (worst ${worst(blankFrames.gaps.sending).toFixed(1)} ms); at the end ${over(frames.gaps.end)} and ${over(blankFrames.gaps.end)}`);
  } finally {
    await browser.close().catch(() => undefined);
    await host.close();
    await runtime.close();
    userData.remove();
  }
}

await main();
