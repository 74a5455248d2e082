/**
 * What the journal tells beyond a status (issue 23, review), on the real engine and a journal file:
 * - a payout adopted under its external id whose transaction at the service went to another
 *   recipient or amount is marked "not what was asked" (single send, History, batch row, the
 *   batch's count, its report CSV); the same request sent again is not;
 * - a batch whose failed rows were all retried (and the retries sent) offers no retry, and says
 *   where they went; its refusals carry a reason the screen translates;
 * - an external id refused and later paid marks its refused entry "paid later", linked.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRequest } from '../../shared/contract';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { sendConfirmed, withRows } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, paymentRequest, startRuntime, virtualClock } from './helpers';
import { FAILING, file } from './never-twice-helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime({ clock: virtualClock(), engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  await activateEngineProfile(runtime, runtime.engineUrl!, 'Finance, adopted');
});

afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const engineCount = (externalId: string) =>
  (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

async function sendPayout(overrides: Partial<TransactionRequest>) {
  const request = { ...paymentRequest(overrides), payment_method: 'momo_cm' };
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

async function importFile(name: string, text: string) {
  return expectOk(await runtime.handlers['batches:import']({ fileName: name, text, paymentMethod: 'momo_cm' }));
}

describe('a single payout under an external id the journal holds for another payout', () => {
  it('is refused before anything is sent, whatever recipient or amount it asks; the service holds the one payout', async () => {
    const paid = expectOk(await sendPayout({ external_id: 'ADOPT-1', phone_number: '+237671000001', amount: 1000 }));
    expect(paid.adoptedDiffers).toBeUndefined();
    for (const overrides of [{ phone_number: '+237671000002', amount: 2500 }, { phone_number: '+237671000001', amount: 1000 }]) {
      const request = { ...paymentRequest({ external_id: 'ADOPT-1', ...overrides }), payment_method: 'momo_cm' };
      expect(expectFail(await runtime.handlers['payouts:prepare']({ request }), 'ALREADY_SENT').journalId).toBe(paid.id);
    }
    expect(engineCount('ADOPT-1')).toBe(1);
    const page = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'ADOPT-1' }, offset: 0, limit: 10 }));
    expect(page.rows.map((row) => row.id)).toEqual([paid.id]);
  });
});

describe('a batch whose rows adopt payouts sent earlier', () => {
  it('marks each row that is not what it asks, counts them on the batch and says so in the report', async () => {
    expectOk(await sendPayout({ external_id: 'ROW-A', phone_number: '+237672000001', amount: 300 }));
    expectOk(await sendPayout({ external_id: 'ROW-B', phone_number: '+237672000002', amount: 999 }));
    expectOk(await sendPayout({ external_id: 'ROW-C', phone_number: '+237672000003', amount: 302 }));
    // ROW-A as sent (300 to …001); ROW-B same phone, other amount; ROW-C another phone; ROW-D new.
    const draft = await importFile('adopting.csv', file(4, 'adopt', { ids: (index) => `ROW-${'ABCD'[index]}`, phone: (index) => (index === 2 ? '+237672000099' : `+23767200000${index + 1}`) }));
    // The draft names its three rows as sent earlier; sent anyway, each is linked to its payout, never POSTed.
    expect(await sendConfirmed(runtime, draft.batch.id, { acceptDuplicateFile: true })).toMatchObject({ state: 'done' });
    const sent = await withRows(runtime.handlers, draft.batch.id);
    expect(sent.rows.map((row) => [row.externalId, row.alreadySent ?? false, row.adoptedDiffers?.differs ?? null])).toEqual([
      ['ROW-A', true, null],
      ['ROW-B', true, ['amount']],
      ['ROW-C', true, ['recipient']],
      ['ROW-D', false, null],
    ]);
    expect(sent.rows[1]!.adoptedDiffers).toMatchObject({ asked: { amount: 301 }, found: { amount: 999 } });
    expect(sent.adoptedDiffering).toBe(2);
    const report = expectOk(await runtime.handlers['batches:report']({ batchId: draft.batch.id, language: 'en' }));
    const lines = report.csv.split(/\r?\n/);
    expect(lines.filter((line) => line.includes('NOT what this row asks'))).toHaveLength(2);
    expect(lines.find((line) => line.includes('ROW-B'))).toContain('sent earlier to +2376****0002, 999 XAF');
    const french = expectOk(await runtime.handlers['batches:report']({ batchId: draft.batch.id, language: 'fr' }));
    expect(french.csv).toContain('PAS ce que demande cette ligne');
    for (const id of ['ROW-A', 'ROW-B', 'ROW-C', 'ROW-D']) expect(engineCount(id)).toBe(1);
  });
});

describe('a batch whose failed rows were all retried', () => {
  it('offers no retry and names the retry batch; before, it offers the one row', async () => {
    const draft = await importFile('chain.csv', file(2, 'chain', { ids: (index) => `CH-${index}`, phone: (index) => (index === 0 ? FAILING : '+237683000001') }));
    await sendConfirmed(runtime, draft.batch.id);
    const before = expectOk(await runtime.handlers['batches:get']({ batchId: draft.batch.id }));
    expect(before.retryLeft).toEqual({ failed: 1, rows: 1, retriedIn: null });

    const retry = expectOk(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }));
    expectOk(await runtime.handlers['batches:updateRow']({ batchId: retry.batch.id, rowNumber: 2, values: { phone_number: '+237683000009' } }));
    await sendConfirmed(runtime, retry.batch.id);

    const after = expectOk(await runtime.handlers['batches:get']({ batchId: draft.batch.id }));
    expect(after.retryLeft).toMatchObject({ failed: 1, rows: 0, retriedIn: { batchId: retry.batch.id, fileName: 'chain (retry 1).csv', state: 'done' } });
    const refusal = expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    expect(refusal.reason).toEqual({ key: 'retriedAlready', params: { name: 'chain (retry 1).csv' } });
    // The retry batch itself has no failed row: nothing to offer, and its refusal says why.
    expect(expectOk(await runtime.handlers['batches:get']({ batchId: retry.batch.id })).retryLeft).toBeUndefined();
    expect(expectFail(await runtime.handlers['batches:retryFailed']({ batchId: retry.batch.id }), 'CONFLICT').reason?.key).toBe('nothingToRetry');
  });

  it('gives every refusal of a batch action a reason key', async () => {
    const draft = await importFile('reasons.csv', file(1, 'reasons', { ids: () => 'RS-0' }));
    expect(expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT').reason).toEqual({ key: 'notStopped', params: { state: 'draft' } });
    expect(expectFail(await runtime.handlers['batches:sendRemaining']({ batchId: draft.batch.id }), 'CONFLICT').reason).toEqual({ key: 'notCancelled', params: { state: 'draft' } });
    expect(expectFail(await runtime.handlers['batches:dropRows']({ batchId: draft.batch.id, invalid: true }), 'CONFLICT').reason?.key).toBe('noInvalidRows');
    expect(expectFail(await runtime.handlers['batches:dropRows']({ batchId: draft.batch.id, sent: true }), 'CONFLICT').reason?.key).toBe('noSentRows');
    await sendConfirmed(runtime, draft.batch.id);
    expect(expectFail(await runtime.handlers['batches:updateRow']({ batchId: draft.batch.id, rowNumber: 2, values: { amount: '5' } }), 'CONFLICT').reason).toEqual({ key: 'draftOnly', params: { state: 'done' } });
  });
});

describe('an external id refused, then paid', () => {
  it('keeps one record when a refused payout is sent again and paid: its refusals are attempts on its timeline, nothing "paid later"', async () => {
    // The engine refuses an unknown payment method (nothing created); the same id with a real one is paid.
    const refusedRequest = { ...paymentRequest({ external_id: 'LATER-1', phone_number: '+237674000001', amount: 800 }), payment_method: 'no_such_method' };
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request: refusedRequest }));
    const refusal = await runtime.handlers['payouts:initiate']({ request: refusedRequest, confirmationToken: quote.confirmationToken });
    expect(refusal.ok).toBe(false);
    const refusedId = refusal.ok ? '' : refusal.error.journalId!;
    expect(expectOk(await runtime.handlers['transactions:get']({ journalId: refusedId })).transaction).toMatchObject({ state: 'rejected' });
    const again = expectOk(await runtime.handlers['payouts:prepare']({ request: refusedRequest }));
    const second = await runtime.handlers['payouts:initiate']({ request: refusedRequest, confirmationToken: again.confirmationToken });
    expect(second.ok ? null : second.error.journalId).toBe(refusedId);

    const paid = expectOk(await sendPayout({ external_id: 'LATER-1', phone_number: '+237674000001', amount: 800 }));
    expect(paid.id).toBe(refusedId);
    const { transaction, timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: refusedId }));
    expect(transaction).toMatchObject({ state: 'known' });
    expect(transaction.paidLater).toBeUndefined();
    expect(timeline.filter((event) => event.type === 'request_sent')).toHaveLength(3);
    const page = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'LATER-1' }, offset: 0, limit: 10 }));
    expect(page.rows.map((row) => row.id)).toEqual([refusedId]);
    expect(engineCount('LATER-1')).toBe(1);
  });
});
