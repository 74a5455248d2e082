/**
 * The console's money paths against every answer-shape silence of the spec, each on a sandbox that
 * ALSO accepts a second payout with the same external id (issue 35): the journal, not the service,
 * is what keeps a payout from being paid twice. Per variant: a single payout sent, then the same
 * form again (refused before anything is sent, naming the payout); a file of rows with their own ids
 * sent, then the same file sent again past the warning (the sent rows are linked, never POSTed).
 * Every payout is paid once at the engine, every row ends final, History lists each payout once.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceVariant } from '../../packages/sandbox/src/variants/catalogue';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { resumedBatchReaches, sendConfirmed, withRows } from './batch-helpers';
import { expectFail, expectOk, paymentRequest, startRuntime, virtualClock } from './helpers';

const SHAPES: readonly ServiceVariant[] = ['nulls-omitted', 'millisecond-timestamps', 'extra-fields', 'unlisted-status', 'created-201'];
/** `null`: duplicates accepted alone. */
const MATRIX: readonly (ServiceVariant | null)[] = [null, ...SHAPES];

function file(tag: string): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 0; index < 3; index += 1) lines.push(`+23769${String(index + 1).padStart(7, '0')},${500 + index},Person${index},${tag},p${index}@example.com,${tag} ${index},${tag}-ROW-${index}`);
  return `${lines.join('\n')}\n`;
}

describe.each(MATRIX.map((variant) => ({ variant, name: variant ?? 'duplicates-accepted alone' })))('on a service with duplicates accepted: $name', ({ variant }) => {
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  beforeAll(async () => {
    runtime = await startRuntime({
      clock: virtualClock(),
      engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, variants: { enabled: ['duplicates-accepted', ...(variant ? [variant] : [])] } },
    });
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  });
  const engineCount = (externalId: string) =>
    (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

  it('sends a payout once: the same form again is refused before anything is sent, naming the payout', async () => {
    const request = { ...paymentRequest({ external_id: `ONE-${variant ?? 'dup'}`, phone_number: '+237691000001', amount: 700 }), payment_method: 'momo_cm' };
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    const paid = expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    expect(paid.state).toBe('known');
    const again = expectFail(await runtime.handlers['payouts:prepare']({ request }), 'ALREADY_SENT');
    expect(again.journalId).toBe(paid.id);
    // A confirmation issued before the first send cannot send it twice either.
    const early = expectOk(await runtime.handlers['payouts:prepare']({ request: { ...request, external_id: `TWO-${variant ?? 'dup'}` } }));
    const twoRequest = { ...request, external_id: `TWO-${variant ?? 'dup'}` };
    const late = expectOk(await runtime.handlers['payouts:prepare']({ request: twoRequest }));
    expectOk(await runtime.handlers['payouts:initiate']({ request: twoRequest, confirmationToken: early.confirmationToken }));
    expectFail(await runtime.handlers['payouts:initiate']({ request: twoRequest, confirmationToken: late.confirmationToken }), 'ALREADY_SENT');
    expect([engineCount(request.external_id!), engineCount(twoRequest.external_id)]).toEqual([1, 1]);
  });

  it('pays each row of a file once when the file is sent again past the warning; every row final, History lists each once', async () => {
    const tag = `F${MATRIX.indexOf(variant)}`;
    const first = expectOk(await runtime.handlers['batches:import']({ fileName: 'pay.csv', text: file(tag), paymentMethod: 'momo_cm' }));
    await sendConfirmed(runtime, first.batch.id);
    const again = expectOk(await runtime.handlers['batches:import']({ fileName: 'pay.csv', text: file(tag), paymentMethod: 'momo_cm' }));
    await sendConfirmed(runtime, again.batch.id, { acceptDuplicateFile: true });
    const ids = [0, 1, 2].map((index) => `${tag}-ROW-${index}`);
    expect(ids.map(engineCount)).toEqual([1, 1, 1]);
    const rows = (await withRows(runtime.handlers, again.batch.id)).rows;
    expect(rows.map((row) => [row.state, row.status, row.alreadySent ?? false])).toEqual(ids.map(() => ['accepted', 'completed', true]));
    // Each names the batch and row that paid it.
    expect(rows.map((row) => row.paidBy)).toEqual(rows.map((row) => ({ batchId: first.batch.id, rowNumber: row.rowNumber })));
    const firstRows = (await withRows(runtime.handlers, first.batch.id)).rows;
    expect(firstRows.map((row) => [row.state, row.status])).toEqual(ids.map(() => ['accepted', 'completed']));
    // Counted where they were paid: the second batch sent nothing and names them as paid elsewhere.
    const counts = async (batchId: string) => expectOk(await runtime.handlers['batches:get']({ batchId })).batch.counts;
    expect(await counts(again.batch.id)).toMatchObject({ valid: 3, elsewhere: 3, accepted: 0, completed: 0, notSent: 0 });
    expect(await counts(first.batch.id)).toMatchObject({ valid: 3, elsewhere: 0, accepted: 3, completed: 3 });
    for (const id of ids) {
      const listed = expectOk(await runtime.handlers['transactions:search']({ query: { kind: 'payout', externalId: id }, offset: 0, limit: 10 }));
      expect(listed.total).toBe(1);
    }
  });
});

