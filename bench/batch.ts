/**
 * `npm run bench:batch`: a batch sent by the console's runner against the local sandbox engine
 * (rate limit off, settle 0), next to the engine's own create throughput in the same run: the
 * same payouts sent by the bare HTTP client with the same concurrency (no journal, no batch),
 * measured before AND after the batch (their mean is the baseline: a shared machine's load drifts
 * within a run), after an unmeasured warm-up. One phase per size, each on a fresh console and engine: 1,000 and 10,000 rows.
 * Prints rows/s and CPU time per row (steadier than rows/s on a shared machine), the ratios to the
 * bare client, the time until every row's status is final (the never-answering and needs-Verify
 * numbers are left out: they wait for a clock or a person), and a Markdown table to paste.
 * BENCH_ROWS (a size or a comma list, default `1000,10000`), BENCH_CONCURRENCY (default 4);
 * BENCH_PROFILE=<file>.cpuprofile writes a CPU profile of the (last) batch phase.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient } from '../electron/client';
import { countRows } from '../electron/console/batch/store';
import { systemClock } from '../electron/console/deps';
import { createConsoleRuntime, type ConsoleRuntime } from '../electron/console/runtime';
import type { BatchProgress } from '../shared/api';
import { benchTempDir } from './temp';

const SIZES = (process.env.BENCH_ROWS ?? '1000,10000').split(',').map((size) => Number(size.trim()));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Numbers that settle by themselves (completed, failed, cancelled): not 04 (expiry) nor 08 (Verify). */
const PHONES = ['+237650000001', '+237650000002', '+237650000003', '+237650000005', '+237650000006', '+237650000007', '+237650000009', '+237670000010'];
/** The target of issue 17: batch rows/s at least this share of the bare create rate. */
const TARGET_PERCENT = 70;

/** User plus system CPU time of this process (engine, client and console all run in it). */
function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

function csv(rows: number, tag: string): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description'];
  for (let i = 0; i < rows; i += 1) lines.push(`${PHONES[i % PHONES.length]},${100 + i},Bench${i},Batch,b${i}@example.com,${tag} ${i}`);
  return `${lines.join('\n')}\n`;
}

interface Timed {
  rate: number;
  seconds: number;
  cpuPerRow: number;
}

/** The engine's create throughput: the bare client, the same kind of rows, the same concurrency. */
async function bare(runtime: ConsoleRuntime, rows: number, tag: string): Promise<Timed & { failures: number }> {
  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const payout = keys.find((key) => key.type === 'payout')!;
  const payment = keys.find((key) => key.type === 'payment')!;
  const client = createClient(
    { baseUrl: runtime.engineUrl!, environment: 'sandbox', paymentPublicKey: payment.publicKey, payoutPublicKey: payout.publicKey },
    async (publicKey) => keys.find((key) => key.publicKey === publicKey)!.secretKey,
    { retry: { attempts: 1 } },
  );
  let next = 0;
  let failures = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < rows) {
        const i = next++;
        const result = await client.initiatePayout({
          payment_method: 'momo_cm',
          amount: 100 + i,
          phone_number: PHONES[i % PHONES.length]!,
          customer: { first_name: `Bench${i}`, last_name: 'Bare', email: `b${i}@example.com` },
          external_id: `${tag}-${i}`,
          description: `${tag} ${i}`,
        });
        if (result.kind !== 'success') failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpuPerRow = cpuMicros(process.cpuUsage(c0)) / rows;
  await client.close();
  return { rate: rows / seconds, seconds, cpuPerRow, failures };
}

async function startProfile(): Promise<Session | null> {
  if (!process.env.BENCH_PROFILE) return null;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session | null): Promise<void> {
  if (!session) return;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile));
  session.disconnect();
}

