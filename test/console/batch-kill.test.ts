/**
 * The crash test: a console runtime in a child process sends a batch through a proxy to an
 * engine in this process (a file database); the child is SIGKILLed mid-batch with one row created
 * at the engine but unanswered and one row lost on the way. A new runtime on the same user-data
 * folder shows the batch interrupted; Resume looks the unknown rows up by external id, and the
 * engine ends with exactly one transaction per row.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { expectOk, tempDir, virtualClock } from './helpers';
import { batchReaches, withRows } from './batch-helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';
import { engineInternals } from '../../packages/sandbox/src/internals';

const ROWS = 60;
const dir = tempDir('paydesk-batch-kill-');
let engine: EngineHandle | undefined;
let proxy: GateProxy | undefined;
let child: ChildProcess | undefined;
let runtime: ConsoleRuntime | undefined;

afterAll(async () => {
  child?.kill('SIGKILL');
  await runtime?.close();
  await proxy?.close();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('never pays a row twice when the console is killed mid-batch: interrupted on restart, unknown rows looked up, one engine transaction per row', async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, variants: ['duplicates-accepted'] /* only the journal keeps a row from being paid twice */ });
  proxy = await startGateProxy(engine.api.url);
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  let batchId = '';
  // Row 20 reaches the engine but its answer never comes back; row 21 never reaches the engine.
  proxy.decide = (request) => (request.externalId === `${batchId}-20` ? 'forward-then-hang' : request.externalId === `${batchId}-21` ? 'hang' : 'forward');

  const userData = join(dir, 'console');
  // node itself with tsx as a loader: the tsx CLI would run the script in a grandchild that SIGKILL misses.
  child = spawn(process.execPath, ['--import', 'tsx', 'test/console/fixtures/batch-kill-child.ts', userData, proxy.url, String(ROWS)], {
    env: { ...process.env, PAYDESK_TEST_KEYS: JSON.stringify(keys) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
  const started = new Promise<string>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).on('line', (line) => {
      const event = JSON.parse(line) as { event: string; batchId?: string; message?: string };
      if (event.event === 'started') resolve(event.batchId!);
      if (event.event === 'error') reject(new Error(event.message));
    });
  });
  batchId = await started;
  const posts = () => proxy!.seen.filter((request) => request.method === 'POST' && request.externalId?.startsWith(`${batchId}-`));
  await proxy.waitFor((request) => request.externalId === `${batchId}-20`);
  await proxy.waitFor((request) => request.externalId === `${batchId}-21`);
  await proxy.waitFor(() => posts().length >= 35);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  const postsBeforeKill = posts().length;
  expect(postsBeforeKill).toBeLessThan(ROWS);
  proxy.decide = () => 'forward';

  runtime = await createConsoleRuntime({ userDataDir: userData, transport: 'browser', allowLive: false, version: 'test', engine: false, clock: virtualClock(), client: { now: Date.now, retry: { attempts: 1 } } });
  const info = expectOk(await runtime.handlers['app:info']({}));
  expect(info.notices?.map((notice) => notice.code)).toContain('BATCH_INTERRUPTED');
  const interrupted = await withRows(runtime.handlers, batchId);
  expect(interrupted.batch.state).toBe('interrupted');
  const byRow = new Map(interrupted.rows.map((row) => [row.rowNumber, row]));
  expect(byRow.get(20)!.state).toBe('unknown');
  expect(byRow.get(21)!.state).toBe('unknown');
  expect(interrupted.batch.counts.notSent).toBeGreaterThan(0);

  const done = batchReaches(runtime, batchId, ['done', 'interrupted', 'cancelled']);
  expectOk(await runtime.handlers['batches:resume']({ batchId }));
  const ended = await done;
  expect(ended.state).toBe('done');

  const postsOf = (row: number) => proxy!.seen.filter((request) => request.method === 'POST' && request.externalId === `${batchId}-${row}`).length;
  expect(postsOf(20)).toBe(1); // created before the kill: found by its external id, never sent again
  expect(postsOf(21)).toBe(2); // lost before the kill: not found, sent again with the same id
  const final = await withRows(runtime.handlers, batchId);
  expect(final.batch.counts).toMatchObject({ accepted: ROWS, unknown: 0, notSent: 0, rejected: 0 });
  const counts = engineInternals(engine).db.prepare(`SELECT external_id, COUNT(*) AS n FROM transactions WHERE external_id LIKE ? GROUP BY external_id`).all(`${batchId}-%`) as { external_id: string; n: number }[];
  expect(counts).toHaveLength(ROWS);
  expect(counts.every((row) => row.n === 1)).toBe(true);
  expect(new Set(counts.map((row) => row.external_id))).toEqual(new Set(final.rows.map((row) => row.externalId)));
}, 120_000);
