/**
 * Never paid twice, across paths (issue 23 review): the paths of batch-identity.test.ts combined
 * (cancel, import again, retry the failed rows, send the remaining rows, a single payout, retries
 * of retries), against the real engine behind a proxy, the journal a real SQLite file. After each
 * scenario: the engine holds at most one transaction per external id and at most one that is not
 * failed per logical payout (an id and its `-rN` retries), History lists no refused entry for a
 * paid id and each entry's status is the engine's, and the Overview counts the engine's payouts.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import { batchReaches, until, withRows, sendAndCancel as cancelWhileSending, sendConfirmed } from './batch-helpers';
import { activateEngineProfile, expectFail, expectOk, paymentRequest, startRuntime, virtualClock } from './helpers';
import { expectNeverTwice as holds, FAILING, file } from './never-twice-helpers';
import { RATE_LIMITED, startGateProxy, type GateProxy } from './gate-proxy';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
let proxy: GateProxy;
/** Called at the start of each of the console's waits (a test pauses or cancels there). */
let onSleep: ((ms: number) => Promise<void>) | null = null;

beforeAll(async () => {
  const clock = virtualClock();
  const sleep = clock.sleep.bind(clock);
  clock.sleep = async (ms, signal) => {
    if (onSleep) await onSleep(ms);
    return sleep(ms, signal);
  };
  runtime = await startRuntime({ clock, engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  proxy = await startGateProxy(runtime.engineUrl!);
  await activateEngineProfile(runtime, proxy.url, 'Finance, never twice');
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

/** Ids of the shared engine refused once, then paid (see expectNeverTwice). */
const REFUSED_THEN_PAID = ['RF-0-r1'];
const expectNeverTwice = () => holds(runtime, runtime.engine!, REFUSED_THEN_PAID);

async function importFile(name: string, text: string) {
  return expectOk(await runtime.handlers['batches:import']({ fileName: name, text, paymentMethod: 'momo_cm' }));
}

const send = (batchId: string, options: { acceptDuplicateFile?: true; concurrency?: number } = {}) => sendConfirmed(runtime, batchId, options);
const sendAndCancel = (batchId: string, cancelAt: string) => cancelWhileSending(runtime, proxy, batchId, cancelAt);

/** A retry draft with every row's phone set to a number that completes. */
async function retryThatCompletes(batchId: string) {
  const made = expectOk(await runtime.handlers['batches:retryFailed']({ batchId }));
  for (const row of (await withRows(runtime.handlers, made.batch.id)).rows) {
    expectOk(await runtime.handlers['batches:updateRow']({ batchId: made.batch.id, rowNumber: row.rowNumber, values: { phone_number: '+237681111111' } }));
  }
  return withRows(runtime.handlers, made.batch.id);
}

describe('the failed rows of one batch retried twice', () => {
  it('after the first retry paid them: the original offers no row again, and no -r2 is minted for a paid payout', async () => {
    const draft = await importFile('twice.csv', file(3, 'twice', { ids: (index) => `TW-${index}`, phone: (index) => (index === 1 ? FAILING : `+23768200000${index}`) }));
    await send(draft.batch.id);
    const first = await retryThatCompletes(draft.batch.id);
    expect(first.rows.map((row) => row.externalId)).toEqual(['TW-1-r1']);
    await send(first.batch.id);
    expect((await withRows(runtime.handlers, first.batch.id)).rows.map((row) => row.status)).toEqual(['completed']);

    // The original batch's row TW-1 still reads failed, but its payout was retried and paid.
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    await expectNeverTwice();
  });

  it('after the first retry failed again: the original derives the retry of that retry (-r2, linked to -r1)', async () => {
    const draft = await importFile('again.csv', file(2, 'again', { ids: (index) => `AG-${index}`, phone: (index) => (index === 0 ? FAILING : '+237682000009') }));
    await send(draft.batch.id);
    const first = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id })));
    await send(first.batch.id); // the same failing number: AG-0-r1 fails too
    const second = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id })));
    expect(second.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['AG-0-r2', 'AG-0-r1']]);
    // The retry of the first retry derives the same id: the service's duplicate check guards both.
    const viaRetry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: first.batch.id })));
    expect(viaRetry.rows.map((row) => row.externalId)).toEqual(['AG-0-r2']);
    for (const batchId of [second.batch.id, viaRetry.batch.id]) {
      expectOk(await runtime.handlers['batches:updateRow']({ batchId, rowNumber: 2, values: { phone_number: '+237681111112' } }));
    }
    await send(second.batch.id);
    await send(viaRetry.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, viaRetry.batch.id)).rows.map((row) => [row.status, row.alreadySent ?? false])).toEqual([['completed', true]]);
    await expectNeverTwice();
  });

  it('while the retry is on the wire: the original offers no row (its retry may be paid)', async () => {
    const draft = await importFile('wire.csv', file(1, 'wire', { ids: () => 'WR-0', phone: () => FAILING }));
    await send(draft.batch.id);
    const retry = await retryThatCompletes(draft.batch.id);
    let meanwhile: ReturnType<Runtime['handlers']['batches:retryFailed']> | undefined;
    proxy.decide = (request) => {
      // The retry's entry is written (pending) before its POST leaves: asked now, while it is in flight.
      if (request.method === 'POST' && request.externalId === 'WR-0-r1') meanwhile = runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id });
      return 'forward';
    };
    try {
      await send(retry.batch.id);
    } finally {
      proxy.decide = () => 'forward';
    }
    expectFail(await meanwhile!, 'CONFLICT');
    await expectNeverTwice();
  });

  it('after the first retry was refused (nothing created): the original retries under that same id', async () => {
    const draft = await importFile('refused.csv', file(1, 'refused', { ids: () => 'RF-0', phone: () => FAILING }));
    await send(draft.batch.id);
    const first = await retryThatCompletes(draft.batch.id);
    proxy.decide = (request) =>
      request.method === 'POST' && request.externalId === 'RF-0-r1'
        ? { status: 422, body: { success: false, message: 'The wallet balance does not cover it.', code: 'INSUFFICIENT_FUNDS', errors: null } }
        : 'forward';
    try {
      await send(first.batch.id);
    } finally {
      proxy.decide = () => 'forward';
    }
    expect((await withRows(runtime.handlers, first.batch.id)).rows.map((row) => row.state)).toEqual(['rejected']);
    // Retried from the refused retry too: the same id, still linked to the payout it retries.
    const viaRetry = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:retryFailed']({ batchId: first.batch.id })));
    expect(viaRetry.rows.map((row) => [row.externalId, row.retryOf ?? null])).toEqual([['RF-0-r1', 'RF-0']]);
    const again = await retryThatCompletes(draft.batch.id);
    expect(again.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['RF-0-r1', 'RF-0']]);
    await send(again.batch.id, { acceptDuplicateFile: true }); // the same rows as the refused retry: asked first
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    // One record per payout: RF-0-r1's 422 refusal is an attempt on the timeline of the entry that then paid it.
    const listed = expectOk(await runtime.handlers['transactions:search']({ query: { kind: 'payout', externalId: 'RF-0-r1' }, offset: 0, limit: 10 }));
    expect(listed.rows.map((entry) => entry.state)).toEqual(['known']);
    const { timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: listed.rows[0]!.id }));
    expect(timeline.some((event) => event.code === 'INSUFFICIENT_FUNDS')).toBe(true);
    await expectNeverTwice();
  });

  it('made before either is confirmed: both drafts hold the same derived id, the second is adopted', async () => {
    const draft = await importFile('drafts.csv', file(1, 'drafts', { ids: () => 'DR-0', phone: () => FAILING }));
    await send(draft.batch.id);
    const one = await retryThatCompletes(draft.batch.id);
    const two = await retryThatCompletes(draft.batch.id);
    expect([one.rows[0]!.externalId, two.rows[0]!.externalId]).toEqual(['DR-0-r1', 'DR-0-r1']);
    await send(one.batch.id);
    expectFail(await runtime.handlers['batches:prepare']({ batchId: two.batch.id }), 'CONFIRMATION_REQUIRED');
    await send(two.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, two.batch.id)).rows.map((row) => [row.status, row.alreadySent ?? false])).toEqual([['completed', true]]);
    await expectNeverTwice();
  });
});

