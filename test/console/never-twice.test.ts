/**
 * Never paid twice, across paths (issue 23 review): the paths of batch-identity.test.ts combined
 * (cancel, import again, retry the failed rows, send the remaining rows, a single payout, retries
 * of retries), against the real engine behind a proxy, the journal a real SQLite file. After each
 * scenario: the engine holds at most one transaction per external id and at most one that is not
 * failed per logical payout (an id and its `-rN` retries), History lists no refused entry for a
 * paid id and each entry's status is the engine's, and the Overview counts the engine's payouts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../../electron/console/batch/store';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { OVERVIEW_DAYS } from '../../shared/api';
import { batchReaches, until, withRows } from './batch-helpers';
import { expectFail, expectOk, paymentRequest, startRuntime, tempDir, virtualClock } from './helpers';
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
  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name: 'Finance, never twice',
      baseUrl: proxy.url,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

interface EngineRow {
  external_id: string;
  status: string;
  amount: number;
}
type Engine = EngineHandle;
const engineRows = (engine: Engine) => engineInternals(engine).db.prepare("SELECT external_id, status, amount FROM transactions WHERE kind = 'payout'").all() as EngineRow[];
/** `X-r2` → `X`: the logical payout an id stands for. */
const rootOf = (externalId: string) => externalId.replace(/(-r\d+)+$/, '');
const FAILING = '+237650000002';
/** Ids of the shared engine refused once, then paid (see expectNeverTwice). */
const REFUSED_THEN_PAID = ['RF-0-r1']; // the sandbox fails a payout to this number (PAYER_NOT_FOUND)

/** The invariants every scenario ends with (see the file's comment). */
async function expectNeverTwice(desk: Pick<Runtime, 'handlers'> = runtime, engine: Engine = runtime.engine!, refusedThenPaid: readonly string[] = REFUSED_THEN_PAID) {
  const rows = engineRows(engine);
  const perId = new Map<string, number>();
  const livePerRoot = new Map<string, string[]>();
  for (const row of rows) {
    perId.set(row.external_id, (perId.get(row.external_id) ?? 0) + 1);
    if (row.status !== 'failed' && row.status !== 'cancelled') livePerRoot.set(rootOf(row.external_id), [...(livePerRoot.get(rootOf(row.external_id)) ?? []), row.external_id]);
  }
  expect([...perId].filter(([, n]) => n > 1)).toEqual([]);
  expect([...livePerRoot].filter(([, ids]) => ids.length > 1)).toEqual([]);

  const byId = new Map(rows.map((row) => [row.external_id, row]));
  const history = expectOk(await desk.handlers['transactions:search']({ query: { kind: 'payout' }, offset: 0, limit: 500 }));
  expect(history.total).toBeLessThanOrEqual(500);
  // `refusedThenPaid`: ids refused with an error code (nothing created), then paid by a later
  // attempt: decision attempts-belong-to-their-payout.md keeps such a refusal as its own entry.
  const paidRefused = history.rows.filter((entry) => entry.externalId !== null && byId.has(entry.externalId) && entry.state === 'rejected');
  expect(paidRefused.map((entry) => entry.externalId).filter((id) => !refusedThenPaid.includes(id!))).toEqual([]);
  for (const entry of paidRefused) expect(entry.lastError?.code).not.toBe('NOT_SENT');
  const disagree = history.rows
    .filter((entry) => entry.state === 'known' && entry.externalId !== null)
    .filter((entry) => entry.status !== byId.get(entry.externalId!)?.status)
    .map((entry) => [entry.externalId, entry.status, byId.get(entry.externalId!)?.status ?? 'absent']);
  expect(disagree).toEqual([]);

  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const dayBoundaries = Array.from({ length: OVERVIEW_DAYS + 1 }, (_, i) => new Date(start.getTime() + (i - OVERVIEW_DAYS + 1) * 86_400_000).toISOString());
  const today = expectOk(await desk.handlers['overview:get']({ dayBoundaries })).today;
  expect(today.total.count).toBe(rows.length);
  expect(today.total.amounts).toEqual([{ currency: 'XAF', amount: rows.reduce((sum, row) => sum + row.amount, 0) }]);
}

