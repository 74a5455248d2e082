/**
 * A failed payout is retried under a new id only when EVERY earlier attempt of it is final and
 * failed/cancelled (issue 35 item 5): a retry still processing (the sandbox's number that expires,
 * the one that waits for Verify), with an unknown outcome, or an older attempt still live behind a
 * newer refused one blocks "Retry failed" on the original batch, and the batch's detail offers no
 * row, so no `-r2` is ever minted beside a live `-r1`. The real engine behind a gate proxy, on
 * both stores (this desktop's SQLite journal, a team workspace on PostgreSQL).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushEvent } from '../../shared/api';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { batchReaches, withRows } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, startRuntime, virtualClock } from './helpers';
import { engineRows, expectNeverTwice, FAILING, file } from './never-twice-helpers';
import { SERVER_ERROR, startGateProxy, type GateAction, type GateProxy } from './gate-proxy';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const STORES = [
  { name: 'SQLite', openStorage: undefined },
  { name: 'PostgreSQL', openStorage: async () => workspaces.storeAs('fatou', await workspaces.create()) },
] as const;

describe.each(STORES)('on the $name store', ({ name, openStorage }) => {
  let runtime: Runtime;
  let proxy: GateProxy;

  beforeAll(async () => {
    runtime = await startRuntime({ clock: virtualClock(), engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } }, ...(openStorage ? { openStorage } : {}) });
    expect(runtime.storage.kind).toBe(name === 'SQLite' ? 'sqlite' : 'postgres');
    proxy = await startGateProxy(runtime.engineUrl!);
    await activateEngineProfile(runtime, proxy.url, 'Finance, retries');
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await proxy?.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  });

  /** Resolves once the batch's counters, read through the store, have no row processing (re-read after each push). */
  function noneProcessing(batchId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const offs: (() => void)[] = [];
      let done = false;
      const check = async () => {
        try {
          const summary = await runtime.storage.batches.summary(batchId);
          if (done || summary?.counts.processing !== 0) return;
          done = true;
          for (const off of offs) off();
          resolve();
        } catch (error) {
          reject(error as Error);
        }
      };
      for (const event of ['transaction:changed', 'batch:progress'] as PushEvent[]) offs.push(runtime.on(event, () => void check()));
      void check();
    });
  }

  /** The sandbox keeps a payout to this number processing until its expiry window (120 s) passes. */
  const EXPIRES = '+237650000004';
  /** The sandbox keeps a payout to this number processing until Verify asks the provider. */
  const NEEDS_VERIFY = '+237650000008';

  /** Sends a batch; resolves once its run stopped (its rows may still be processing). */
  async function send(batchId: string, options: { acceptDuplicateFile?: true } = {}) {
    const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId, ...options }));
    const stopped = batchReaches(runtime, batchId, ['done', 'interrupted', 'cancelled']);
    expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
    return stopped;
  }

  /** A sent batch of one payout `id` that failed at the service. */
  async function failedBatch(id: string) {
    const draft = expectOk(await runtime.handlers['batches:import']({ fileName: `${id}.csv`, text: file(1, id, { ids: () => id, phone: () => FAILING }), paymentMethod: 'momo_cm' }));
    await send(draft.batch.id);
    // The POST answers processing; the watcher reads the failure that follows.
    await noneProcessing(draft.batch.id);
    expect((await withRows(runtime.handlers, draft.batch.id)).rows.map((row) => [row.state, row.status])).toEqual([['accepted', 'failed']]);
    return draft.batch.id;
  }

  /** "Retry failed" of a batch, its one row sent to `phone`. */
  async function retryTo(batchId: string, phone: string) {
    const made = expectOk(await runtime.handlers['batches:retryFailed']({ batchId }));
    expectOk(await runtime.handlers['batches:updateRow']({ batchId: made.batch.id, rowNumber: 2, values: { phone_number: phone } }));
    return withRows(runtime.handlers, made.batch.id);
  }

  /** "Retry failed" on the original is refused, no draft is made, and its detail offers no row: nothing is minted. */
  async function expectNoFurtherRetry(batchId: string) {
    const batches = async () => expectOk(await runtime.handlers['batches:list']({})).batches.length;
    const before = await batches();
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId }), 'CONFLICT');
    expect(await batches()).toBe(before);
    const detail = expectOk(await runtime.handlers['batches:get']({ batchId }));
    expect(detail.retryLeft?.rows ?? 0).toBe(0);
  }

  describe('"Retry failed" while the first retry of the row is still processing', () => {
    for (const [what, phone] of [
      ['until its expiry', EXPIRES],
      ['until Verify', NEEDS_VERIFY],
    ] as const) {
      it(`is refused while the retry stays processing ${what}: no -r2 beside the live -r1`, async () => {
        const root = `PROC-${name[0]}-${phone.slice(-1)}`;
        const batchId = await failedBatch(root);
        const first = await retryTo(batchId, phone);
        expect(first.rows.map((row) => row.externalId)).toEqual([`${root}-r1`]);
        await send(first.batch.id);
        expect((await withRows(runtime.handlers, first.batch.id)).rows.map((row) => [row.state, row.status])).toEqual([['accepted', 'processing']]);
        await expectNoFurtherRetry(batchId);
        expect(engineRows(runtime.engine!).filter((row) => row.external_id.startsWith(`${root}-r`)).map((row) => [row.external_id, row.status])).toEqual([[`${root}-r1`, 'processing']]);
      });
    }

    it('is refused while the retry has an unknown outcome (its POST met a 500, its look-ups a 503)', async () => {
      const root = `UNK-${name[0]}`;
      const batchId = await failedBatch(root);
      const first = await retryTo(batchId, '+237681111113');
      proxy.decide = (request) => {
        if (request.method === 'POST' && request.externalId === `${root}-r1`) return SERVER_ERROR({ forward: true });
        if (request.method === 'GET' && request.path.includes(`${root}-r1`)) return { ...(SERVER_ERROR({ forward: false }) as object), status: 503 } as GateAction;
        return 'forward';
      };
      try {
        expect(await send(first.batch.id)).toMatchObject({ state: 'interrupted', unknown: 1 });
        await expectNoFurtherRetry(batchId);
      } finally {
        proxy.decide = () => 'forward';
      }
    });

    it('is refused while an attempt of the retry is processing, and the second draft of that retry is only linked to it', async () => {
      const root = `OLD-${name[0]}`;
      const batchId = await failedBatch(root);
      // Two retry drafts made before either was sent hold the same id (`<root>-r1`).
      const one = await retryTo(batchId, NEEDS_VERIFY);
      const two = await retryTo(batchId, NEEDS_VERIFY);
      await send(one.batch.id);
      proxy.decide = (request) =>
        request.method === 'POST' && request.externalId === `${root}-r1`
          ? { status: 422, body: { success: false, message: 'The wallet balance does not cover it.', code: 'INSUFFICIENT_FUNDS', errors: null } }
          : 'forward';
      try {
        await send(two.batch.id, { acceptDuplicateFile: true });
      } finally {
        proxy.decide = () => 'forward';
      }
      // The second draft's row names the payout the first sent (still processing): the journal links it, never POSTs it.
      const [linked] = (await withRows(runtime.handlers, two.batch.id)).rows;
      expect(linked).toMatchObject({ state: 'accepted', paidBy: { batchId: one.batch.id } });
      await expectNoFurtherRetry(batchId);
      await expectNeverTwice(runtime, runtime.engine!);
    });
  });
});
