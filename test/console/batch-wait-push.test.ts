/**
 * A progress push that stalls never holds the batch (docs/decisions/wait-push-never-holds-a-worker.md).
 * A worker that meets the service's 429 shows the wait (a forced progress push) and sleeps out the
 * Retry-After. The push is counted by the store, queued behind the batch's earlier pushes; on a
 * workspace that is a pool and a server, and a count can take as long as they do. Here every
 * count from the first 429 on is held (the store's `progressCounts` waits on a gate the test
 * opens only at the end): the batch must still send every row and be written `done`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { REQUEST_EVENT_TOPIC } from '../../packages/sandbox/src/inspector';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import type { StoragePort } from '../../electron/console/storage/port';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import { batchCsv } from './batch-helpers';
import { activateEngineProfile, engineMovingClock, expectOk, tempDir } from './helpers';

const dir = tempDir('paydesk-wait-push-');
let engine: EngineHandle | undefined;
let runtime: ConsoleRuntime | undefined;
let openGate: () => void = () => undefined;

afterAll(async () => {
  openGate();
  await runtime?.close();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('sends every row and writes done while every progress count since the first 429 is stalled', async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 2 } });
  let limited = false;
  engine.onEvent((event) => {
    if (event.type !== 'extension' || event.topic !== REQUEST_EVENT_TOPIC) return;
    if ((event.data as { status: number }).status === 429) limited = true;
  });
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let stalled = 0;
  // The console's waits move the engine's minute too (no real waiting).
  const clock = engineMovingClock(engine);
  runtime = await createConsoleRuntime({
    userDataDir: join(dir, 'console'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    clock,
    client: { now: Date.now, retry: { attempts: 1 } },
    openStorage: async (journal) => {
      const store = sqliteStore(journal, { settingsFile: join(dir, 'team-settings.json') });
      // From the first 429 on, every progress count waits for the gate: a push that never ends while the batch sends.
      const progressCounts: StoragePort['batches']['progressCounts'] = async (...args) => {
        if (limited) {
          stalled += 1;
          await gate;
        }
        return store.batches.progressCounts(...args);
      };
      return { ...store, batches: { ...store.batches, progressCounts } } as StoragePort;
    },
  });
  await activateEngineProfile(runtime, engine.api.url, 'Limited', engine);
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'wait-push.csv', text: batchCsv(5, { phone: () => '+237650000001', tag: 'waitpush' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 2 }));

  // Read from the store, not from a push (every push is held): the batch ends done with every row sent.
  const storage = runtime.storage;
  for (;;) {
    const summary = await storage.batches.summary(batch.id);
    if (summary?.state === 'done') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const done = (await storage.batches.summary(batch.id))!;
  expect(done.counts).toMatchObject({ rows: 5, accepted: 5, notSent: 0, pending: 0, unknown: 0 });
  // The rate limit was met and its wait announced while counts were held: the stall was real.
  expect(limited).toBe(true);
  expect(stalled).toBeGreaterThan(0);
  openGate();
  await runtime.batchesIdle();
}, 30_000);