describe('on a service with duplicates accepted that resets the connection after every 2nd create (the payout made, no answer)', () => {
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  beforeAll(async () => {
    runtime = await startRuntime({
      clock: virtualClock(),
      engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, variants: { enabled: ['duplicates-accepted', 'reset-after-create'], resetEvery: 2 } },
    });
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  });
  const engineCount = (externalId: string) =>
    (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

  it('a single payout whose answer was lost stays unknown, is found by Look up, and is never sent again', async () => {
    const send = async (externalId: string) => {
      const request = { ...paymentRequest({ external_id: externalId, phone_number: '+237692000001', amount: 900 }), payment_method: 'momo_cm' };
      const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
      return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
    };
    expectOk(await send('RST-1')); // the 1st create is answered
    const lost = expectFail(await send('RST-2'), 'OUTCOME_UNKNOWN'); // the 2nd: made, then the connection reset
    expect(engineCount('RST-2')).toBe(1);
    // Sent again before any look-up: refused by the journal (a reset is never a "not found").
    const request = { ...paymentRequest({ external_id: 'RST-2', phone_number: '+237692000001', amount: 900 }), payment_method: 'momo_cm' };
    expect(expectFail(await runtime.handlers['payouts:prepare']({ request }), 'ALREADY_SENT').journalId).toBe(lost.journalId);
    expectFail(await runtime.handlers['transactions:resend']({ journalId: lost.journalId! }), 'CONFLICT');
    const found = expectOk(await runtime.handlers['transactions:resolveUnknown']({ journalId: lost.journalId! }));
    expect(found).toMatchObject({ exists: true, transaction: { state: 'known' } });
    expect(engineCount('RST-2')).toBe(1);
  });

  it('a batch whose every 2nd create loses its answer: each row paid once, every row known after the look-ups, resumed twice', async () => {
    const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
    for (let index = 0; index < 6; index += 1) lines.push(`+23769300000${index + 1},${600 + index},P${index},Reset,p${index}@example.com,reset ${index},RB-${index}`);
    const draft = expectOk(await runtime.handlers['batches:import']({ fileName: 'reset.csv', text: `${lines.join('\n')}\n`, paymentMethod: 'momo_cm' }));
    let progress = await sendConfirmed(runtime, draft.batch.id);
    for (let resumes = 0; progress.state === 'interrupted' && resumes < 6; resumes += 1) {
      const ended = resumedBatchReaches(runtime, draft.batch.id, ['done', 'interrupted']);
      expectOk(await runtime.handlers['batches:resume']({ batchId: draft.batch.id }));
      progress = await ended;
    }
    expect(progress.state).toBe('done');
    const ids = [0, 1, 2, 3, 4, 5].map((index) => `RB-${index}`);
    expect(ids.map(engineCount)).toEqual([1, 1, 1, 1, 1, 1]);
    const rows = (await withRows(runtime.handlers, draft.batch.id)).rows;
    expect(rows.map((row) => row.state)).toEqual(ids.map(() => 'accepted'));
    // A retry of nothing failed is refused; the file again is linked, never sent.
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    const again = expectOk(await runtime.handlers['batches:import']({ fileName: 'reset.csv', text: `${lines.join('\n')}\n`, paymentMethod: 'momo_cm' }));
    await sendConfirmed(runtime, again.batch.id, { acceptDuplicateFile: true });
    expect(ids.map(engineCount)).toEqual([1, 1, 1, 1, 1, 1]);
  });
});
