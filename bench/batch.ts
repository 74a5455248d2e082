/**
 * `npm run bench:batch`: a 1,000-row batch sent by the console's runner against the local sandbox
 * engine (rate limit off, settle 0), next to the engine's own create throughput in the same run:
 * the same payouts sent by the bare HTTP client with the same concurrency (no journal, no batch).
 * Prints rows/s and CPU time per row (steadier than rows/s on a shared machine), the ratios to the bare client, and the time until every row's status is final
 * (the never-answering and needs-Verify numbers are left out: they wait for a clock or a person).
 * BENCH_ROWS (default 1000) and BENCH_CONCURRENCY (default 4) change the size.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createClient } from '../electron/client';
import { countRows } from '../electron/console/batch/store';
import { systemClock } from '../electron/console/deps';
import { createConsoleRuntime } from '../electron/console/runtime';
import type { BatchProgress } from '../shared/api';
import { benchTempDir } from './temp';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
/** Numbers that settle by themselves (completed, failed, cancelled): not 04 (expiry) nor 08 (Verify). */
const PHONES = ['+237650000001', '+237650000002', '+237650000003', '+237650000005', '+237650000006', '+237650000007', '+237650000009', '+237670000010'];

/** User plus system CPU time of this process (engine, client and console all run in it). */
function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

function csv(rows: number, tag: string): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description'];
  for (let i = 0; i < rows; i += 1) lines.push(`${PHONES[i % PHONES.length]},${100 + i},Bench${i},Batch,b${i}@example.com,${tag} ${i}`);
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const temp = benchTempDir('paydesk-bench-batch-');
  const dir = temp.path;
  const runtime = await createConsoleRuntime({
    userDataDir: dir,
    transport: 'browser',
    allowLive: false,
    version: 'bench',
    clock: systemClock,
    // The engine's per-key rate limit is off for the bench (0), and payouts settle at once.
    engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } },
    client: { retry: { attempts: 1 } },
  });
  try {
    const engine = runtime.engine!;
    const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
    const payout = keys.find((key) => key.type === 'payout')!;
    const payment = keys.find((key) => key.type === 'payment')!;

    // 1. The engine's create throughput: the bare client, same rows, same concurrency.
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
        while (next < ROWS) {
          const i = next++;
          const result = await client.initiatePayout({
            payment_method: 'momo_cm',
            amount: 100 + i,
            phone_number: PHONES[i % PHONES.length]!,
            customer: { first_name: `Bench${i}`, last_name: 'Bare', email: `b${i}@example.com` },
            external_id: `bare-${i}`,
            description: `bare ${i}`,
          });
          if (result.kind !== 'success') failures += 1;
        }
      }),
    );
    const bareSeconds = (performance.now() - t0) / 1000;
    const bareCpu = cpuMicros(process.cpuUsage(c0)) / ROWS;
    await client.close();
    const bareRate = ROWS / bareSeconds;

    // 2. The same rows as a batch through the console: import, prepare, start, until done and all final.
    const imported = await runtime.handlers['batches:import']({ fileName: 'bench.csv', text: csv(ROWS, 'bench'), paymentMethod: 'momo_cm' });
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
    const c1 = process.cpuUsage();
    const t1 = performance.now();
    const started = await runtime.handlers['batches:start']({ batchId, confirmationToken: prepared.value.confirmationToken, concurrency: CONCURRENCY });
    if (!started.ok) throw new Error(started.error.message);
    const final = await done;
    const batchSeconds = (performance.now() - t1) / 1000;
    const batchCpu = cpuMicros(process.cpuUsage(c1)) / ROWS;
    const allFinal = new Promise<void>((resolve) => {
      const check = () => countRows(runtime.journal, batchId).counts.processing === 0;
      if (check()) return resolve();
      const off = runtime.on('transaction:changed', () => {
        if (check()) {
          off();
          resolve();
        }
      });
    });
    await allFinal;
    const finalSeconds = (performance.now() - t1) / 1000;
    const batchRate = ROWS / batchSeconds;
    const counts = countRows(runtime.journal, batchId).counts;

    console.log(`bench:batch — ${ROWS} rows, concurrency ${CONCURRENCY}, engine in-process (rate limit off, settle 0), load ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    console.log(`engine create (bare client)  ${bareRate.toFixed(0).padStart(6)} rows/s   ${bareSeconds.toFixed(2)} s   CPU ${bareCpu.toFixed(0)} µs/row${failures ? `   (${failures} failed)` : ''}`);
    console.log(`batch runner                 ${batchRate.toFixed(0).padStart(6)} rows/s   ${batchSeconds.toFixed(2)} s   CPU ${batchCpu.toFixed(0)} µs/row`);
    console.log(`batch vs engine create       ${((100 * batchRate) / bareRate).toFixed(1)} % by rows/s, ${((100 * bareCpu) / batchCpu).toFixed(1)} % by CPU per row (target >= 60 %)`);
    console.log(`time to all-final            ${finalSeconds.toFixed(2)} s   (${counts.completed} completed, ${counts.failed} failed, ${counts.cancelled} cancelled, ${counts.unknown} unknown)`);
    console.log(`progress events while sending ${progressEvents} (largest gap ${maxGapMs.toFixed(0)} ms), final state ${final.state}`);
  } finally {
    await runtime.close();
    temp.remove();
  }
}

await main();