describe('two retry drafts of the same rows started together', () => {
  it('pays each row once: whichever POST comes second is refused as existing and adopted', async () => {
    const draft = await importFile('together.csv', file(3, 'together', { ids: (index) => `TG-${index}`, phone: () => FAILING }));
    await send(draft.batch.id);
    const one = await retryThatCompletes(draft.batch.id);
    const two = await retryThatCompletes(draft.batch.id);
    const first = expectOk(await runtime.handlers['batches:prepare']({ batchId: one.batch.id })).confirmationToken;
    const second = expectOk(await runtime.handlers['batches:prepare']({ batchId: two.batch.id, acceptDuplicateFile: true })).confirmationToken;
    const stopped = [batchReaches(runtime, one.batch.id, ['done', 'interrupted']), batchReaches(runtime, two.batch.id, ['done', 'interrupted'])];
    expectOk(await runtime.handlers['batches:start']({ batchId: one.batch.id, confirmationToken: first, concurrency: 3 }));
    expectOk(await runtime.handlers['batches:start']({ batchId: two.batch.id, confirmationToken: second, concurrency: 3 }));
    await Promise.all(stopped);
    await until(runtime, ['transaction:changed', 'batch:progress'], () =>
      [one.batch.id, two.batch.id].every((batchId) => countRows(runtime.journal, batchId).counts.processing + countRows(runtime.journal, batchId).counts.unknown === 0),
    );
    const rows = [...(await withRows(runtime.handlers, one.batch.id)).rows, ...(await withRows(runtime.handlers, two.batch.id)).rows];
    expect(rows.map((row) => row.status)).toEqual(Array(6).fill('completed'));
    // Each id once paid, once adopted (which batch adopts which row depends on timing).
    expect(rows.filter((row) => row.alreadySent === true)).toHaveLength(3);
    await expectNeverTwice();
  });
});

