/**
 * The external id is the payout's identity on every path (issue 23): the real engine behind a
 * proxy, a saved profile, the journal a real SQLite file. Whatever the user does (cancel, import
 * the file again with the override, retry the failed rows, send a cancelled batch's remaining rows,
 * send a single payout twice), the engine holds exactly one transaction per external id, and a row
 * the service refuses as "already exists" adopts that transaction instead of failing.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { batchReaches, until, withRows, sendAndCancel as cancelWhileSending, sendConfirmed } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, paymentRequest, startRuntime, virtualClock } from './helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
let proxy: GateProxy;

beforeAll(async () => {
  runtime = await startRuntime({ clock: virtualClock(), engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  proxy = await startGateProxy(runtime.engineUrl!);
  await activateEngineProfile(runtime, proxy.url, 'Finance, identity');
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const engineDb = () => engineInternals(runtime.engine!).db;
const engineCount = (externalId: string) => (engineDb().prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;
/** Payouts the engine holds to this phone (its account number is stored masked: matched on the last 4 digits and the amount). */
const paidTo = (externalIds: readonly string[]) => externalIds.map(engineCount);
const postsFor = (externalId: string) => proxy.seen.filter((request) => request.method === 'POST' && request.externalId === externalId).length;

/** A file of `count` rows, each to its own ordinary number (completes), with `ids(index)` in the external_id column. */
function file(count: number, tag: string, options: { ids?: (index: number) => string; phone?: (index: number) => string; amount?: (index: number) => string } = {}): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 0; index < count; index += 1) {
    const phone = options.phone?.(index) ?? `+23767${String(index + 1).padStart(7, '0')}`;
    lines.push(`${phone},${options.amount?.(index) ?? 100 + index},Person${index},${tag},p${index}@example.com,${tag} ${index},${options.ids?.(index) ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

async function importFile(name: string, text: string) {
  return expectOk(await runtime.handlers['batches:import']({ fileName: name, text, paymentMethod: 'momo_cm' }));
}

const send = (batchId: string, options: { acceptDuplicateFile?: true; concurrency?: number } = {}) => sendConfirmed(runtime, batchId, options);
const sendAndCancel = (batchId: string, cancelAt: string) => cancelWhileSending(runtime, proxy, batchId, cancelAt);

describe('a batch cancelled, imported again with the override, its failed rows retried (issue 23, first path)', () => {
  it('pays each row once: the rows sent before are never POSTed again, only linked to their payout, "already sent earlier"', async () => {
    const text = file(6, 'cancel-reimport');
    const first = await importFile('payroll.csv', text);
    const firstId = first.batch.id;
    expect((await sendAndCancel(firstId, `${firstId}-4`)).state).toBe('cancelled');
    const sent = await withRows(runtime.handlers, firstId);
    expect(sent.rows.map((row) => row.state)).toEqual(['accepted', 'accepted', 'accepted', 'not_sent', 'not_sent', 'not_sent']);

    // The same file again: its rows take the ids they were first sent under; the draft names the sent ones.
    const again = await importFile('payroll.csv', text);
    const againRows = await withRows(runtime.handlers, again.batch.id);
    expect(againRows.rows.map((row) => row.externalId)).toEqual(sent.rows.map((row) => row.externalId));
    expect(again.sentEarlier).toMatchObject({ count: 3, completed: 3, neverLeft: 3 });
    expect(again.sentEarlier!.rows.map((row) => [row.rowNumber, row.batchId, row.outcome])).toEqual([
      [2, firstId, 'completed'],
      [3, firstId, 'completed'],
      [4, firstId, 'completed'],
    ]);
    expect(expectFail(await runtime.handlers['batches:prepare']({ batchId: again.batch.id }), 'CONFIRMATION_REQUIRED').fields?.acceptDuplicateFile).toBeDefined();

    // "Send these rows again anyway": the journal holds the three sent rows' ids: linked to their payouts, never sent.
    expect(await send(again.batch.id, { acceptDuplicateFile: true })).toMatchObject({ state: 'done' });
    const after = await withRows(runtime.handlers, again.batch.id);
    expect(after.rows.map((row) => [row.state, row.status, row.alreadySent ?? false])).toEqual([
      ['accepted', 'completed', true],
      ['accepted', 'completed', true],
      ['accepted', 'completed', true],
      ['accepted', 'completed', false],
      ['accepted', 'completed', false],
      ['accepted', 'completed', false],
    ]);
    // The adopted row is the transaction the first batch created; each id was paid exactly once.
    expect(after.rows.slice(0, 3).map((row) => row.transactionId)).toEqual(sent.rows.slice(0, 3).map((row) => row.transactionId));
    expect(paidTo(after.rows.map((row) => row.externalId))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(postsFor(`${firstId}-2`)).toBe(1); // sent once: the journal, not the service, keeps it from a second POST
    // Nothing failed, so nothing is offered for retry (an adopted row never is).
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: again.batch.id }), 'CONFLICT');
    // The accountant's report says so too (state cell), in the user's language.
    const report = expectOk(await runtime.handlers['batches:report']({ batchId: again.batch.id, language: 'en' })).csv;
    expect(report.split('already sent earlier').length - 1).toBe(3);
    expect(expectOk(await runtime.handlers['batches:report']({ batchId: again.batch.id, language: 'fr' })).csv).toContain('accepté · déjà envoyé auparavant');
    // One record per payout: the row names the first batch's entry, and History lists it once.
    expect(after.rows.slice(0, 3).map((row) => row.journalId)).toEqual(sent.rows.slice(0, 3).map((row) => row.journalId));
    const history = expectOk(await runtime.handlers['transactions:get']({ journalId: after.rows[0]!.journalId! }));
    expect(history.transaction).toMatchObject({ transactionId: sent.rows[0]!.transactionId, batch: { batchId: firstId, rowNumber: 2 } });
    const listed = expectOk(await runtime.handlers['transactions:search']({ query: { kind: 'payout', externalId: `${firstId}-2` }, offset: 0, limit: 10 }));
    expect(listed.total).toBe(1);
  });

  it('never offers an adopted row that failed for retry, and retries the batch\'s own failure under a derived id', async () => {
    // Row 2 fails at the service (PAYER_NOT_FOUND); the file has its own external ids.
    const text = file(3, 'adopted-failed', { ids: (index) => `ADF-${index}`, phone: (index) => (index === 1 ? '+237650000002' : `+23768${String(index + 1).padStart(7, '0')}`) });
    const first = await importFile('adopted-failed.csv', text);
    await send(first.batch.id);
    const again = await importFile('adopted-failed.csv', text);
    await send(again.batch.id, { acceptDuplicateFile: true });
    const adopted = await withRows(runtime.handlers, again.batch.id);
    expect(adopted.rows.map((row) => [row.status, row.alreadySent ?? false])).toEqual([['completed', true], ['failed', true], ['completed', true]]);
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: again.batch.id }), 'CONFLICT');
    const retry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: first.batch.id })));
    expect(retry.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['ADF-1-r1', 'ADF-1']]);
    expect(paidTo(['ADF-0', 'ADF-1', 'ADF-2'])).toEqual([1, 1, 1]);
  });
});

describe('the invalid rows fixed and imported again after the good rows were sent (issue 23, second path)', () => {
  it('names the rows sent and how they ended, drops them in one action, and sends only the rows that never left', async () => {
    const broken = file(5, 'fixed', { ids: (index) => `FIX-${index}`, amount: (index) => (index === 2 ? 'abc' : String(200 + index)) });
    const first = await importFile('fixed.csv', broken);
    expectOk(await runtime.handlers['batches:dropRows']({ batchId: first.batch.id, invalid: true }));
    await send(first.batch.id);
    expect(paidTo(['FIX-0', 'FIX-1', 'FIX-2', 'FIX-3', 'FIX-4'])).toEqual([1, 1, 0, 1, 1]);

    const fixedFile = broken.replace(',abc,', ',202,');
    const draft = await importFile('fixed (corrected).csv', fixedFile);
    expect(draft.sentEarlier).toMatchObject({ count: 4, completed: 4, neverLeft: 1 });
    expect(draft.sentEarlier!.rows.map((row) => row.externalId)).toEqual(['FIX-0', 'FIX-1', 'FIX-3', 'FIX-4']);
    // Confirming as is asks first: four rows were already sent.
    expectFail(await runtime.handlers['batches:prepare']({ batchId: draft.batch.id }), 'CONFIRMATION_REQUIRED');

    const only = expectOk(await runtime.handlers['batches:dropRows']({ batchId: draft.batch.id, sent: true }));
    expect(only.sentEarlier).toBeUndefined();
    expect(only.batch.counts.valid).toBe(1);
    expect(await send(draft.batch.id)).toMatchObject({ state: 'done' });
    expect(paidTo(['FIX-0', 'FIX-1', 'FIX-2', 'FIX-3', 'FIX-4'])).toEqual([1, 1, 1, 1, 1]);
    expect(postsFor('FIX-0')).toBe(1);
    expectFail(await runtime.handlers['batches:dropRows']({ batchId: draft.batch.id, sent: true }), 'CONFLICT');
  });
});

describe('retry keeps or derives the external id (issue 23)', () => {
  it('keeps the id of a row the service refused; derives <id>-r1 for one that failed; History links them', async () => {
    const phones = ['+237650000001', '+237650000002', '+237650000009', '+237669000004'];
    const draft = await importFile('retry.csv', file(4, 'retry', { ids: (index) => `RT-${index}`, phone: (index) => phones[index]! }));
    // The service refuses RT-3 outright (nothing created): the proxy answers for it.
    proxy.decide = (request) =>
      request.method === 'POST' && request.externalId === 'RT-3'
        ? { status: 422, body: { success: false, message: 'The wallet balance does not cover it.', code: 'INSUFFICIENT_FUNDS', errors: null } }
        : 'forward';
    try {
      await send(draft.batch.id);
    } finally {
      proxy.decide = () => 'forward';
    }
    const sent = await withRows(runtime.handlers, draft.batch.id);
    expect(sent.rows.map((row) => [row.state, row.status])).toEqual([['accepted', 'completed'], ['accepted', 'failed'], ['accepted', 'cancelled'], ['rejected', null]]);

    const made = expectOk(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }));
    // RT-3's refused entry holds the id, but no money: the retry does not count it as sent earlier.
    expect(made.sentEarlier).toBeUndefined();
    // An edit of the retry draft keeps each row's link to the payout it retries.
    expectOk(await runtime.handlers['batches:updateRow']({ batchId: made.batch.id, rowNumber: 3, values: { description: 'retry 1' } }));
    const retry = await withRows(runtime.handlers, made.batch.id);
    expect(retry.rows.map((row) => [row.rowNumber, row.externalId, row.retryOf ?? null])).toEqual([
      [3, 'RT-1-r1', 'RT-1'],
      [4, 'RT-2-r1', 'RT-2'],
      [5, 'RT-3', null],
    ]);
    await send(retry.batch.id);
    expect(paidTo(['RT-0', 'RT-1', 'RT-1-r1', 'RT-2', 'RT-2-r1', 'RT-3'])).toEqual([1, 1, 1, 1, 1, 1]);
    const retried = await withRows(runtime.handlers, retry.batch.id);
    expect(expectOk(await runtime.handlers['batches:report']({ batchId: retry.batch.id, language: 'en' })).csv).toContain('accepted · retry of RT-1');
    const linked = expectOk(await runtime.handlers['transactions:get']({ journalId: retried.rows[0]!.journalId! }));
    expect(linked.transaction).toMatchObject({ externalId: 'RT-1-r1', retryOf: 'RT-1' });
    expect(linked.timeline.some((event) => event.message === 'payout request sent (retry of RT-1)')).toBe(true);

    // A retry of the retry: RT-1-r1 failed again (same failing number) → RT-1-r2, linked to RT-1-r1.
    const second = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: retry.batch.id })));
    expect(second.rows.map((row) => [row.externalId, row.retryOf])).toEqual([
      ['RT-1-r2', 'RT-1-r1'],
      ['RT-2-r2', 'RT-2-r1'],
    ]);
  });

  it('never derives an id the journal already holds (a file with its own ids)', async () => {
    // DER-r1 is the file's own id of another row: the failed DER is retried as DER-r2.
    const draft = await importFile('derived.csv', file(2, 'derived', { ids: (index) => (index === 0 ? 'DER' : 'DER-r1'), phone: (index) => (index === 0 ? '+237650000002' : '+237667000002') }));
    await send(draft.batch.id);
    const retry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id })));
    expect(retry.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['DER-r2', 'DER']]);
  });

  it('adopts a row refused as existing in the run\'s last round before the run ends (no row left unknown by it)', async () => {
    // LAST-0 exists at the engine already, made outside this console (the merchant's own system: the
    // journal never saw it, so nothing keeps the batch from sending it). In the batch, its POST meets a
    // 500 twice (nothing reaches the engine) and the look-ups of rounds 2 and 3 are told "not found";
    // the third POST reaches the engine, which refuses it as existing: only a look-up before the run ends adopts it.
    const request = { ...paymentRequest({ external_id: 'LAST-0', phone_number: '+237665000001', amount: 100 }), payment_method: 'momo_cm' };
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    const journal = new Database(join(runtime.dir, 'journal.db'));
    try {
      journal.prepare("DELETE FROM entries WHERE external_id = 'LAST-0'").run();
    } finally {
      journal.close();
    }
    const draft = await importFile('last-round.csv', file(1, 'last', { ids: () => 'LAST-0', phone: () => '+237665000001' }));
    let posts = 0;
    let gets = 0;
    proxy.decide = (request) => {
      if (request.method === 'POST' && request.externalId === 'LAST-0' && (posts += 1) <= 2) {
        return { status: 500, body: { success: false, message: 'Unexpected error', code: 'INTERNAL_SERVER_ERROR', errors: [] } };
      }
      if (request.method === 'GET' && request.path.includes('LAST-0') && (gets += 1) <= 2) {
        return { status: 404, body: { success: false, message: 'No payout with this id.', code: 'PAYOUT_NOT_FOUND', errors: null } };
      }
      return 'forward';
    };
    try {
      expect(await send(draft.batch.id, { acceptDuplicateFile: true })).toMatchObject({ state: 'done', unknown: 0 });
    } finally {
      proxy.decide = () => 'forward';
    }
    expect(posts).toBe(3);
    const row = (await withRows(runtime.handlers, draft.batch.id)).rows[0]!;
    expect(row).toMatchObject({ state: 'accepted', status: 'completed', alreadySent: true });
    expect(engineCount('LAST-0')).toBe(1);
  });

  it('still refuses to retry while a row\'s outcome is unknown', async () => {
    // UNK-0 fails at the service (a row to retry), UNK-1's outcome stays unknown.
    const draft = await importFile('unknown.csv', file(2, 'unknown', { ids: (index) => `UNK-${index}`, phone: (index) => (index === 0 ? '+237650000002' : '+237666000002') }));
    // UNK-1 reaches the engine but its answer is lost, and every look-up of it fails too: unknown it stays.
    proxy.decide = (request) => (request.externalId === 'UNK-1' ? 'forward-then-reset' : request.method === 'GET' && request.path.includes('UNK-1') ? 'reset' : 'forward');
    try {
      const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId: draft.batch.id }));
      const stopped = batchReaches(runtime, draft.batch.id, ['interrupted', 'done']);
      expectOk(await runtime.handlers['batches:start']({ batchId: draft.batch.id, confirmationToken, concurrency: 1 }));
      expect((await stopped).state).toBe('interrupted');
      // UNK-0 has failed at the service: without the unknown row, there would be a row to retry.
      await until(runtime, ['transaction:changed', 'batch:progress'], () => countRows(runtime.journal, draft.batch.id).counts.failed === 1);
      expect(countRows(runtime.journal, draft.batch.id).counts.unknown).toBe(1);
      expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    } finally {
      proxy.decide = () => 'forward';
    }
  });
});

describe('a single payout whose external id already exists (issue 23)', () => {
  it('is refused before anything is sent: the form names the payout the id already is (the journal is the guard, not the service)', async () => {
    const request = { ...paymentRequest({ external_id: 'SINGLE-1', phone_number: '+237671234567' }), payment_method: 'momo_cm' };
    const first = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    const paid = expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: first.confirmationToken }));
    // The confirmation step already says it: nothing to confirm, the existing payout to open.
    const again = expectFail(await runtime.handlers['payouts:prepare']({ request }), 'ALREADY_SENT');
    expect(again.journalId).toBe(paid.id);
    expect(again.message).toContain('SINGLE-1');
    expect(paid.alreadySent).toBeUndefined();
    expect(engineCount('SINGLE-1')).toBe(1);
  });
});

describe('a cancelled batch\'s remaining rows (issue 23 item 2)', () => {
  it('are sent through a new draft and confirmation with their own external ids, each paid once', async () => {
    const draft = await importFile('remaining.csv', file(5, 'remaining'));
    const batchId = draft.batch.id;
    expectFail(await runtime.handlers['batches:sendRemaining']({ batchId }), 'CONFLICT'); // a draft is sent as itself
    await sendAndCancel(batchId, `${batchId}-3`);
    const cancelled = await withRows(runtime.handlers, batchId);
    const left = cancelled.rows.filter((row) => row.state === 'not_sent');
    expect(left.length).toBe(3);

    const remaining = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:sendRemaining']({ batchId })));
    expect(remaining.batch).toMatchObject({ state: 'draft', retryOf: batchId, fileName: 'remaining (remaining).csv' });
    expect(remaining.rows.map((row) => row.externalId)).toEqual(left.map((row) => row.externalId));
    expect(remaining.sentEarlier).toBeUndefined();
    // The usual confirmation: count, total and fees of these rows only.
    const preview = expectOk(await runtime.handlers['batches:preview']({ batchId: remaining.batch.id }));
    expect(preview).toMatchObject({ count: 3, totalAmount: left.reduce((sum, row) => sum + row.request!.amount, 0) });
    expect(await send(remaining.batch.id)).toMatchObject({ state: 'done' });
    expect(paidTo(cancelled.rows.map((row) => row.externalId))).toEqual([1, 1, 1, 1, 1]);

    // A second "send remaining" of the same batch: its rows moved to the first one, which is named (issue 37 item 3).
    expect(expectFail(await runtime.handlers['batches:sendRemaining']({ batchId }), 'CONFLICT').reason).toMatchObject({ key: 'movedAlready', params: { batchId: remaining.batch.id } });
    expect(paidTo(cancelled.rows.map((row) => row.externalId))).toEqual([1, 1, 1, 1, 1]);
  });
});
