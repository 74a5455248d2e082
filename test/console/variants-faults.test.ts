/**
 * The money paths against the fault variants of the local sandbox (issue 35 item 4), each on a
 * service that also accepts a second payout with the same external id, so only the journal keeps a
 * row from being paid twice:
 * - `bare-429`: the rate limit's 429 carries no code and no Retry-After; the runner waits by its own
 *   backoff and sends the same row again (the same entry, the 429 on its timeline), never a new id;
 * - `gateway-html`: the maintenance 503 is an HTML page, an unreadable answer: the row's outcome is
 *   unknown (never "not found"), looked up once the service is back, and sent only after a 404.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { activateEngineProfile, engineMovingClock, expectOk, tempDir, virtualClock } from './helpers';
import { batchCsv, batchReaches, resumedBatchReaches, withRows } from './batch-helpers';

let dir = '';
let engine: EngineHandle | undefined;
let runtime: ConsoleRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  await engine?.stop();
  runtime = undefined;
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const paidPerId = (prefix: string) =>
  engineInternals(engine!).db.prepare('SELECT external_id, COUNT(*) AS n FROM transactions WHERE external_id LIKE ? GROUP BY external_id ORDER BY external_id').all(`${prefix}%`) as { external_id: string; n: number }[];

it('bare-429: waits by its own backoff when the 429 says nothing, and sends each row once under its own id', async () => {
  dir = tempDir('paydesk-bare-429-');
  const pinnedMicros = Date.now() * 1000;
  engine = await startEngine({
    host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 3 }, wallMicros: () => pinnedMicros,
    variants: ['duplicates-accepted', 'bare-429'],
  });
  const clock = engineMovingClock(engine);
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'console'), transport: 'browser', allowLive: false, version: 'test', engine: false, clock, client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, 'Bare 429', engine);
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'bare.csv', text: batchCsv(5, { phone: () => '+237650000001', tag: 'bare' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 2 }));
  const ended = await done;
  expect(ended.state, JSON.stringify(expectOk(await runtime.handlers['batches:get']({ batchId: batch.id })).batch.stateReason)).toBe('done');
  const detail = await withRows(runtime.handlers, batch.id);
  expect(detail.batch.counts).toMatchObject({ valid: 5, accepted: 5, rejected: 0, unknown: 0 });
  expect(detail.rows.map((row) => row.externalId)).toEqual([1, 2, 3, 4, 5].map((n) => `${batch.id}-${n + 1}`));
  // Each row's 429s are attempts on its one entry; no row is paid twice.
  let refusals = 0;
  for (const row of detail.rows) {
    const { timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: row.journalId! }));
    refusals += timeline.filter((event) => event.httpStatus === 429).length;
  }
  expect(refusals).toBeGreaterThan(0);
  expect(paidPerId(`${batch.id}-`).map((row) => row.n)).toEqual([1, 1, 1, 1, 1]);
}, 60_000);

it('gateway-html: an HTML 503 leaves the row unknown, never "not found"; once the service is back it is looked up, then sent once', async () => {
  dir = tempDir('paydesk-gateway-html-');
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, variants: ['duplicates-accepted', 'gateway-html'] });
  runtime = await createConsoleRuntime({ userDataDir: join(dir, 'console'), transport: 'browser', allowLive: false, version: 'test', engine: false, clock: virtualClock(), client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, 'Gateway', engine);
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'html.csv', text: batchCsv(3, { phone: () => '+237650000001', tag: 'html' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  engine.control.setMaintenance(true);
  const stopped = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 1 }));
  const first = await stopped;
  const during = (await withRows(runtime.handlers, batch.id)).rows;
  // Nothing was created; what the gateway said could not be read: unknown, never sent again blindly.
  expect(paidPerId(`${batch.id}-`)).toEqual([]);
  expect(during.some((row) => row.state === 'unknown')).toBe(true);
  expect(during.every((row) => row.state === 'unknown' || row.state === 'not_sent')).toBe(true);
  engine.control.setMaintenance(false);
  let progress = first;
  for (let resumes = 0; progress.state !== 'done' && resumes < 4; resumes += 1) {
    const ended = resumedBatchReaches(runtime, batch.id, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:resume']({ batchId: batch.id }));
    progress = await ended;
  }
  expect(progress.state).toBe('done');
  const after = await withRows(runtime.handlers, batch.id);
  expect(after.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted']);
  expect(paidPerId(`${batch.id}-`).map((row) => row.n)).toEqual([1, 1, 1]);
}, 60_000);
