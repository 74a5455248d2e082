/**
 * One batch, one run, each row's POST after its journal entry (issue 23, each behaviour held by a
 * mutant run):
 * - the POST leaves only once its pending entry is committed: when each request reaches the
 *   service (the proxy in front of the engine), a SECOND SQLite connection already reads its entry,
 *   and while another connection holds the journal's write lock, no row is sent at all;
 * - two Confirms (one token, or two) or two Resumes at once start one run: each row is POSTed once;
 * - "Retry failed" is refused while a row's outcome is unknown, even when other rows did fail.
 * The real engine behind a gate proxy (./proxied-console.ts).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { expectFail, expectOk, paymentRequest } from './helpers';
import { batchCsv, batchReaches, withRows } from './batch-helpers';
import { SERVER_ERROR } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;
let disk: Database.Database;

beforeAll(async () => {
  s = await startProxiedConsole('paydesk-batch-once-');
  // A second connection to the journal file: it sees only what was committed.
  disk = new Database(join(s.dir, 'console', 'journal.db'), { readonly: true, fileMustExist: true });
});
afterAll(async () => {
  disk?.close();
  await s?.close();
});

async function imported(runtime: ConsoleRuntime, count: number, tag: string): Promise<string> {
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: `${tag}.csv`, text: batchCsv(count, { phone: () => '+237650000001', tag }), paymentMethod: 'momo_cm' }));
  return batch.id;
}

const externalIds = (batchId: string, count: number) => Array.from({ length: count }, (_, index) => `${batchId}-${index + 2}`);

describe('a POST and its journal entry', () => {
  it('reaches the service only once its pending entry is on disk (batch rows and a single payment)', async () => {
    const { runtime } = s;
    const seenOnDisk: string[] = [];
    const entryOnDisk = disk.prepare('SELECT state FROM entries WHERE external_id = ?');
    s.proxy.decide = (request) => {
      if (request.method === 'POST') {
        const entry = entryOnDisk.get(request.externalId) as { state: string } | undefined;
        seenOnDisk.push(`${request.externalId}: ${entry?.state ?? 'absent'}`);
      }
      return 'forward';
    };
    const batchId = await imported(runtime, 24, 'on-disk');
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 4 }));
    expect((await done).state).toBe('done');
    expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-on-disk-1' }) }));
    expect(seenOnDisk.sort()).toEqual([...externalIds(batchId, 24), 'ORDER-on-disk-1'].map((id) => `${id}: pending`).sort());
    s.proxy.decide = () => 'forward';
  });
});

describe('a row whose pending entry cannot be committed', () => {
  it('is not sent: with the journal file locked by another connection, no further POST leaves', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 4, 'locked');
    const [first] = externalIds(batchId, 4);
    const locker = new Database(join(s.dir, 'console', 'journal.db'), { fileMustExist: true });
    // The console's connection gives up at once on a locked file (instead of waiting 5 s).
    runtime.journal.pragma('busy_timeout = 0');
    try {
      s.proxy.decide = (request) => {
        // While the first row is at the service, another connection takes the journal's write lock.
        if (request.method === 'POST' && request.externalId === first) locker.exec('BEGIN IMMEDIATE');
        return 'forward';
      };
      const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
      expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
      // The run ends on the failed write (it cannot even record its end while the file is locked).
      await runtime.batchesIdle();
      // Only the first row left: the second's pending entry could not be committed, so it was never sent.
      expect(s.proxy.seen.filter((request) => request.method === 'POST' && request.externalId?.startsWith(`${batchId}-`)).map((request) => request.externalId)).toEqual([first]);
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
      runtime.journal.pragma('busy_timeout = 5000');
      s.proxy.decide = () => 'forward';
    }
    // Started again, the console finds the batch interrupted: the first row is looked up, the rest sent once.
    const again = await s.restart();
    await again.followUpsIdle();
    const done = batchReaches(again, batchId, ['done', 'interrupted']);
    expectOk(await again.handlers['batches:resume']({ batchId }));
    expect((await done).state).toBe('done');
    for (const externalId of externalIds(batchId, 4)) expect(s.postsFor(externalId), externalId).toBe(1);
  });
});

describe('one run per batch', () => {
  const eachPostedOnce = (batchId: string, count: number) => {
    for (const externalId of externalIds(batchId, count)) {
      expect(s.postsFor(externalId), externalId).toBe(1);
      expect(s.engineCount(externalId), externalId).toBe(1);
    }
  };

  it('starts one run for two Confirms of one token at once', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 6, 'confirm-twice');
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    const results = await Promise.all([
      runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 2 }),
      runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 2 }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.error.code === 'CONFIRMATION_REQUIRED')).toHaveLength(1);
    expect((await done).state).toBe('done');
    eachPostedOnce(batchId, 6);
  });

  it('starts one run for two Confirms with two tokens at once', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 6, 'two-tokens');
    const first = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const second = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    const results = await Promise.all([
      runtime.handlers['batches:start']({ batchId, confirmationToken: first.confirmationToken, concurrency: 2 }),
      runtime.handlers['batches:start']({ batchId, confirmationToken: second.confirmationToken, concurrency: 2 }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.error.code === 'CONFLICT')).toHaveLength(1);
    expect((await done).state).toBe('done');
    eachPostedOnce(batchId, 6);
  });

  it('starts one run for two Resumes at once', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 8, 'resume-twice');
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    // Paused while its first row is at the service, with rows left to send.
    const [first] = externalIds(batchId, 8);
    s.proxy.decide = (request) => {
      if (request.method === 'POST' && request.externalId === first) void runtime.handlers['batches:pause']({ batchId });
      return 'forward';
    };
    const paused = batchReaches(runtime, batchId, ['paused', 'done']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect((await paused).state).toBe('paused');
    s.proxy.decide = () => 'forward';
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    const results = await Promise.all([runtime.handlers['batches:resume']({ batchId }), runtime.handlers['batches:resume']({ batchId })]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.error.code === 'CONFLICT')).toHaveLength(1);
    expect((await done).state).toBe('done');
    eachPostedOnce(batchId, 8);
  });
});

describe('a Resume while the paused run still finishes its row in flight', () => {
  it('is refused (no second run beside it); once the run has ended, Resume sends the rest once', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 4, 'resume-in-flight');
    const [first] = externalIds(batchId, 4);
    const answers: Promise<{ ok: boolean; code: string | null }>[] = [];
    s.proxy.decide = (request) => {
      if (request.method === 'POST' && request.externalId === first) {
        // The first row is at the service: Pause, then Resume at once, before its answer.
        void runtime.handlers['batches:pause']({ batchId });
        answers.push(runtime.handlers['batches:resume']({ batchId }).then((result) => ({ ok: result.ok, code: result.ok ? null : result.error.code })));
      }
      return 'forward';
    };
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const paused = batchReaches(runtime, batchId, ['paused', 'done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect((await paused).state).toBe('paused');
    expect(await Promise.all(answers)).toEqual([{ ok: false, code: 'CONFLICT' }]);
    s.proxy.decide = () => 'forward';
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect((await done).state).toBe('done');
    for (const externalId of externalIds(batchId, 4)) expect(s.postsFor(externalId), externalId).toBe(1);
  });
});

describe('a Resume of a batch that is not paused or interrupted', () => {
  it('is refused for a draft never confirmed and for a batch that is done: nothing is sent', async () => {
    const { runtime } = s;
    const draft = await imported(runtime, 2, 'resume-draft');
    expectFail(await runtime.handlers['batches:resume']({ batchId: draft }), 'CONFLICT');
    await runtime.batchesIdle();
    expect(expectOk(await runtime.handlers['batches:get']({ batchId: draft })).batch.state).toBe('draft');
    for (const externalId of externalIds(draft, 2)) expect(s.postsFor(externalId), externalId).toBe(0);

    const batchId = await imported(runtime, 2, 'resume-done');
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect((await done).state).toBe('done');
    expectFail(await runtime.handlers['batches:resume']({ batchId }), 'CONFLICT');
    await runtime.batchesIdle();
    for (const externalId of externalIds(batchId, 2)) expect(s.postsFor(externalId), externalId).toBe(1);
  });
});

describe('"Retry failed"', () => {
  it('is refused while a row\'s outcome is unknown, even with a refused row to retry; allowed once it is known', async () => {
    const { runtime } = s;
    const batchId = await imported(runtime, 3, 'retry-unknown');
    const [, refused, unknown] = externalIds(batchId, 3);
    s.proxy.decide = (request) => {
      if (request.method === 'POST' && request.externalId === refused) return { status: 422, body: { success: false, message: 'Invalid phone number', code: 'VALIDATION_ERROR', errors: { phone_number: ['is not valid'] } } };
      // The engine took this one; its answer and every look-up of it fail: its outcome is unknown.
      if (request.method === 'POST' && request.externalId === unknown) return SERVER_ERROR({ forward: true });
      if (request.method === 'GET' && request.path.includes(unknown!)) return SERVER_ERROR({ forward: false });
      return 'forward';
    };
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
    const ended = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    expect(await ended).toMatchObject({ state: 'interrupted', unknown: 1 });
    expect((await withRows(runtime.handlers, batchId)).rows.map((row) => row.state)).toEqual(['accepted', 'rejected', 'unknown']);
    const batches = expectOk(await runtime.handlers['batches:list']({})).batches.length;
    const refusal = expectFail(await runtime.handlers['batches:retryFailed']({ batchId }), 'CONFLICT');
    expect(refusal.message).toMatch(/unknown outcome/);
    expect(expectOk(await runtime.handlers['batches:list']({})).batches.length).toBe(batches);

    // Once the unknown row is found (the service did take it), the refused row may be retried.
    s.proxy.decide = () => 'forward';
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect((await done).state).toBe('done');
    expect(s.engineCount(unknown!)).toBe(1);
    const retry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId })));
    expect(retry.rows).toHaveLength(1);
  });
});