describe('cancel, import again, retry failed, send remaining (combined)', () => {
  it('pays each row of the file once whichever path sends it', async () => {
    const text = file(6, 'combo', { phone: (index) => (index === 1 ? FAILING : `+23768300000${index}`) });
    const first = await importFile('combo.csv', text);
    const firstId = first.batch.id;
    expect((await sendAndCancel(firstId, `${firstId}-4`)).state).toBe('cancelled');
    // The file again with the override: rows 2-4 adopt what exists (row 3 failed), rows 5-7 are paid.
    const again = await importFile('combo.csv', text);
    await send(again.batch.id, { acceptDuplicateFile: true });
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: again.batch.id }), 'CONFLICT');
    // The cancelled batch's remaining rows: the re-import paid them, so they are adopted.
    const remaining = expectOk(await runtime.handlers['batches:sendRemaining']({ batchId: firstId }));
    await send(remaining.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, remaining.batch.id)).rows.every((row) => row.alreadySent === true)).toBe(true);
    // The original's failed row: retried once under a derived id, and then never again.
    const retry = await retryThatCompletes(firstId);
    expect(retry.rows.map((row) => row.externalId)).toEqual([`${firstId}-3-r1`]);
    await send(retry.batch.id);
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: firstId }), 'CONFLICT');
    await expectNeverTwice();
  });

  it('send remaining, then retry the original\'s failed rows: each row once', async () => {
    const first = await importFile('rest.csv', file(5, 'rest', { phone: (index) => (index === 0 ? FAILING : `+23768400000${index}`) }));
    const firstId = first.batch.id;
    await sendAndCancel(firstId, `${firstId}-3`);
    const remaining = expectOk(await runtime.handlers['batches:sendRemaining']({ batchId: firstId }));
    await send(remaining.batch.id);
    const retry = await retryThatCompletes(firstId);
    expect(retry.rows.map((row) => row.externalId)).toEqual([`${firstId}-2-r1`]);
    await send(retry.batch.id);
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: firstId }), 'CONFLICT');
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: remaining.batch.id }), 'CONFLICT');
    await expectNeverTwice();
  });
});

