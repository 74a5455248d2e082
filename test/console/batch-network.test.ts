/**
 * Sending a batch through a proxy in front of the real engine, on a saved (keychain) profile:
 * 429 Retry-After is waited out, Pause and Cancel stop between rows, a lost connection interrupts
 * the batch and Resume looks the unknown rows up by external id before sending anything again,
 * and the failed rows are retried under ids derived from theirs after a second confirmation.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/api';
import { countRows } from '../../electron/console/batch/store';
import { expectFail, expectOk, startRuntime, virtualClock } from './helpers';
import { batchCsv, batchReaches, until, withRows } from './batch-helpers';
import { RATE_LIMITED, SERVER_ERROR, startGateProxy, type GateProxy } from './gate-proxy';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { engineInternals } from '../../packages/sandbox/src/internals';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
let proxy: GateProxy;
let profileInput: ProfileInput;
/** What happened, in order: requests at the proxy and the console's waits. */
const log: string[] = [];
/** Called at the start of each of the console's waits (a test pauses or cancels there). */
let onSleep: ((ms: number) => Promise<void>) | null = null;

beforeAll(async () => {
  const clock = virtualClock();
  const sleep = clock.sleep.bind(clock);
  clock.sleep = async (ms, signal) => {
    log.push(`sleep ${ms}`);
    if (onSleep) await onSleep(ms);
    return sleep(ms, signal);
  };
  runtime = await startRuntime({ clock, engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  proxy = await startGateProxy(runtime.engineUrl!);
  const decide = proxy.decide;
  proxy.decide = (request) => {
    if (request.method === 'POST') log.push(`POST ${request.externalId}`);
    return decide(request);
  };
  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  profileInput = {
    name: 'Finance through a proxy',
    baseUrl: proxy.url,
    environment: 'sandbox',
    headerWord: 'SVC',
    paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
    payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
  };
  const profile = expectOk(await runtime.handlers['profiles:save'](profileInput));
  profileInput.id = profile.id;
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

/** Imports and confirms a batch of `count` rows that complete; returns its id and token. */
async function confirmed(count: number, tag: string, phone: (index: number) => string = () => '+237650000001') {
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: `${tag}.csv`, text: batchCsv(count, { phone, tag }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  return { batchId: batch.id, confirmationToken };
}

function engineCount(externalId: string): number {
  return (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;
}

/** The proxy answers the first POST of `externalId` with a 429 asking to wait `seconds`, and forwards the rest. */
function throttleOnce(externalId: string, seconds: number): void {
  let throttled = false;
  proxy.decide = (request) => {
    if (request.externalId === externalId && !throttled) {
      throttled = true;
      return RATE_LIMITED(seconds);
    }
    return 'forward';
  };
}

const postsFor = (externalId: string) => proxy.seen.filter((request) => request.method === 'POST' && request.externalId === externalId).length;

describe('a batch on a flaky service', () => {
  it('waits out a 429 for its Retry-After before sending that row again, and sends nothing meanwhile', async () => {
    const { batchId, confirmationToken } = await confirmed(5, 'throttled');
    let throttled = false;
    proxy.decide = (request) => {
      if (request.method === 'POST') log.push(`POST ${request.externalId}`);
      if (request.externalId === `${batchId}-3` && !throttled) {
        throttled = true;
        return RATE_LIMITED(7);
      }
      return 'forward';
    };
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect((await done).state).toBe('done');
    // Between the 429 and the same row again: one wait of the Retry-After (less the milliseconds
    // of wall time already gone by), and no POST at all.
    const mine = log.filter((line) => line.includes(batchId) || line.startsWith('sleep'));
    const first = mine.indexOf(`POST ${batchId}-3`);
    const second = mine.indexOf(`POST ${batchId}-3`, first + 1);
    const between = mine.slice(first + 1, second);
    expect(between).toHaveLength(1);
    expect(Number(between[0]!.replace('sleep ', ''))).toBeGreaterThan(6000);
    expect(Number(between[0]!.replace('sleep ', ''))).toBeLessThanOrEqual(7000);
    expect(engineCount(`${batchId}-3`)).toBe(1);
    const detail = await withRows(runtime.handlers, batchId);
    expect(detail.batch.counts).toMatchObject({ accepted: 5, unknown: 0, rejected: 0 });
    const timeline = expectOk(await runtime.handlers['transactions:get']({ journalId: detail.rows[1]!.journalId! })).timeline;
    expect(timeline.map((event) => event.type).reverse()).toEqual(['request_sent', 'api_error', 'request_sent', 'response', ...timeline.slice(0, -4).map((event) => event.type).reverse()]);
    expect(timeline.find((event) => event.type === 'api_error')).toMatchObject({ httpStatus: 429, code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('pauses after the row in flight, sends nothing more until Resume, then finishes with each row once', async () => {
    const { batchId, confirmationToken } = await confirmed(8, 'paused');
    proxy.decide = (request) => {
      // Pause arrives while row 4 is on the wire.
      if (request.externalId === `${batchId}-4`) void runtime.handlers['batches:pause']({ batchId });
      return 'forward';
    };
    const paused = batchReaches(runtime, batchId, ['paused']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await paused).toMatchObject({ state: 'paused', accepted: 3, remaining: 5 });
    expect(postsFor(`${batchId}-5`)).toBe(0);
    expectFail(await runtime.handlers['batches:pause']({ batchId }), 'CONFLICT');

    proxy.decide = () => 'forward';
    const done = batchReaches(runtime, batchId, ['done']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect(await done).toMatchObject({ accepted: 8, remaining: 0 });
    for (let row = 2; row <= 9; row += 1) expect(engineCount(`${batchId}-${row}`)).toBe(1);
  });

  it('cancels the rows not yet sent; they stay not sent', async () => {
    const { batchId, confirmationToken } = await confirmed(6, 'cancelled');
    proxy.decide = (request) => {
      if (request.externalId === `${batchId}-3`) void runtime.handlers['batches:cancel']({ batchId });
      return 'forward';
    };
    const cancelled = batchReaches(runtime, batchId, ['cancelled']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await cancelled).toMatchObject({ accepted: 2, remaining: 4 });
    const detail = await withRows(runtime.handlers, batchId);
    expect(detail.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'not_sent', 'not_sent', 'not_sent', 'not_sent']);
    expect(detail.batch.stateReason).toBe('Cancelled: 4 row(s) were not sent.');
    expectFail(await runtime.handlers['batches:resume']({ batchId }), 'CONFLICT');
    expect(postsFor(`${batchId}-4`)).toBe(0);
  });

  it('stops on a lost connection; Resume finds the created row by its external id and resends only the one that never arrived', async () => {
    const { batchId, confirmationToken } = await confirmed(6, 'lost');
    proxy.decide = (request) => (request.externalId === `${batchId}-3` ? 'forward-then-reset' : 'forward');
    const interrupted = batchReaches(runtime, batchId, ['interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await interrupted).toMatchObject({ unknown: 1, remaining: 4 });
    const stopped = await withRows(runtime.handlers, batchId);
    expect(stopped.batch.stateReason).toMatch(/connection to the service failed/);
    expect(stopped.rows[1]).toMatchObject({ state: 'unknown', externalId: `${batchId}-3` });

    // On resume, row 5 is dropped on the way (never reaches the engine).
    let dropped = false;
    proxy.decide = (request) => {
      if (request.externalId === `${batchId}-5` && !dropped) {
        dropped = true;
        return 'reset';
      }
      return 'forward';
    };
    const again = batchReaches(runtime, batchId, ['interrupted', 'done']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect((await again).state).toBe('interrupted');
    proxy.decide = () => 'forward';
    const done = batchReaches(runtime, batchId, ['done']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect(await done).toMatchObject({ accepted: 6, unknown: 0, remaining: 0 });

    expect(postsFor(`${batchId}-3`)).toBe(1); // found by its external id: never sent again
    expect(postsFor(`${batchId}-5`)).toBe(2); // not found: sent again, same external id
    for (let row = 2; row <= 7; row += 1) expect(engineCount(`${batchId}-${row}`)).toBe(1);
    const row3 = expectOk(await runtime.handlers['transactions:get']({ journalId: stopped.rows[1]!.journalId! }));
    // Found by the follow-up at the interruption, or by the Resume's own lookup: never sent again.
    expect(row3.timeline.some((event) => /found by its external id/.test(event.message ?? ''))).toBe(true);
  });

  it('retries only the failed rows, under ids derived from theirs, after a second confirmation', async () => {
    const phones = ['+237650000001', '+237650000002', '+237650000009', '+237650000001'];
    const { batchId, confirmationToken } = await confirmed(4, 'retry', (index) => phones[index]!);
    const done = batchReaches(runtime, batchId, ['done']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken }));
    await done;
    await until(runtime, ['transaction:changed', 'batch:progress'], () => countRows(runtime.journal, batchId).counts.processing === 0);
    const sent = await withRows(runtime.handlers, batchId);
    expect(sent.rows.map((row) => [row.status, row.failedCode])).toEqual([['completed', null], ['failed', 'PAYER_NOT_FOUND'], ['cancelled', null], ['completed', null]]);

    const retry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId })));
    expect(retry.batch).toMatchObject({ state: 'draft', retryOf: batchId });
    expect(retry.rows.map((row) => row.rowNumber)).toEqual([3, 4]);
    // Both transactions exist and ended failed/cancelled: new ids, derived from theirs and linked to them.
    expect(retry.rows.map((row) => [row.externalId, row.retryOf])).toEqual([[`${batchId}-3-r1`, `${batchId}-3`], [`${batchId}-4-r1`, `${batchId}-4`]]);
    // The first confirmation does not start the retry.
    expectFail(await runtime.handlers['batches:start']({ batchId: retry.batch.id, confirmationToken }), 'CONFIRMATION_REQUIRED');
    const second = expectOk(await runtime.handlers['batches:prepare']({ batchId: retry.batch.id }));
    const retried = batchReaches(runtime, retry.batch.id, ['done']);
    expectOk(await runtime.handlers['batches:start']({ batchId: retry.batch.id, confirmationToken: second.confirmationToken }));
    expect(await retried).toMatchObject({ accepted: 2 });
    expect(engineCount(`${batchId}-3-r1`)).toBe(1);
    expect(engineCount(`${batchId}-3`)).toBe(1);
  });

  it('rehearses on the local engine without one request to the profile\'s service', async () => {
    const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'rehearsed.csv', text: batchCsv(4, { tag: 'rehearsed' }), paymentMethod: 'momo_cm' }));
    proxy.decide = () => 'forward';
    const before = proxy.seen.length;
    const summary = expectOk(await runtime.handlers['batches:rehearse']({ batchId: batch.id }));
    expect(summary).toMatchObject({ rows: 4, accepted: 4 });
    // (An earlier batch's follow-up may still read statuses through the proxy: GETs by transaction id.)
    expect(proxy.seen.slice(before).filter((request) => request.method !== 'GET' || request.path.includes(batch.id))).toEqual([]);
    // Nor one to the local sandbox: a throwaway copy of it answered (test/console/rehearsal-isolated.test.ts).
    expect(engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id LIKE ?').get(`%${batch.id}-%`)).toEqual({ n: 0 });
  });

  it('asks for the batch total typed on a live profile before it issues a confirmation', async () => {
    // Keys of this test's own (the keychain is shared with other test files running at the same time).
    const live = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Live payroll',
        baseUrl: proxy.url,
        environment: 'live',
        headerWord: 'SVC',
        paymentPublicKey: 'pk_live_payment_batchtest01',
        payoutPublicKey: 'pk_live_payout_batchtest01',
      }),
    );
    expectOk(await runtime.handlers['secrets:set']({ profileId: live.id, keyType: 'payout', secret: 'sk_live_payout_batchtest01_secret' }));
    const previous = expectOk(await runtime.handlers['profiles:list']({})).activeId;
    expectOk(await runtime.handlers['profiles:activate']({ id: live.id }));
    try {
      const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'live.csv', text: batchCsv(3, { phone: () => '+237650000001', tag: 'live' }), paymentMethod: 'momo_cm' }));
      // Fees are not known in advance on a service other than the local sandbox: the total is the amounts.
      const preview = expectOk(await runtime.handlers['batches:preview']({ batchId: batch.id }));
      expect(preview).toMatchObject({ environment: 'live', feesKnown: false, totalFees: null, totalDebit: 100 + 101 + 102 });
      expect(expectFail(await runtime.handlers['batches:prepare']({ batchId: batch.id }), 'CONFIRMATION_REQUIRED').fields?.typedTotal).toEqual(['is required for a live batch']);
      expect(expectFail(await runtime.handlers['batches:prepare']({ batchId: batch.id, typedTotal: 300 }), 'CONFIRMATION_REQUIRED').fields?.typedTotal).toEqual(['does not match the total']);
      const confirmation = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id, typedTotal: 303 }));
      expect(confirmation).toMatchObject({ environment: 'live', profileName: 'Live payroll', count: 3 });
    } finally {
      expectOk(await runtime.handlers['profiles:activate']({ id: previous }));
      expectOk(await runtime.handlers['profiles:delete']({ id: live.id }));
    }
  });
});

