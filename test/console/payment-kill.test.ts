/**
 * A single payment is written to the journal before its POST leaves (issue 15): a console in a
 * child process sends one payment through a proxy that lets the engine create it and holds the
 * answer; at that moment the journal file already holds the entry as pending. The child is
 * SIGKILLed; the next start shows it outcome unknown, a lookup by its external id finds it, and it
 * is never sent twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { expectFail, expectOk, tempDir, virtualClock } from './helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';
import { engineInternals } from '../../packages/sandbox/src/internals';

const dir = tempDir('paydesk-payment-kill-');
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

it('finds a payment whose answer never came after a kill -9, as outcome unknown, and never sends it twice', async () => {
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 } });
  proxy = await startGateProxy(engine.api.url);
  const externalId = `PAY-kill-${Date.now()}`;
  proxy.decide = (request) => (request.externalId === externalId ? 'forward-then-hang' : 'forward');
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const userData = join(dir, 'console');
  child = spawn(process.execPath, ['--import', 'tsx', 'test/console/fixtures/batch-kill-child.ts', userData, proxy.url, `payment:${externalId}`], {
    env: { ...process.env, PAYDESK_TEST_KEYS: JSON.stringify(keys) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const event = JSON.parse(line) as { event: string; message?: string };
    if (event.event === 'error') throw new Error(event.message);
  });

  // The engine has created it and the answer is held: the entry must already be on disk.
  await proxy.waitFor((request) => request.externalId === externalId);
  const journal = new Database(join(userData, 'journal.db'), { readonly: true });
  const onDisk = journal.prepare('SELECT state FROM entries WHERE external_id = ?').all(externalId) as { state: string }[];
  journal.close();
  expect(onDisk).toEqual([{ state: 'pending' }]);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');

  runtime = await createConsoleRuntime({ userDataDir: userData, transport: 'browser', allowLive: false, version: 'test', engine: false, clock: virtualClock(), client: { now: Date.now, retry: { attempts: 1 } } });
  proxy.decide = () => 'forward';
  const found = expectOk(await runtime.handlers['transactions:search']({ query: { externalId }, offset: 0, limit: 10 }));
  expect(found.rows).toHaveLength(1);
  const entry = found.rows[0]!;
  expect(entry.state).toBe('outcome_unknown');
  expectFail(await runtime.handlers['transactions:resend']({ journalId: entry.id }), 'CONFLICT');
  const resolved = await runtime.handlers['transactions:resolveUnknown']({ journalId: entry.id });
  // The follow-up at start may have found it first; either way it is known now, never sent again.
  if (resolved.ok) expect(resolved.value.exists).toBe(true);
  await runtime.followUpsIdle();
  expect(expectOk(await runtime.handlers['transactions:get']({ journalId: entry.id })).transaction.state).toBe('known');
  const posts = proxy.seen.filter((request) => request.method === 'POST' && request.externalId === externalId);
  expect(posts).toHaveLength(1);
  expect((engineInternals(engine).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n).toBe(1);
}, 60_000);