describe('paused during a 429 wait, then cancelled, then the remaining rows sent', () => {
  it('sends the row that met the 429 once, under its id; History shows it paid, the 429 in its timeline', async () => {
    const draft = await importFile('wait.csv', file(5, 'wait'));
    const batchId = draft.batch.id;
    let throttled = false;
    proxy.decide = (request) => {
      if (request.method === 'POST' && request.externalId === `${batchId}-3` && !throttled) {
        throttled = true;
        return RATE_LIMITED(30);
      }
      return 'forward';
    };
    onSleep = async (ms) => {
      if (ms < 1000) return;
      onSleep = null;
      expectOk(await runtime.handlers['batches:pause']({ batchId }));
    };
    try {
      const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
      const paused = batchReaches(runtime, batchId, ['paused']);
      expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
      expect(await paused).toMatchObject({ state: 'paused', accepted: 1 });
    } finally {
      proxy.decide = () => 'forward';
      onSleep = null;
    }
    const cancelled = batchReaches(runtime, batchId, ['cancelled']);
    expectOk(await runtime.handlers['batches:cancel']({ batchId }));
    await cancelled;
    const caught = (await withRows(runtime.handlers, batchId)).rows;
    expect(caught.map((row) => row.state)).toEqual(['accepted', 'not_sent', 'not_sent', 'not_sent', 'not_sent']);
    expect(caught[1]!.journalId).not.toBeNull(); // the 429 attempt was written
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId }), 'CONFLICT');

    const remaining = await withRows(runtime.handlers, expectOk(await runtime.handlers['batches:sendRemaining']({ batchId })));
    expect(remaining.rows.map((row) => row.externalId)).toEqual(caught.slice(1).map((row) => row.externalId));
    expect(await send(remaining.batch.id)).toMatchObject({ state: 'done' });
    const sent = (await withRows(runtime.handlers, remaining.batch.id)).rows;
    expect(sent[0]!.journalId).toBe(caught[1]!.journalId); // one entry for the row: the 429, then its payout
    const { transaction, timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: sent[0]!.journalId! }));
    expect(transaction).toMatchObject({ state: 'known', status: 'completed' });
    expect(timeline.some((event) => event.httpStatus === 429)).toBe(true);
    await expectNeverTwice();
  });
});

describe('the same file imported twice before either draft is sent', () => {
  it('the second draft, sent with the override after the first, adopts every row the first paid', async () => {
    const text = file(3, 'two-drafts');
    const one = await importFile('two-drafts.csv', text);
    const two = await importFile('two-drafts.csv', text);
    await send(one.batch.id);
    expectFail(await runtime.handlers['batches:prepare']({ batchId: two.batch.id }), 'CONFIRMATION_REQUIRED');
    await send(two.batch.id, { acceptDuplicateFile: true });
    const rows = (await withRows(runtime.handlers, two.batch.id)).rows;
    expect(rows.map((row) => row.alreadySent ?? false)).toEqual([true, true, true]);
    await expectNeverTwice();
  });
});

describe('a row dropped from the first draft of a file, sent by a later import', () => {
  it('keeps the id that import gave it when the file is imported a third time', async () => {
    const text = file(3, 'dropped');
    const first = await importFile('dropped.csv', text);
    expectOk(await runtime.handlers['batches:dropRows']({ batchId: first.batch.id, rowNumbers: [3] }));
    const second = await importFile('dropped.csv', text);
    await send(second.batch.id, { acceptDuplicateFile: true });
    const third = await importFile('dropped.csv', text);
    expect((await withRows(runtime.handlers, third.batch.id)).rows.map((row) => row.externalId)).toEqual((await withRows(runtime.handlers, second.batch.id)).rows.map((row) => row.externalId));
    await send(third.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, third.batch.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true, true, true]);
    await expectNeverTwice();
  });
});

describe('the invalid rows fixed and imported again with the override', () => {
  it('adopts the rows sent, pays the fixed one, and offers nothing for retry', async () => {
    const broken = file(3, 'fixed', { ids: (index) => `NFX-${index}` }).replace(',301,', ',abc,');
    const first = await importFile('nfixed.csv', broken);
    expectOk(await runtime.handlers['batches:dropRows']({ batchId: first.batch.id, invalid: true }));
    await send(first.batch.id);
    const draft = await importFile('nfixed (corrected).csv', broken.replace(',abc,', ',301,'));
    await send(draft.batch.id, { acceptDuplicateFile: true });
    const rows = (await withRows(runtime.handlers, draft.batch.id)).rows;
    expect(rows.map((row) => [row.externalId, row.alreadySent ?? false])).toEqual([['NFX-0', true], ['NFX-1', false], ['NFX-2', true]]);
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    await expectNeverTwice();
  });
});

