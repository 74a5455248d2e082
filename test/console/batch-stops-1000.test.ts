/**
 * A 1,000-row batch on the local sandbox under its default per-key rate limit (600 a minute),
 * paused and resumed at random moments (some of them during a 429's Retry-After wait), and the
 * console stopped mid-batch and started again (issue 15): every row is paid exactly once and ends
 * with a final status. The console's waits move the engine's clock by as much, so no real minute
 * passes; the moments come from a seeded generator printed on failure, so a run can be replayed.
 */
import { expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import type { BatchProgress } from '../../shared/api';
import { expectOk, startRuntime, tempDir, virtualClock } from './helpers';
import { batchCsv, batchReaches, until } from './batch-helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
const SEED = Number(process.env.PAYDESK_STOPS_SEED ?? Date.now() % 100_000);

/** A small seeded generator (mulberry32): the same seed gives the same moments. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function start(dir: string): Promise<Runtime> {
  const clock = virtualClock();
  const sleep = clock.sleep.bind(clock);
  let runtime: Runtime | null = null;
  clock.sleep = async (ms, signal) => {
    // The engine's rate-limit window is on its own clock: move it by what the console waits.
    if (ms >= 1000) runtime?.engine?.clock.advance(Math.ceil(ms / 1000));
    return sleep(ms, signal);
  };
  runtime = await startRuntime({ userDataDir: dir, clock, engine: { settleMs: 0 } });
  return runtime;
}

it(`pays each of 1,000 rows exactly once through random pauses, resumes and a stop under the default rate limit (seed ${SEED})`, async () => {
  const random = generator(SEED);
  const dir = tempDir('paydesk-batch-stops-');
  let runtime = await start(dir);
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'stops.csv', text: batchCsv(1000, { phone: () => '+237670000010', tag: 'stops' }), paymentMethod: 'momo_cm' }));
  const batchId = batch.id;
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));

  // Three pauses at random counts, then a stop of the console at a fourth.
  const moments = Array.from({ length: 4 }, () => 50 + Math.floor(random() * 900)).sort((a, b) => a - b);
  const stopAt = moments.pop()!;
  const paused = (progress: BatchProgress) => progress.batchId === batchId && progress.state === 'sending' && moments.length > 0 && progress.sent >= moments[0]!;
  const off = runtime.on('batch:progress', (progress) => {
    if (!paused(progress)) return;
    moments.shift();
    void runtime.handlers['batches:pause']({ batchId });
  });
  expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 4 }));
  for (let round = 0; round < 3; round += 1) {
    const settled = await batchReaches(runtime, batchId, ['paused', 'done', 'interrupted']);
    if (settled.state !== 'paused') break;
    expect(countRows(runtime.journal, batchId).counts.pending).toBe(0);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
  }
  off();

  // Stop the console while the batch is sending (a SIGTERM's graceful close), then start again.
  if (countRows(runtime.journal, batchId).counts.notSent > 0) {
    await until(runtime, ['batch:progress'], () => countRows(runtime.journal, batchId).counts.notSent <= 1000 - stopAt || countRows(runtime.journal, batchId).counts.notSent === 0);
    await runtime.close();
    runtime = await start(dir);
    const reopened = expectOk(await runtime.handlers['batches:get']({ batchId })).batch;
    if (reopened.state !== 'done') {
      expect(reopened.state).toBe('interrupted');
      const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
      expectOk(await runtime.handlers['batches:resume']({ batchId }));
      expect((await done).state).toBe('done');
    }
  } else {
    expect(expectOk(await runtime.handlers['batches:get']({ batchId })).batch.state).toBe('done');
  }

  try {
    await until(runtime, ['batch:progress', 'transaction:changed'], () => countRows(runtime.journal, batchId).counts.completed === 1000);
    await runtime.followUpsIdle();
    expect(countRows(runtime.journal, batchId).counts).toMatchObject({ valid: 1000, accepted: 1000, completed: 1000, notSent: 0, pending: 0, unknown: 0, rejected: 0 });
    const perRow = engineInternals(runtime.engine!).db.prepare('SELECT external_id, COUNT(*) AS n FROM transactions WHERE external_id LIKE ? GROUP BY external_id').all(`${batchId}-%`) as { n: number }[];
    expect(perRow).toHaveLength(1000);
    expect(perRow.filter((row) => row.n !== 1)).toEqual([]);
    // The rate limit did bite: rows waited out 429s (each a row `not_sent`, then sent again).
    const refusals = runtime.journal.prepare(`SELECT COUNT(*) AS n FROM timeline WHERE code = 'RATE_LIMIT_EXCEEDED'`).get() as { n: number };
    expect(refusals.n).toBeGreaterThan(0);
  } finally {
    await runtime.close();
  }
}, 300_000);
