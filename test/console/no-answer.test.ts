/**
 * A POST or a look-up that gets no answer (issue 23, each behaviour held by a mutant run):
 * - a POST that timed out waiting for its answer is "may exist", never "not sent": the single
 *   payout is outcome unknown and cannot be re-sent blindly; a batch row is unknown, and Resume
 *   finds it by its external id instead of sending it again;
 * - a batch look-up or a start-up sweep that cannot reach the service (a timeout, a 5xx) records
 *   nothing: the row stays unknown (never "not found", which would let Resume pay it twice); nor does
 *   a 404 that is not the service's own PAYOUT_NOT_FOUND (a proxy's HTML page).
 * The real engine behind a gate proxy (./proxied-console.ts); the proxy holds or fails answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { expectFail, expectOk, paymentRequest } from './helpers';
import { batchCsv, batchReaches, withRows } from './batch-helpers';
import { SERVER_ERROR, type GateAction } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;

/** A 404 that is not the service's (no PAYOUT_NOT_FOUND envelope): never "not found". */
const PROXY_HTML_404: GateAction = { status: 404, body: '<html><body>404 Not Found</body></html>', headers: { 'content-type': 'text/html' } };

beforeAll(async () => {
  s = await startProxiedConsole('paydesk-no-answer-');
});
afterAll(async () => {
  await s?.close();
});

async function confirmed(runtime: ConsoleRuntime, count: number, tag: string) {
  const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: `${tag}.csv`, text: batchCsv(count, { phone: () => '+237650000001', tag }), paymentMethod: 'momo_cm' }));
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: batch.id }));
  return { batchId: batch.id, confirmationToken };
}

/**
 * Runs a batch of 3 rows whose middle one meets `post` and its look-ups `lookUp` (`row2`: its
 * external id, `<batch>-3`, the file's line 3). Resolves when the batch stopped.
 */
async function batchWithRow2(tag: string, post: GateAction, lookUp: GateAction) {
  const { runtime } = s;
  const { batchId, confirmationToken } = await confirmed(runtime, 3, tag);
  const row2 = `${batchId}-3`;
  s.proxy.decide = (request) => {
    if (request.method === 'POST' && request.externalId === row2) return post;
    if (request.method === 'GET' && request.path.includes(row2)) return lookUp;
    return 'forward';
  };
  const stopped = batchReaches(runtime, batchId, ['interrupted', 'done']);
  expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
  return { batchId, row2, progress: await stopped };
}

/** Resumes with the service answering everything; resolves with the detail once done. */
async function resumeOnAGoodNetwork(runtime: ConsoleRuntime, batchId: string) {
  s.proxy.decide = () => 'forward';
  const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
  expectOk(await runtime.handlers['batches:resume']({ batchId }));
  expect((await done).state).toBe('done');
  return withRows(runtime.handlers, batchId);
}

describe('a POST that timed out waiting for its answer', () => {
  it('leaves a single payout outcome unknown: a resend is refused, the look-up finds the one the service created', async () => {
    const { runtime } = s;
    const request = paymentRequest({ payment_method: 'momo_cm', amount: 1500, external_id: 'PAYOUT-timeout-1' });
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    s.proxy.decide = (seen) => (seen.method === 'POST' ? 'forward-then-hang' : 'forward');
    const failure = expectFail(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }), 'OUTCOME_UNKNOWN');
    const unknown = expectOk(await runtime.handlers['transactions:get']({ journalId: failure.journalId! }));
    expect(unknown.transaction).toMatchObject({ state: 'outcome_unknown', externalId: 'PAYOUT-timeout-1' });
    expect(unknown.timeline.filter((event) => event.type === 'transport_failure')).toMatchObject([{ outcome: 'unknown' }]);
    s.proxy.decide = () => 'forward';
    expectFail(await runtime.handlers['transactions:resend']({ journalId: failure.journalId! }), 'CONFLICT');
    const resolved = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId: failure.journalId! }));
    expect(resolved.exists).toBe(true);
    expect(s.postsFor('PAYOUT-timeout-1')).toBe(1);
    expect(s.engineCount('PAYOUT-timeout-1')).toBe(1);
  });

  it('leaves a batch row unknown (not "not sent"); Resume finds it by its external id and sends it no second time', async () => {
    const { batchId, row2, progress } = await batchWithRow2('post-timeout', 'forward-then-hang', 'forward');
    expect(progress).toMatchObject({ state: 'interrupted', unknown: 1 });
    const stopped = await withRows(s.runtime.handlers, batchId);
    expect(stopped.rows.map((row) => row.state)).toEqual(['accepted', 'unknown', 'not_sent']);
    const done = await resumeOnAGoodNetwork(s.runtime, batchId);
    expect(done.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(s.postsFor(row2)).toBe(1);
    expect(s.engineCount(row2)).toBe(1);
  });
});