/** A file of `count` rows; `phone(index)` and `ids(index)` (external_id column) when given. */
function file(count: number, tag: string, options: { ids?: (index: number) => string; phone?: (index: number) => string } = {}): string {
  const lines = ['phone_number,amount,first_name,last_name,email,description,external_id'];
  for (let index = 0; index < count; index += 1) {
    const phone = options.phone?.(index) ?? `+23768${String(index + 1).padStart(7, '0')}`;
    lines.push(`${phone},${300 + index},Person${index},${tag},p${index}@example.com,${tag} ${index},${options.ids?.(index) ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

async function importFile(name: string, text: string) {
  return expectOk(await runtime.handlers['batches:import']({ fileName: name, text, paymentMethod: 'momo_cm' }));
}

async function send(batchId: string, options: { acceptDuplicateFile?: true } = {}) {
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId, ...(options.acceptDuplicateFile ? { acceptDuplicateFile: true } : {}) }));
  const stopped = batchReaches(runtime, batchId, ['done', 'interrupted', 'cancelled']);
  expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
  const progress = await stopped;
  await until(runtime, ['transaction:changed', 'batch:progress'], () => {
    const { counts } = countRows(runtime.journal, batchId);
    return counts.processing === 0 && counts.unknown === 0;
  });
  return progress;
}

async function sendAndCancel(batchId: string, cancelAt: string) {
  proxy.decide = (request) => {
    if (request.externalId === cancelAt) void runtime.handlers['batches:cancel']({ batchId });
    return 'forward';
  };
  try {
    return await send(batchId);
  } finally {
    proxy.decide = () => 'forward';
  }
}

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
    const again = await retryThatCompletes(draft.batch.id);
    expect(again.rows.map((row) => [row.externalId, row.retryOf])).toEqual([['RF-0-r1', 'RF-0']]);
    await send(again.batch.id, { acceptDuplicateFile: true }); // the same rows as the refused retry: asked first
    expectFail(await runtime.handlers['batches:retryFailed']({ batchId: draft.batch.id }), 'CONFLICT');
    // Left to the lead (review report): History lists RF-0-r1's 422 refusal as a REJECTED entry
    // next to the entry that paid it.
    const listed = expectOk(await runtime.handlers['transactions:search']({ query: { kind: 'payout', externalId: 'RF-0-r1' }, offset: 0, limit: 10 }));
    expect(listed.rows.map((entry) => entry.state).sort()).toEqual(['known', 'rejected']);
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

describe('a single payout whose external id is a batch row\'s', () => {
  it('is adopted either way round, counted once', async () => {
    const draft = await importFile('single.csv', file(1, 'single', { ids: () => 'SGL-0', phone: () => '+237685000001' }));
    await send(draft.batch.id);
    const request = { ...paymentRequest({ external_id: 'SGL-0', phone_number: '+237685000001', amount: 300 }), payment_method: 'momo_cm' };
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
    expect(expectOk(await runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }))).toMatchObject({ alreadySent: true });
    // The other way: a single payout first, then a batch row with its id.
    const single = { ...paymentRequest({ external_id: 'SGL-1', phone_number: '+237685000002', amount: 300 }), payment_method: 'momo_cm' };
    const quoted = expectOk(await runtime.handlers['payouts:prepare']({ request: single }));
    expectOk(await runtime.handlers['payouts:initiate']({ request: single, confirmationToken: quoted.confirmationToken }));
    const batch = await importFile('single-2.csv', file(1, 'single', { ids: () => 'SGL-1', phone: () => '+237685000002' }));
    await send(batch.batch.id, { acceptDuplicateFile: true });
    expect((await withRows(runtime.handlers, batch.batch.id)).rows.map((row) => row.alreadySent ?? false)).toEqual([true]);
    await expectNeverTwice();
  });
});

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
    engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 } });
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

async function until_(check: () => boolean) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