describe('what a pause, a cancel or a 5xx must not undo (issue 15)', () => {
  const rowStates = async (batchId: string) => (await withRows(runtime.handlers, batchId)).rows.map((row) => row.state);
  const journalState = (batchId: string) => {
    // A second connection, as the next start would read the file after a kill -9.
    const db = new Database(join(runtime.dir, 'journal.db'), { readonly: true });
    try {
      return (db.prepare('SELECT state FROM batches WHERE id = ?').get(batchId) as { state: string }).state;
    } finally {
      db.close();
    }
  };

  it('records a 500 after a POST as a server error with an unknown outcome, looks the row up, and never counts it refused', async () => {
    const { batchId, confirmationToken } = await confirmed(4, 'five-hundred');
    const answered = new Set<string>();
    proxy.decide = (request) => {
      // Row 3: the engine created it, then a 500 came back; row 4: a 500 before anything was created.
      if (request.method === 'POST' && !answered.has(request.externalId!) && (request.externalId === `${batchId}-3` || request.externalId === `${batchId}-4`)) {
        answered.add(request.externalId!);
        return SERVER_ERROR({ forward: request.externalId === `${batchId}-3` });
      }
      return 'forward';
    };
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect((await done).state).toBe('done');
    const detail = await withRows(runtime.handlers, batchId);
    expect(detail.batch.counts).toMatchObject({ accepted: 4, rejected: 0, unknown: 0 });
    expect(postsFor(`${batchId}-3`)).toBe(1); // found by its external id: never sent again
    expect(postsFor(`${batchId}-4`)).toBe(2); // not found: sent again with the same external id
    expect(engineCount(`${batchId}-3`)).toBe(1);
    expect(engineCount(`${batchId}-4`)).toBe(1);
    for (const row of detail.rows.slice(1, 3)) {
      const timeline = expectOk(await runtime.handlers['transactions:get']({ journalId: row.journalId! })).timeline;
      expect(timeline.find((event) => event.type === 'api_error')).toMatchObject({ httpStatus: 500, code: 'INTERNAL_SERVER_ERROR', outcome: 'unknown' });
      expect(timeline.some((event) => event.type === 'transport_failure')).toBe(false);
    }
  });

  it('sends nothing more when paused during a Retry-After wait; the rows caught are not sent, then sent once on Resume', async () => {
    const { batchId, confirmationToken } = await confirmed(6, 'pause-wait');
    throttleOnce(`${batchId}-3`, 30);
    onSleep = async (ms) => {
      if (ms < 1000) return;
      onSleep = null;
      expectOk(await runtime.handlers['batches:pause']({ batchId }));
    };
    const paused = batchReaches(runtime, batchId, ['paused']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await paused).toMatchObject({ state: 'paused', accepted: 1, remaining: 5, unknown: 0 });
    expect(await rowStates(batchId)).toEqual(['accepted', 'not_sent', 'not_sent', 'not_sent', 'not_sent', 'not_sent']);
    expect(postsFor(`${batchId}-4`)).toBe(0);
    const summary = (await withRows(runtime.handlers, batchId)).batch;
    expect(summary.counts.pending).toBe(0);

    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect(await done).toMatchObject({ state: 'done', accepted: 6, remaining: 0 });
    for (let row = 2; row <= 7; row += 1) expect(engineCount(`${batchId}-${row}`)).toBe(1);
  });

  it('writes a Cancel before it answers, so a kill right after cannot bring the rows back; then Pause is refused', async () => {
    const { batchId, confirmationToken } = await confirmed(6, 'cancel-wait');
    throttleOnce(`${batchId}-3`, 30);
    let stateAtCancel = '';
    onSleep = async (ms) => {
      if (ms < 1000) return;
      onSleep = null;
      expectOk(await runtime.handlers['batches:cancel']({ batchId }));
      stateAtCancel = journalState(batchId);
    };
    const cancelled = batchReaches(runtime, batchId, ['cancelled']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await cancelled).toMatchObject({ state: 'cancelled', accepted: 1, remaining: 5 });
    expect(stateAtCancel).toBe('cancelled');
    expectFail(await runtime.handlers['batches:pause']({ batchId }), 'CONFLICT');
    expectFail(await runtime.handlers['batches:resume']({ batchId }), 'CONFLICT');
    expect(journalState(batchId)).toBe('cancelled');
    expect(postsFor(`${batchId}-3`)).toBe(1);
    expect(postsFor(`${batchId}-4`)).toBe(0);
    expect((await withRows(runtime.handlers, batchId)).batch.stateReason).toBe('Cancelled: 5 row(s) were not sent.');
  });

  it('looks up the unknown rows of a cancelled batch: one the service never had is counted not sent, never sent again', async () => {
    const { batchId, confirmationToken } = await confirmed(5, 'cancel-unknown');
    proxy.decide = (request) => (request.externalId === `${batchId}-3` ? 'reset' : 'forward');
    const interrupted = batchReaches(runtime, batchId, ['interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    await interrupted;
    proxy.decide = () => 'forward';
    expectOk(await runtime.handlers['batches:cancel']({ batchId }));
    await until(runtime, ['batch:progress', 'transaction:changed'], () => countRows(runtime.journal, batchId).counts.unknown === 0);
    await runtime.followUpsIdle();
    const detail = await withRows(runtime.handlers, batchId);
    expect(detail.batch.state).toBe('cancelled');
    expect(detail.rows.map((row) => row.state)).toEqual(['accepted', 'not_sent', 'not_sent', 'not_sent', 'not_sent']);
    expect(detail.batch.counts).toMatchObject({ notSent: 4, unknown: 0, rejected: 0 });
    const timeline = expectOk(await runtime.handlers['transactions:get']({ journalId: detail.rows[1]!.journalId! })).timeline;
    expect(timeline.some((event) => event.code === 'NOT_FOUND')).toBe(true);
    expect(postsFor(`${batchId}-3`)).toBe(1);
    expect(engineCount(`${batchId}-3`)).toBe(0);
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId }), 'CONFLICT');
  });

  it('keeps a batch out of done while one row is still unknown after the last round of look-ups', async () => {
    const { batchId, confirmationToken } = await confirmed(4, 'still-unknown');
    proxy.decide = (request) => {
      if (request.externalId === `${batchId}-3`) return SERVER_ERROR({ forward: false });
      // Every look-up of that row fails too: its outcome cannot be known.
      if (request.method === 'GET' && request.path.includes(`${batchId}-3`)) return SERVER_ERROR({ forward: false });
      return 'forward';
    };
    const ended = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    const progress = await ended;
    expect(progress).toMatchObject({ state: 'interrupted', unknown: 1, settled: false });
    const detail = await withRows(runtime.handlers, batchId);
    expect(detail.batch.stateReason).toMatch(/unknown outcome after 3 look-ups/);
    expect(postsFor(`${batchId}-3`)).toBe(1); // never sent again while unknown
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId }), 'CONFLICT');
    proxy.decide = () => 'forward';
  });

  it('sends on Resume a row the connection refused before sending, and never shows it refused', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    expectOk(await runtime.handlers['profiles:save']({ ...profileInput, baseUrl: `http://127.0.0.1:${closed}` }));
    try {
      const { batchId, confirmationToken } = await confirmed(3, 'refused-connection');
      const interrupted = batchReaches(runtime, batchId, ['interrupted', 'done']);
      expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
      expect(await interrupted).toMatchObject({ state: 'interrupted', failed: 0, unknown: 0, remaining: 3 });
      const detail = await withRows(runtime.handlers, batchId);
      expect(detail.rows.map((row) => row.state)).toEqual(['not_sent', 'not_sent', 'not_sent']);
      expect(detail.batch.counts.rejected).toBe(0);

      expectOk(await runtime.handlers['profiles:save'](profileInput));
      const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
      expectOk(await runtime.handlers['batches:resume']({ batchId }));
      expect(await done).toMatchObject({ state: 'done', accepted: 3, failed: 0 });
      for (let row = 2; row <= 4; row += 1) expect(engineCount(`${batchId}-${row}`)).toBe(1);
    } finally {
      expectOk(await runtime.handlers['profiles:save'](profileInput));
    }
  });
});
