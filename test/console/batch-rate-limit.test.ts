/**
 * The engine's own rate limit (a fresh engine at 3 requests a minute per key): the batch waits
 * each 429's Retry-After (the console's waits move the engine clock by as much, so no real minute
 * passes) and every row is sent exactly once.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { activateEngineProfile, engineMovingClock, expectOk, tempDir } from './helpers';
import { batchCsv, batchReaches, withRows } from './batch-helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

const dir = tempDir('paydesk-batch-rate-');
let engine: EngineHandle | undefined;
let runtime: ConsoleRuntime | undefined;

afterAll(async () => {
  await runtime?.close();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('waits out the engine\'s 429 Retry-After and sends each row once', async () => {
  // Real time pinned: the engine's minute moves only by the console's waits, never by a slow machine
  // crossing a minute (the console signs with real time: within the engine's 5-minute window).
  const pinnedMicros = Date.now() * 1000;
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 3 }, wallMicros: () => pinnedMicros });
  const waits: number[] = [];
  const clock = engineMovingClock(engine, (ms) => waits.push(ms));
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'console'), transport: 'browser', allowLive: false, version: 'test', engine: false, clock, client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, 'Rate limited', engine);

  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'rate.csv', text: batchCsv(7, { phone: () => '+237650000001', tag: 'rate' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 2 }));
  expect((await done).state).toBe('done');

  const detail = await withRows(runtime.handlers, batch.id);
  expect(detail.batch.counts).toMatchObject({ accepted: 7, rejected: 0, unknown: 0 });
  const refusals = [];
  for (const row of detail.rows) {
    const timeline = expectOk(await runtime.handlers['transactions:get']({ journalId: row.journalId! })).timeline;
    refusals.push(...timeline.filter((event) => event.code === 'RATE_LIMIT_EXCEEDED'));
  }
  // 7 POSTs (and the preview's balance read) at 3 a minute: some 429s, each followed by a wait, never a storm.
  expect(refusals.length).toBeGreaterThan(0);
  expect(refusals.length).toBeLessThanOrEqual(6);
  expect(waits.filter((ms) => ms >= 1000).length).toBeGreaterThanOrEqual(1);
  const counts = engineInternals(engine).db.prepare('SELECT external_id, COUNT(*) AS n FROM transactions WHERE external_id LIKE ? GROUP BY external_id').all(`${batch.id}-%`) as { n: number }[];
  expect(counts).toHaveLength(7);
  expect(counts.every((row) => row.n === 1)).toBe(true);
}, 60_000);
