/**
 * What the service said while a batch waits (issue 26 items 1 and 4): during maintenance (503,
 * Retry-After 60) the progress push and a reopened batch's detail carry the wait with the
 * service's own code and words, so the screen says "maintenance until …", not "rate limit".
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { batchFigures, type BatchProgress } from '../../shared/api';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { activateEngineProfile, expectOk, tempDir, virtualClock } from './helpers';
import { batchCsv, batchReaches } from './batch-helpers';

const dir = tempDir('paydesk-batch-wait-');
let engine: EngineHandle | undefined;
let runtime: ConsoleRuntime | undefined;
let limited: { engine: EngineHandle; runtime: ConsoleRuntime } | undefined;

afterAll(async () => {
  await runtime?.close();
  await engine?.stop();
  await limited?.runtime.close();
  await limited?.engine.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A console whose only profile points at `engine` with its sandbox keys, active. */
async function consoleOn(engine: EngineHandle, name: string, clock = virtualClock()): Promise<ConsoleRuntime> {
  const runtime = await createConsoleRuntime({ userDataDir: join(dir, name), transport: 'browser', allowLive: false, version: 'test', engine: false, clock, client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, name, engine);
  return runtime;
}

it('says why the preview has no balance when the balance read met a 429, instead of "not reported"', async () => {
  const engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'limited.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 1 } });
  const runtime = await consoleOn(engine, 'limited');
  limited = { engine, runtime };
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'limited.csv', text: batchCsv(1, { tag: 'limited' }), paymentMethod: 'momo_cm' }));
  const first = expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id }));
  expect(first.balance).not.toBeNull();
  expect(first.balanceUnread).toBeNull();
  // The payout key's one request a minute is spent: the next read is refused, and the preview says so.
  const second = expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id }));
  expect(second.balance).toBeNull();
  expect(second.balanceUnread).toMatchObject({ httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterSeconds: expect.any(Number) });
});

it('carries the maintenance 503 and its end in the progress push and in the reopened batch', async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0 });
  const clock = virtualClock();
  const sleep = clock.sleep.bind(clock);
  let release: () => void = () => {};
  let waiting: (ms: number) => void = () => {};
  const waited = new Promise<number>((resolve) => (waiting = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  clock.sleep = async (ms, signal) => {
    // The first long wait is held until the test has looked at what the console shows.
    if (ms >= 1000) {
      waiting(ms);
      await released;
      engine!.clock.advance(Math.ceil(ms / 1000));
    }
    return sleep(ms, signal);
  };
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'console'), transport: 'browser', allowLive: false, version: 'test', engine: false, clock, client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, 'Maintenance', engine);

  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'wait.csv', text: batchCsv(3, { phone: () => '+237650000001', tag: 'wait' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const pushes: BatchProgress[] = [];
  runtime.on('batch:progress', (progress) => {
    if (progress.batchId === batch.id) pushes.push(progress);
  });
  engine.control.setMaintenance(true);
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 1 }));
  // The service's Retry-After (60 s) less what passed since its answer: the virtual clock's now
  // moves with real time, so a millisecond between the answer and the wait is left off.
  const wait = await waited;
  expect(wait).toBeLessThanOrEqual(60_000);
  expect(wait).toBeGreaterThan(59_000);

  const announced = pushes.find((push) => push.waitingFor);
  expect(announced?.waitingFor).toMatchObject({ httpStatus: 503, code: 'MAINTENANCE_MODE', message: expect.stringMatching(/maintenance/) });
  expect(announced?.waitingUntil).toBe(announced?.waitingFor?.until);
  // Reopened mid-wait: the detail says the same at once, without waiting for the next push.
  const reopened = expectOk(await runtime.handlers['batches:get']({ batchId: batch.id }));
  expect(reopened.wait).toMatchObject({ httpStatus: 503, code: 'MAINTENANCE_MODE', until: announced?.waitingFor?.until });
  expect(Date.parse(reopened.wait!.until) - clock.now()).toBeGreaterThan(50_000);

  // The row the 503 left unknown is in the Outcome unknown list, not in Failed: each list holds what its counter counts.
  // The answer is written with the journal's next group commit: wait for that state, not for a time.
  let counts = reopened.batch.counts;
  for (let tries = 0; tries < 200 && counts.unknown === 0; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    counts = expectOk(await runtime.handlers['batches:get']({ batchId: batch.id })).batch.counts;
  }
  const figures = batchFigures(counts);
  expect(figures).toMatchObject({ unknown: 1, failed: 0 });
  expect(expectOk(await runtime.handlers['batches:rows']({ batchId: batch.id, filter: 'failed' })).total).toBe(figures.failed);
  expect(expectOk(await runtime.handlers['batches:rows']({ batchId: batch.id, filter: 'unknown' })).total).toBe(figures.unknown);

  engine.control.setMaintenance(false);
  release();
  expect((await done).state).toBe('done');
  expect(expectOk(await runtime.handlers['batches:get']({ batchId: batch.id })).wait).toBeNull();
}, 60_000);
