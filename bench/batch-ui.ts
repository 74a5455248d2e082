/**
 * `npx tsx bench/batch-ui.ts`: is the Bulk payouts screen responsive while a 10,000-row batch sends?
 * The built renderer runs in Chromium with a stand-in for the Electron preload (window.paydesk) that
 * holds a 10,000-row batch made by the real shared parser and checker, sends "rows" at a steady pace,
 * pushes `batch:progress` far more often than main does (every PUSH_MS, main pushes about 10 a
 * second), and answers `batches:get` with the whole batch through a JSON round trip, as the browser
 * host would. A PerformanceObserver records long animation frames and long tasks, and a
 * requestAnimationFrame loop records the gaps between frames. Prints the worst frame; asserts nothing.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { browserTempDir } from './temp';
import { CHANNELS, type BatchDetail, type BatchRow } from '../shared/api';
import { checkRows, parseBatchCsv } from '../shared/batch';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const ROWS_PER_SECOND = Number(process.env.BENCH_RATE ?? 1_000);
const PUSH_MS = Number(process.env.BENCH_PUSH_MS ?? 10);
const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist/renderer');

function batchOf(rows: number): BatchDetail {
  const lines = ['phone_number,amount,first_name,last_name,email,description,meta.region'];
  for (let i = 0; i < rows; i += 1) {
    lines.push(`+2376${String(70_000_000 + i)},${1000 + (i % 50) * 100},Awa${i},Nkemdirim,awa${i}@example.com,Commission ${i},Littoral`);
  }
  const parsed = parseBatchCsv(lines.join('\n'));
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const checked = checkRows(parsed.file.rows, { batchId: 'bench', defaultPaymentMethod: 'momo_cm' });
  const batchRows: BatchRow[] = checked.map((row) => ({
    ...row, state: 'not_sent', journalId: null, transactionId: null, status: null, failedCode: null, fee: null, error: null, rehearsal: null,
  }));
  const now = new Date().toISOString();
  const counts = { rows, valid: rows, invalid: 0, duplicates: 0, notSent: rows, pending: 0, accepted: 0, rejected: 0, unknown: 0, completed: 0, failed: 0, cancelled: 0, processing: 0 };
  return {
    batch: {
      id: 'bench', fileName: `bench-${rows}.csv`, state: 'sending', stateReason: null, profileId: 'local', profileName: 'Local sandbox', environment: 'sandbox',
      paymentMethod: 'momo_cm', concurrency: 4, totalAmount: batchRows.reduce((n, r) => n + (r.request?.amount ?? 0), 0), counts, fileHash: 'bench',
      retryOf: null, createdAt: now, updatedAt: now, startedAt: now, finishedAt: null,
    },
    rows: batchRows,
    importedBefore: [],
    rehearsal: null,
  };
}

/** What runs in the page before the app: the preload stand-in and the frame recorders. */
function pageScript({ detail, channels, rate, pushMs }: { detail: BatchDetail; channels: string[]; rate: number; pushMs: number }) {
  const w = window as unknown as Record<string, unknown>;
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const emit = (event: string, payload: unknown) => listeners.get(event)?.forEach((fn) => fn(payload));
  const profile = { id: 'local', name: 'Local sandbox', baseUrl: 'http://127.0.0.1:4010', environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: 'pk', payoutPublicKey: 'pk', builtIn: true, hasPaymentSecret: true, hasPayoutSecret: true };
  const answers: Record<string, (input: unknown) => unknown> = {
    'app:info': () => ({ version: 'bench', transport: 'electron', activeProfileId: 'local', allowLive: false, language: 'en' }),
    'profiles:list': () => ({ profiles: [profile], activeId: 'local' }),
    'methods:list': () => ({ methods: ['momo_cm'] }),
    'balance:get': () => ({ available: true, balance: 900_000_000, currency: 'XAF' }),
    'batches:list': () => ({ batches: [detail.batch] }),
    // Through JSON, as the browser host carries it (Electron's structured clone costs about the same).
    'batches:get': () => {
      frames.fetches += 1;
      return JSON.parse(JSON.stringify(detail));
    },
  };
  const bridge: Record<string, unknown> = {
    on(event: string, listener: (payload: unknown) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  for (const channel of channels) {
    bridge[channel] = async (input: unknown) => {
      const answer = answers[channel];
      return answer ? { ok: true, value: answer(input) } : { ok: false, error: { code: 'INTERNAL', message: `bench: ${channel}` } };
    };
  }
  w.paydesk = bridge;

  const frames = { gaps: [] as number[], tailGaps: [] as number[], loaf: [] as number[], sendingLoaf: [] as number[], longtasks: [] as number[], recording: false, sending: false, last: 0, pushes: 0, fetches: 0, done: false };
  w.__bench = frames;
  const loop = (time: number) => {
    if (frames.recording && frames.last) (frames.sending ? frames.gaps : frames.tailGaps).push(time - frames.last);
    frames.last = time;
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  for (const [type, into] of [['long-animation-frame', frames.loaf], ['longtask', frames.longtasks]] as const) {
    try {
      new PerformanceObserver((list) => {
        if (!frames.recording) return;
        for (const entry of list.getEntries()) {
          into.push(entry.duration);
          if (type === 'long-animation-frame' && frames.sending) frames.sendingLoaf.push(entry.duration);
        }
      }).observe({ type, buffered: false });
    } catch {
      // not supported by this Chromium: the rAF gaps still tell
    }
  }
  (w as { __benchStart?: () => void }).__benchStart = () => {
    frames.recording = true;
    frames.sending = true;
    frames.fetches = 0;
    const started = performance.now();
    let sent = 0;
    const total = detail.rows.length;
    const counts = detail.batch.counts;
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      for (; sent < due; sent += 1) {
        const row = detail.rows[sent]!;
        row.state = 'accepted';
        row.status = sent % 10 === 0 ? 'failed' : 'processing';
        row.failedCode = sent % 10 === 0 ? 'PAYER_NOT_FOUND' : null;
        row.transactionId = `TE_${sent}`;
        counts.notSent -= 1;
        counts.accepted += 1;
        if (row.status === 'failed') counts.failed += 1;
        else counts.processing += 1;
      }
      const done = sent >= total;
      if (done) detail.batch.state = 'done';
      frames.pushes += 1;
      emit('batch:progress', {
        batchId: detail.batch.id, mode: 'send', state: detail.batch.state, sent, accepted: sent, failed: counts.failed, unknown: 0,
        remaining: total - sent, ratePerSecond: rate, etaSeconds: (total - sent) / rate, final: counts.failed,
      });
      if (done) {
        frames.sending = false;
        clearInterval(timer);
        setTimeout(() => {
          frames.recording = false;
          frames.done = true;
        }, 2000);
      }
    }, pushMs);
  };
}

function serve(dir: string): Promise<Server> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.svg': 'image/svg+xml' };
  const server = createServer((req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    const file = path.startsWith(dir) && existsSync(path) && statSync(path).isFile() ? path : join(dir, 'index.html');
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
};

async function main() {
  if (!existsSync(join(DIST, 'index.html'))) execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const detail = batchOf(ROWS);
  const server = await serve(DIST);
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  browserTempDir();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: 'en-GB' });
    // tsx (esbuild keepNames) wraps named functions in __name(...): the page needs it too.
    await page.addInitScript('globalThis.__name = (target) => target;');
    await page.addInitScript(pageScript, { detail, channels: [...CHANNELS], rate: ROWS_PER_SECOND, pushMs: PUSH_MS });
    page.on('pageerror', (error) => console.error('page error:', error.message));
    page.on('console', (message) => message.type() === 'error' && console.error('page console:', message.text()));
    await page.goto(url);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Bulk payouts' }).click();
    await page.getByRole('button', { name: /^Open batch bench-/ }).click();
    await page.getByRole('heading', { name: 'Sending' }).waitFor();
    await page.getByRole('table', { name: /Rows of the batch/ }).getByRole('row').nth(5).waitFor();
    const started = Date.now();
    await page.evaluate(() => (window as unknown as { __benchStart: () => void }).__benchStart());
    await page.waitForFunction(() => (window as unknown as { __bench: { done: boolean } }).__bench.done, undefined, { timeout: 600_000, polling: 500 });
    const frames = await page.evaluate(() => (window as unknown as { __bench: { gaps: number[]; tailGaps: number[]; loaf: number[]; sendingLoaf: number[]; longtasks: number[]; pushes: number; fetches: number } }).__bench);
    const shown = await page.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow');
    const gaps = stats(frames.gaps);
    const loaf = stats(frames.loaf);
    const tasks = stats(frames.longtasks);
    console.log(`batch UI, ${ROWS.toLocaleString('en')} rows at ${ROWS_PER_SECOND}/s, a progress push every ${PUSH_MS} ms (${frames.pushes} pushes) over ${((Date.now() - started) / 1000).toFixed(1)} s; progress bar ended at ${shown}`);
    const tail = stats(frames.tailGaps);
    console.log(`while sending, frame gaps (rAF): ${gaps.count} frames, p50 ${gaps.p50.toFixed(1)} ms, p99 ${gaps.p99.toFixed(1)} ms, worst ${gaps.max.toFixed(1)} ms, over 100 ms: ${frames.gaps.filter((g) => g > 100).length}`);
    console.log(`the 2 s after the last row (the final fetch of all rows): worst frame gap ${tail.max.toFixed(1)} ms; batches:get calls during the run: ${frames.fetches}`);
    console.log(`while sending, long animation frames (>50 ms): ${frames.sendingLoaf.length}, worst ${Math.max(0, ...frames.sendingLoaf).toFixed(1)} ms`);
    console.log(`whole run, long animation frames (>50 ms): ${loaf.count}, worst ${loaf.max.toFixed(1)} ms; long tasks: ${tasks.count}, worst ${tasks.max.toFixed(1)} ms`);
    await page.screenshot({ path: join(ROOT, 'test-results/batch-ui-bench.png') });
  } finally {
    await browser.close();
    server.close();
  }
}

await main();