describe('a batch look-up that cannot reach the service', () => {
  for (const [what, lookUp] of [
    ['times out', 'hang'],
    ['gets a 503', { ...(SERVER_ERROR({ forward: false }) as object), status: 503 }],
    ["gets a proxy's HTML 404", PROXY_HTML_404],
  ] as [string, GateAction][]) {
    it(`${what}: the row stays unknown, is never sent again, and Resume finds it`, async () => {
      // The POST reached the engine (it created the payout), its answer was a 500: outcome unknown.
      const { batchId, row2, progress } = await batchWithRow2(`look-up-${what.replace(/\W+/g, '-')}`, SERVER_ERROR({ forward: true }), lookUp);
      expect(progress).toMatchObject({ state: 'interrupted', unknown: 1 });
      expect(countRows(s.runtime.journal, batchId).counts).toMatchObject({ unknown: 1, rejected: 0 });
      expect(s.postsFor(row2)).toBe(1);
      const done = await resumeOnAGoodNetwork(s.runtime, batchId);
      expect(done.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted']);
      expect(s.postsFor(row2)).toBe(1);
      expect(s.engineCount(row2)).toBe(1);
    });
  }
});

describe('the start-up sweep when it cannot reach the service', () => {
  it("records nothing on a timeout, a 503 or a proxy's HTML 404: the row stays unknown until a look-up is answered", async () => {
    const { batchId, row2 } = await batchWithRow2('sweep', SERVER_ERROR({ forward: true }), { ...(SERVER_ERROR({ forward: false }) as object), status: 503 } as GateAction);
    const entryOf = () => s.runtime.journal.prepare('SELECT state, resolution FROM entries WHERE external_id = ?').get(row2) as { state: string; resolution: string | null };
    const lookUps = () => s.proxy.seen.filter((request) => request.method === 'GET' && request.path.includes(row2)).length;
    for (const lookUp of ['hang', { ...(SERVER_ERROR({ forward: false }) as object), status: 503 }, PROXY_HTML_404] as GateAction[]) {
      s.proxy.decide = (request) => (request.method === 'GET' && request.path.includes(row2) ? lookUp : 'forward');
      const before = lookUps();
      const runtime = await s.restart();
      await runtime.followUpsIdle();
      // The sweep at start did ask (and met the failure), and recorded nothing.
      expect(lookUps()).toBeGreaterThan(before);
      expect(entryOf()).toEqual({ state: 'outcome_unknown', resolution: null });
      expect(countRows(runtime.journal, batchId).counts).toMatchObject({ unknown: 1, notSent: 0 });
    }
    s.proxy.decide = () => 'forward';
    const runtime = await s.restart();
    await runtime.followUpsIdle();
    expect(entryOf().state).toBe('known');
    const done = await resumeOnAGoodNetwork(runtime, batchId);
    expect(done.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(s.postsFor(row2)).toBe(1);
    expect(s.engineCount(row2)).toBe(1);
  });
});
