/**
 * A follow-up round under the service's rate limit (electron/console/sweeper.ts): a read refused
 * with 429 rests that key for its Retry-After, so a round over many open payouts spends one
 * refused read, not one per payout, and the burst's next round comes once the wait is over. A real
 * engine behind a proxy that answers the test's 429s, a real SQLite journal, a 20-row batch left
 * processing (the engine settles in an hour), the console's clock virtual (its waits cost nothing).
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { activateEngineProfile, expectOk, tempDir, virtualClock } from './helpers';
import { batchCsv, batchReaches } from './batch-helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';

const dir = tempDir('paydesk-follow-up-rate-');
let engine: EngineHandle | undefined;
let gate: GateProxy | undefined;
let runtime: ConsoleRuntime | undefined;

afterAll(async () => {
  await runtime?.close();
  await gate?.close();
  await engine?.stop();
});

const ROWS = 20;
const RETRY_AFTER_S = 30;

it('rests the key a 429 named for its Retry-After: one refused read a round, not one per open payout, and the next round after the wait', async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
  gate = await startGateProxy(engine.api.url);
  const clock = virtualClock();
  runtime = await createConsoleRuntime({
    userDataDir: join(dir, 'console'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    clock,
    client: { now: Date.now, retry: { attempts: 1 } },
    watch: { initialDelayMs: 1_000, maxDelayMs: 8_000, limitMs: 120_000 },
  });
  await activateEngineProfile(runtime, gate.url, 'Behind the gate', engine);

  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'rest.csv', text: batchCsv(ROWS, { phone: () => '+237650000001', tag: 'rest' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 4 }));
  expect((await done).state).toBe('done');
  await runtime.followUpsIdle();

  // From now: the first payout read is refused (429, Retry-After 30 s); every read is timed on the console's clock.
  const reads: { at: number; refused: boolean }[] = [];
  let refusedAt = 0;
  gate.decide = ({ method, path }) => {
    if (method !== 'GET' || !path.startsWith('/v1/payouts/')) return 'forward';
    const refused = refusedAt === 0;
    if (refused) refusedAt = clock.now();
    reads.push({ at: clock.now(), refused });
    return refused
      ? { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) }, body: { status: 'error', message: 'rate limit exceeded', data: null } }
      : 'forward';
  };
  runtime.followUpNow();
  await runtime.followUpsIdle();

  expect(reads.filter((read) => read.refused)).toHaveLength(1);
  // Before the wait was over: only the reads already on their way beside the refused one (4 at a time).
  const early = reads.filter((read) => read.at < refusedAt + RETRY_AFTER_S * 1000);
  expect(early.length).toBeLessThanOrEqual(4);
  // After it, rounds read every open payout again.
  const later = reads.filter((read) => read.at >= refusedAt + RETRY_AFTER_S * 1000);
  expect(later.length).toBeGreaterThanOrEqual(ROWS);
}, 60_000);
