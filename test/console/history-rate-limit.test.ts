/**
 * History and the Overview tell the truth under a rate limit that bites (issue 23 item 3): a real
 * engine at 5 requests a minute per key, a real SQLite journal, a 20-row batch. A 429 is part of
 * its row's timeline, never a transaction of its own: History lists one entry per row, none
 * REJECTED for a paid row, the row's timeline shows the 429, and the Overview's count and total
 * are the engine's transactions.
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { OVERVIEW_DAYS } from '../../shared/api';
import { activateEngineProfile, engineMovingClock, expectOk, tempDir } from './helpers';
import { BATCH_HEADER, batchCsv, batchReaches, withRows } from './batch-helpers';

const dir = tempDir('paydesk-history-rate-');
let engine: EngineHandle | undefined;
let runtime: ConsoleRuntime | undefined;

afterAll(async () => {
  await runtime?.close();
  await engine?.stop();
});

const ROWS = 20;

/** A fresh engine at 5 requests a minute per key and a console on it; `onWait` hears each wait of the console. */
async function rateLimited(name: string, onWait: (ms: number) => void = () => {}) {
  await runtime?.close();
  await engine?.stop();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, `${name}-engine.db`), settleMs: 0, rateLimit: { perKeyPerMinute: 5 } });
  const clock = engineMovingClock(engine, onWait);
  runtime = await createConsoleRuntime({ userDataDir: join(dir, `${name}-console`), transport: 'browser', allowLive: false, version: 'test', engine: false, clock, client: { now: Date.now, retry: { attempts: 1 } } });
  await activateEngineProfile(runtime, engine.api.url, 'Rate limited', engine);
  return { engine, runtime };
}

/** The Overview of today (the console's time zone) as the screen asks for it. */
async function todayFigures(handlers: ConsoleRuntime['handlers']) {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const boundaries = Array.from({ length: OVERVIEW_DAYS + 1 }, (_, i) => new Date(start.getTime() + (i - OVERVIEW_DAYS + 1) * 86_400_000).toISOString());
  return expectOk(await handlers['overview:get']({ dayBoundaries: boundaries })).today;
}

/** History tells what the engine holds: one entry per transaction, none rejected, a 429 only inside a paid entry's timeline. */
async function expectHistoryAgreesWithEngine(handlers: ConsoleRuntime['handlers'], engineRows: { external_id: string; amount: number }[]) {
  const history = expectOk(await handlers['transactions:search']({ query: { kind: 'payout' }, offset: 0, limit: 100 }));
  expect(history.total).toBe(engineRows.length);
  expect(history.rows.map((row) => row.externalId).sort()).toEqual(engineRows.map((row) => row.external_id).sort());
  expect(history.rows.filter((row) => row.state !== 'known')).toEqual([]);
  let limited = 0;
  for (const row of history.rows) {
    const { timeline } = expectOk(await handlers['transactions:get']({ journalId: row.id }));
    const refusals = timeline.filter((event) => event.httpStatus === 429);
    limited += refusals.length;
    // The 429 came before the answer that created the transaction.
    for (const refusal of refusals) expect(timeline.some((event) => event.type === 'response' && event.httpStatus === 200 && event.id > refusal.id)).toBe(true);
  }
  const today = await todayFigures(handlers);
  expect(today.total.count).toBe(engineRows.length);
  expect(today.total.amounts).toEqual([{ currency: 'XAF', amount: engineRows.reduce((sum, row) => sum + row.amount, 0) }]);
  return limited;
}