/** The same rows as a batch through the console: import, prepare, start, until done and all final. */
async function batch(runtime: ConsoleRuntime, rows: number) {
  const imported = await runtime.handlers['batches:import']({ fileName: 'bench.csv', text: csv(rows, 'bench'), paymentMethod: 'momo_cm' });
  if (!imported.ok) throw new Error(imported.error.message);
  const batchId = imported.value.batch.id;
  const prepared = await runtime.handlers['batches:prepare']({ batchId });
  if (!prepared.ok) throw new Error(prepared.error.message);
  let progressEvents = 0;
  let maxGapMs = 0;
  let lastEvent = 0;
  const done = new Promise<BatchProgress>((resolve) => {
    runtime.on('batch:progress', (progress) => {
      if (progress.batchId !== batchId || lastEvent < 0) return;
      const at = performance.now();
      if (lastEvent > 0) maxGapMs = Math.max(maxGapMs, at - lastEvent);
      lastEvent = at;
      progressEvents += 1;
      if (progress.state !== 'sending') {
        lastEvent = -1; // gaps are measured while sending only
        resolve(progress);
      }
    });
  });
  const profiler = await startProfile();
  const c1 = process.cpuUsage();
  const t1 = performance.now();
  const started = await runtime.handlers['batches:start']({ batchId, confirmationToken: prepared.value.confirmationToken, concurrency: CONCURRENCY });
  if (!started.ok) throw new Error(started.error.message);
  const final = await done;
  const seconds = (performance.now() - t1) / 1000;
  const cpuPerRow = cpuMicros(process.cpuUsage(c1)) / rows;
  await stopProfile(profiler);
  // Polled, not counted on every status event: a count of 10,000 rows per event would be the bench's own cost.
  while (countRows(runtime.journal, batchId, false).counts.processing > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  const finalSeconds = (performance.now() - t1) / 1000;
  return { rate: rows / seconds, seconds, cpuPerRow, finalSeconds, counts: countRows(runtime.journal, batchId).counts, progressEvents, maxGapMs, state: final.state };
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;

async function phase(rows: number): Promise<string> {
  const temp = benchTempDir('paydesk-bench-batch-');
  const runtime = await createConsoleRuntime({
    userDataDir: temp.path,
    transport: 'browser',
    allowLive: false,
    version: 'bench',
    clock: systemClock,
    // The engine's per-key rate limit is off for the bench (0), and payouts settle at once.
    engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } },
    client: { retry: { attempts: 1 } },
  });
  try {
    // The seeded wallet holds too little for the bare runs and a 10,000-row batch: fund it for all three.
    const engine = runtime.engine!;
    const appId = engine.api.applications()[0]!.id;
    engine.control.topUp(appId, 'sandbox', 4 * rows * (100 + rows) * 2, 'bench:batch float');
    // Unmeasured: the first thousand requests of a process pay for compiling (JIT); without this the
    // first measured run (the bare client's) was 2.5 times slower per row at 1,000 rows.
    await bare(runtime, Math.min(rows, 1000), 'warm-up');
    const loadBefore = load();
    const before = await bare(runtime, rows, 'bare-before');
    const sent = await batch(runtime, rows);
    const after = await bare(runtime, rows, 'bare-after');
    const bareRate = (before.rate + after.rate) / 2;
    const bareCpu = (before.cpuPerRow + after.cpuPerRow) / 2;
    const byRate = percent(sent.rate, bareRate);
    const byCpu = percent(bareCpu, sent.cpuPerRow);
    const failures = before.failures + after.failures;
    const { counts } = sent;
    console.log(`\n${rows} rows, concurrency ${CONCURRENCY}, engine in-process (rate limit off, settle 0), load ${loadBefore} -> ${load()}`);
    console.log(`  engine create (bare client)  ${before.rate.toFixed(0).padStart(6)} before, ${after.rate.toFixed(0).padStart(6)} after rows/s   CPU ${before.cpuPerRow.toFixed(0)} / ${after.cpuPerRow.toFixed(0)} µs/row${failures ? `   (${failures} failed)` : ''}`);
    console.log(`  batch runner                 ${sent.rate.toFixed(0).padStart(6)} rows/s   ${sent.seconds.toFixed(2)} s   CPU ${sent.cpuPerRow.toFixed(0)} µs/row`);
    console.log(`  batch vs engine create       ${byRate} by rows/s, ${byCpu} by CPU per row (target >= ${TARGET_PERCENT} % by rows/s)`);
    console.log(`  time to all-final            ${sent.finalSeconds.toFixed(2)} s   (${counts.completed} completed, ${counts.failed} failed, ${counts.cancelled} cancelled, ${counts.unknown} unknown)`);
    console.log(`  progress events while sending ${sent.progressEvents} (largest gap ${sent.maxGapMs.toFixed(0)} ms), final state ${sent.state}`);
    return `| ${rows.toLocaleString('en')} | ${loadBefore.split(' ')[0]} | ${bareRate.toFixed(0)} | ${sent.rate.toFixed(0)} | **${byRate}** | ${bareCpu.toFixed(0)} / ${sent.cpuPerRow.toFixed(0)} | ${byCpu} |`;
  } finally {
    await runtime.close();
    temp.remove();
  }
}

const lines: string[] = [];
for (const rows of SIZES) lines.push(await phase(rows));
console.log(`\nbench:batch, ${new Date().toISOString().slice(0, 10)}, concurrency ${CONCURRENCY} (paste into docs/benchmarks.md):`);
console.log('| rows | load (1 min) | bare client rows/s (mean before/after) | batch rows/s | batch / bare by rows/s | CPU µs per row bare / batch | by CPU |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const line of lines) console.log(line);
