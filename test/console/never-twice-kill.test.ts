/**
 * Never paid twice when the console dies (issue 23 review): a retry batch sent by a child process
 * killed mid-row, a new console on the same user-data folder (its start-up sweep running while
 * other retry drafts of the same rows wait), Resume, and the original's failed rows retried again.
 * The real engine (a file database) behind a proxy; the journal a real SQLite file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { batchReaches, until, withRows } from './batch-helpers';
import { expectFail, expectOk, tempDir, virtualClock } from './helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';
import { engineRows, expectNeverTwice, FAILING, file } from './never-twice-helpers';

describe('a retry killed mid-row, the start-up sweep with another retry draft waiting, Resume, retry again', () => {
  const dir = tempDir('paydesk-never-twice-kill-');
  let engine: EngineHandle | undefined;
  let gate: GateProxy | undefined;
  let child: ChildProcess | undefined;
  let desk: ConsoleRuntime | undefined;
  afterAll(async () => {
    child?.kill('SIGKILL');
    await desk?.close();
    await gate?.close();
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const open = () => createConsoleRuntime({ userDataDir: join(dir, 'console'), transport: 'browser', allowLive: false, version: 'test', engine: false, clock: virtualClock(), client: { now: Date.now, retry: { attempts: 1 } } });
  const sendOn = async (batchId: string, options: { acceptDuplicateFile?: true } = {}) => {
    const { confirmationToken } = expectOk(await desk!.handlers['batches:prepare']({ batchId, ...options }));
    const stopped = batchReaches(desk!, batchId, ['done', 'interrupted', 'cancelled']);
    expectOk(await desk!.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    const progress = await stopped;
    await settled(batchId);
    return progress;
  };
  const settled = (batchId: string) =>
    until(desk!, ['transaction:changed', 'batch:progress'], () => {
      const { counts } = countRows(desk!.journal, batchId);
      return counts.processing === 0 && counts.unknown === 0;
    });

  it('pays the retried row once, never retries it again, and the waiting draft adopts it', async () => {
    engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, variants: ['duplicates-accepted'] /* only the journal keeps a row from being paid twice */ });
    gate = await startGateProxy(engine.api.url);
    const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
    desk = await open();
    const profile = expectOk(
      await desk.handlers['profiles:save']({
        name: 'Killed retry',
        baseUrl: gate.url,
        environment: 'sandbox',
        headerWord: 'SVC',
        paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
        payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
      }),
    );
    for (const key of keys) expectOk(await desk.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
    expectOk(await desk.handlers['profiles:activate']({ id: profile.id }));
    // KL-1 and KL-2 fail at the service; their retry is sent by a child process killed while
    // KL-1-r1 is created at the engine but unanswered and KL-2-r1 never left.
    const original = expectOk(await desk.handlers['batches:import']({ fileName: 'kill.csv', text: file(3, 'kill', { ids: (index) => `KL-${index}`, phone: (index) => (index === 0 ? '+237686000001' : FAILING) }), paymentMethod: 'momo_cm' })).batch;
    expect((await sendOn(original.id)).state).toBe('done');
    const retry = expectOk(await desk.handlers['batches:retryFailed']({ batchId: original.id })).batch;
    const waiting = expectOk(await desk.handlers['batches:retryFailed']({ batchId: original.id })).batch;
    for (const batchId of [retry.id, waiting.id]) {
      for (const rowNumber of [3, 4]) expectOk(await desk.handlers['batches:updateRow']({ batchId, rowNumber, values: { phone_number: `+23768600000${rowNumber}` } }));
    }
    await desk.close();
    desk = undefined;

    gate.decide = (request) => (request.externalId === 'KL-1-r1' ? 'forward-then-hang' : 'forward');
    child = spawn(process.execPath, ['--import', 'tsx', 'test/console/fixtures/never-twice-child.ts', join(dir, 'console'), retry.id], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
    await gate.waitFor((request) => request.externalId === 'KL-1-r1');
    await until_(() => engineRows(engine!).some((row) => row.external_id === 'KL-1-r1'));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    gate.decide = () => 'forward';

    desk = await open();
    // The start-up sweep with the waiting drafts there: the original offers only KL-2 (its retry
    // never left), under the same derived id, never KL-1 while KL-1-r1 may exist.
    const third = await withRows(desk.handlers, expectOk(await desk.handlers['batches:retryFailed']({ batchId: original.id })));
    expect(third.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['KL-2-r1', 'KL-2']]);
    const resumed = batchReaches(desk, retry.id, ['done', 'interrupted', 'cancelled']);
    if ((await withRows(desk.handlers, retry.id)).batch.state === 'interrupted') expectOk(await desk.handlers['batches:resume']({ batchId: retry.id }));
    expect((await resumed).state).toBe('done');
    await settled(retry.id);
    const rows = (await withRows(desk.handlers, retry.id)).rows;
    expect(rows.map((row) => [row.externalId, row.status])).toEqual([['KL-1-r1', 'completed'], ['KL-2-r1', 'completed']]);
    expect(gate.seen.filter((request) => request.method === 'POST' && request.externalId === 'KL-1-r1')).toHaveLength(1);
    expectFail(await desk.handlers['batches:retryFailed']({ batchId: original.id }), 'CONFLICT');
    expectFail(await desk.handlers['batches:retryFailed']({ batchId: retry.id }), 'CONFLICT');
    await sendOn(waiting.id, { acceptDuplicateFile: true });
    expect((await withRows(desk.handlers, waiting.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true, true]);
    expectOk(await desk.handlers['batches:updateRow']({ batchId: third.batch.id, rowNumber: 4, values: { phone_number: '+237686000004' } }));
    await sendOn(third.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(desk.handlers, third.batch.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true]);
    await expectNeverTwice(desk, engine);
  }, 120_000);
});

/** Polls the engine's file (it is written by this process; no time is asserted). */
async function until_(check: () => boolean) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