it('lists one entry per row, none rejected for a paid row, the 429 in its timeline, and the Overview counts the engine\'s transactions', async () => {
  const { engine, runtime } = await rateLimited('one-batch');
  // 20 rows at 5 a minute: at most 5 POSTs of the first window pass, so the limit bites whatever the timing.
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'rate.csv', text: batchCsv(ROWS, { phone: () => '+237650000001', tag: 'rate' }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  const done = batchReaches(runtime, batch.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: batch.id, confirmationToken, concurrency: 4 }));
  expect((await done).state).toBe('done');

  const engineRows = engineInternals(engine).db.prepare('SELECT external_id, amount, status FROM transactions WHERE external_id LIKE ?').all(`${batch.id}-%`) as { external_id: string; amount: number; status: string }[];
  expect(engineRows).toHaveLength(ROWS);
  expect(await expectHistoryAgreesWithEngine(runtime.handlers, engineRows)).toBeGreaterThan(0);
  // Each row is its transaction.
  const detail = await withRows(runtime.handlers, batch.id);
  expect(detail.rows.map((row) => row.state)).toEqual(Array(ROWS).fill('accepted'));
}, 60_000);

it('keeps a row cancelled during its 429 wait and sent by a later batch with the same external id as one entry, the 429 in its timeline', async () => {
  const text = [BATCH_HEADER, ...Array.from({ length: ROWS }, (_, i) => `+237650000001,${1000 + i},Awa,Prime,a@example.com,December,PRIME-DEC-${String(i + 1).padStart(3, '0')}`)].join('\n');
  let cancel: (() => void) | null = null;
  const { engine, runtime } = await rateLimited('cancelled', (ms) => {
    // The first wait the service asked for: the user cancels while rows wait to be sent again.
    if (ms >= 1000 && cancel) {
      cancel();
      cancel = null;
    }
  });
  const first = expectOk(await runtime.handlers['batches:import']({ fileName: 'prime.csv', text, paymentMethod: 'momo_cm' })).batch;
  const firstToken = expectOk(await runtime.handlers['batches:prepare']({ batchId: first.id })).confirmationToken;
  cancel = () => void runtime.handlers['batches:cancel']({ batchId: first.id });
  const cancelled = batchReaches(runtime, first.id, ['cancelled']);
  expectOk(await runtime.handlers['batches:start']({ batchId: first.id, confirmationToken: firstToken, concurrency: 4 }));
  await cancelled;
  const firstRows = (await withRows(runtime.handlers, first.id)).rows;
  const waited = firstRows.filter((row) => row.state === 'not_sent' && row.journalId !== null);
  // Rows that met the 429 and waited: written, refused, never created.
  expect(waited.length).toBeGreaterThan(0);

  // The rows that never got a transaction, in a file of their own, sent by a second batch with the same external ids.
  const unsent = firstRows.filter((row) => row.state === 'not_sent');
  const again = [BATCH_HEADER, ...unsent.map((row) => `+237650000001,${row.values.amount},Awa,Prime,a@example.com,December,${row.values.external_id}`)].join('\n');
  const second = expectOk(await runtime.handlers['batches:import']({ fileName: 'prime-rest.csv', text: again, paymentMethod: 'momo_cm' })).batch;
  const secondToken = expectOk(await runtime.handlers['batches:prepare']({ batchId: second.id, acceptDuplicateFile: true })).confirmationToken;
  const done = batchReaches(runtime, second.id, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:start']({ batchId: second.id, confirmationToken: secondToken, concurrency: 4 }));
  expect((await done).state).toBe('done');

  const engineRows = engineInternals(engine).db.prepare("SELECT external_id, amount FROM transactions WHERE external_id LIKE 'PRIME-DEC-%'").all() as { external_id: string; amount: number }[];
  expect(engineRows).toHaveLength(ROWS);
  await expectHistoryAgreesWithEngine(runtime.handlers, engineRows);
  // A row that waited out its 429 in the first batch: its one entry shows that 429, then the second batch's send.
  const waitedRow = expectOk(await runtime.handlers['transactions:get']({ journalId: waited[0]!.journalId! }));
  expect(waitedRow.transaction.state).toBe('known');
  expect(waitedRow.timeline.some((event) => event.httpStatus === 429)).toBe(true);
  // Both batches name the row by its transaction.
  for (const batchId of [first.id, second.id]) {
    const row = (await withRows(runtime.handlers, batchId)).rows.find((candidate) => candidate.values.external_id === waited[0]!.values.external_id)!;
    expect(row.journalId).toBe(waited[0]!.journalId);
    expect(row.state).toBe('accepted');
  }
}, 60_000);