describe('a file without external ids: its invalid rows downloaded, fixed and imported, or the whole file fixed', () => {
  it('sends only the fixed row; the whole file fixed names the rows already sent', async () => {
    const broken = file(3, 'noid').replace(',301,', ',abc,');
    const first = await importFile('noid.csv', broken);
    const invalid = expectOk(await runtime.handlers['batches:invalidRows']({ batchId: first.batch.id, language: 'en' }));
    expectOk(await runtime.handlers['batches:dropRows']({ batchId: first.batch.id, invalid: true }));
    await send(first.batch.id);
    const sentIds = (await withRows(runtime.handlers, first.batch.id)).rows.map((row) => row.externalId);

    // The invalid rows as a file, fixed, imported: only that row, under the id it had.
    const fixedRows = await importFile('noid invalid rows.csv', invalid.csv.replace('"abc"', '"301"'));
    const fixed = await withRows(runtime.handlers, fixedRows.batch.id);
    expect(fixed.rows.filter((row) => row.request !== null).map((row) => [row.values.phone_number, row.externalId])).toEqual([['+237680000002', `${first.batch.id}-3`]]);
    await send(fixed.batch.id);

    // The whole file fixed (no ids in it): the two rows sent before are named as sent, not paid again.
    const whole = await importFile('noid (fixed).csv', broken.replace(',abc,', ',301,'));
    expect(whole.sentEarlier?.count ?? 0).toBe(3);
    expect(expectFail(await runtime.handlers['batches:prepare']({ batchId: whole.batch.id }), 'CONFIRMATION_REQUIRED')).toBeDefined();
    expect(whole.sentEarlier!.rows.map((row) => row.externalId)).toEqual([sentIds[0], `${first.batch.id}-3`, sentIds[1]]);
    await send(whole.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, whole.batch.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true, true, true]);
    await expectNeverTwice();
  });
});

describe('a new file that shares some rows with one sent earlier', () => {
  it('is new payouts: a row changed among the sent ones means new ids for all, nothing adopted', async () => {
    const october = file(3, 'payroll');
    const first = await importFile('october.csv', october);
    await send(first.batch.id);
    const november = october.replace('payroll 1', 'payroll 1 november');
    const next = await importFile('november.csv', november);
    expect(next.sentEarlier?.count ?? 0).toBe(0);
    const ids = (await withRows(runtime.handlers, next.batch.id)).rows.map((row) => row.externalId);
    expect(ids.every((id) => id.startsWith(`${next.batch.id}-`))).toBe(true);
  });
});

describe('a single payout whose external id is a batch row\'s', () => {
  it('is never sent twice either way round: refused as a single payout, linked as a batch row; counted once', async () => {
    const draft = await importFile('single.csv', file(1, 'single', { ids: () => 'SGL-0', phone: () => '+237685000001' }));
    await send(draft.batch.id);
    const request = { ...paymentRequest({ external_id: 'SGL-0', phone_number: '+237685000001', amount: 300 }), payment_method: 'momo_cm' };
    const refused = expectFail(await runtime.handlers['payouts:prepare']({ request }), 'ALREADY_SENT');
    expect(refused.journalId).toBe((await withRows(runtime.handlers, draft.batch.id)).rows[0]!.journalId);
    // The other way: a single payout first, then a batch row with its id.
    const single = { ...paymentRequest({ external_id: 'SGL-1', phone_number: '+237685000002', amount: 300 }), payment_method: 'momo_cm' };
    const quoted = expectOk(await runtime.handlers['payouts:prepare']({ request: single }));
    const paidSingle = expectOk(await runtime.handlers['payouts:initiate']({ request: single, confirmationToken: quoted.confirmationToken }));
    // Its final status comes by the engine's push (a linked row reads nothing at the service): waited for, not timed.
    const statusOf = () => (runtime.journal.prepare('SELECT status FROM entries WHERE id = ?').get(paidSingle.id) as { status: string | null }).status;
    await until(runtime, ['transaction:changed'], () => statusOf() === 'completed');
    const batch = await importFile('single-2.csv', file(1, 'single', { ids: () => 'SGL-1', phone: () => '+237685000002' }));
    await send(batch.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, batch.batch.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true]);
    await expectNeverTwice();
  });
});

