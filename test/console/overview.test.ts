/**
 * `overview:get` against the real runtime: transactions made through the real engine (completed,
 * failed with codes, cancelled, rejected, one stuck processing), a real journal file, the console
 * clock moved past the 10-minute mark, and Verify taking the stuck one off the list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalTransaction, OverviewResult } from '../../shared/api';
import type { TransactionRequest } from '../../shared/contract';
import { systemClock } from '../../electron/console/deps';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { expectFail, expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
const DAY = 86_400_000;
const MINUTE = 60_000;

let runtime: Runtime;
/** The console's clock: wall time plus what the test moves it by (sleeps are real). */
let offset = 0;
const clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
let dayBoundaries: string[];
let stuck: JournalTransaction;

/** The 7 UTC days ending with the one that holds `at`, and the start of the next. */
function utcWeek(at: number): string[] {
  const today = Math.floor(at / DAY) * DAY;
  return Array.from({ length: 8 }, (_, i) => new Date(today + (i - 6) * DAY).toISOString());
}

/** Sends a payment or payout and, unless it should stay processing, settles it and waits for the watch to read the outcome. */
async function transact(kind: 'payment' | 'payout', request: Partial<TransactionRequest>, settle = true): Promise<JournalTransaction> {
  const full = paymentRequest(request);
  let created: JournalTransaction;
  if (kind === 'payment') {
    created = expectOk(await runtime.handlers['payments:create']({ request: full }));
  } else {
    const quote = expectOk(await runtime.handlers['payouts:prepare']({ request: full }));
    created = expectOk(await runtime.handlers['payouts:initiate']({ request: full, confirmationToken: quote.confirmationToken }));
  }
  if (!settle) return created;
  const done = nextEvent(runtime, 'watch:progress', (p) => p.journalId === created.id && p.done);
  expectOk(await runtime.handlers['sandbox:settle']({ transactionId: created.transactionId! }));
  await done;
  return expectOk(await runtime.handlers['transactions:get']({ journalId: created.id })).transaction;
}

async function overview(): Promise<OverviewResult> {
  return expectOk(await runtime.handlers['overview:get']({ dayBoundaries }));
}

beforeAll(async () => {
  runtime = await startRuntime({ clock });
  const completed = await transact('payment', { amount: 5000, phone_number: '+237650000001' });
  expect(completed.status).toBe('completed');
  dayBoundaries = utcWeek(Date.parse(completed.createdAt));
  const notFound = await transact('payment', { amount: 3000, phone_number: '+237650000002' });
  expect(notFound.failedCode).toBe('PAYER_NOT_FOUND');
  expect((await transact('payment', { amount: 4000, phone_number: '+237650000003' })).failedCode).toBe('NOT_ENOUGH_FUNDS');
  expect((await transact('payout', { amount: 2000, phone_number: '+237650000001' })).status).toBe('completed');
  expect((await transact('payout', { amount: 1500, phone_number: '+237650000009' })).status).toBe('cancelled');
  stuck = await transact('payment', { amount: 7500, phone_number: '+237650000008' }, false);
  // The provider completes it, but the service never hears: it stays processing until Verify.
  expect(expectOk(await runtime.handlers['sandbox:settle']({ transactionId: stuck.transactionId! })).status).toBe('processing');
  // Refused by the API: journalled as rejected, never a transaction, so never counted (issue 23 item 3).
  expectFail(await runtime.handlers['payments:create']({ request: paymentRequest({ payment_method: 'no_such_method', amount: 999 }) }), 'PAYMENT_METHOD_NOT_SUPPORTED');
}, 60_000);

afterAll(async () => {
  await runtime?.close();
});

describe('overview:get on the real journal', () => {
  it("counts today's transactions by status and by kind, with amounts, and the success rate among final ones", async () => {
    const figures = await overview();
    expect(figures.profile).toMatchObject({ id: LOCAL_SANDBOX_ID, environment: 'sandbox' });
    const status = Object.fromEntries(figures.today.byStatus.map((s) => [s.status, [s.count, s.amounts]]));
    expect(status.completed).toEqual([2, [{ currency: 'XAF', amount: 7000 }]]);
    expect(status.failed).toEqual([2, [{ currency: 'XAF', amount: 7000 }]]);
    expect(status.cancelled).toEqual([1, [{ currency: 'XAF', amount: 1500 }]]);
    expect(status.processing).toEqual([1, [{ currency: 'XAF', amount: 7500 }]]);
    expect(status.rejected).toBeUndefined();
    expect(figures.today.byKind).toEqual([
      { kind: 'payment', count: 4, amounts: [{ currency: 'XAF', amount: 5000 + 3000 + 4000 + 7500 }] },
      { kind: 'payout', count: 2, amounts: [{ currency: 'XAF', amount: 3500 }] },
    ]);
    // completed / (completed + failed + cancelled): the processing and the rejected one are not final outcomes.
    expect(figures.today.success).toEqual({ completed: 2, final: 5, rate: 0.4 });
    expect(figures.today.failures.map((f) => [f.code, f.count])).toEqual([
      ['NOT_ENOUGH_FUNDS', 1],
      ['PAYER_NOT_FOUND', 1],
    ]);
    expect(figures.week.total.count).toBe(6);
    expect(figures.days).toHaveLength(7);
    expect(figures.days[6]).toMatchObject({ start: dayBoundaries[6], end: dayBoundaries[7], failed: 2 });
    expect(figures.days[6]!.payments.count).toBe(4);
    expect(figures.days.slice(0, 6).every((day) => day.payments.count + day.payouts.count === 0)).toBe(true);
  });

  it('lists a transaction still processing only once it is more than 10 minutes old, and Verify takes it off', async () => {
    expect((await overview()).stuck).toEqual({ rows: [], total: 0, olderThanMinutes: 10 });
    offset = 9 * MINUTE;
    expect((await overview()).stuck.total).toBe(0);
    offset = 11 * MINUTE;
    const listed = (await overview()).stuck;
    expect(listed.total).toBe(1);
    expect(listed.rows.map((row) => [row.id, row.status, row.phoneNumber])).toEqual([[stuck.id, 'processing', '+237650000008']]);

    const verified = expectOk(await runtime.handlers['transactions:verify']({ journalId: stuck.id }));
    expect(verified.transaction.status).toBe('completed');
    const after = await overview();
    expect(after.stuck.total).toBe(0);
    expect(after.today.success).toEqual({ completed: 3, final: 6, rate: 0.5 });
  });

  it("leaves out other profiles' and other environments' entries", async () => {
    const before = await overview();
    const insert = runtime.journal.prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, status, amount, currency, phone_number,
         payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES (?, ?, 'x', ?, 'payment', 'known', 'completed', 100, 'XAF', '+237650000001', 'momo_cm', 'A', 'B', 'a@b.c', ?, ?)`,
    );
    const at = Date.parse(dayBoundaries[6]!) + 1000;
    insert.run('other-profile-entry', 'other-profile', 'sandbox', at, at);
    insert.run('other-environment-entry', LOCAL_SANDBOX_ID, 'live', at, at);
    expect(await overview()).toEqual({ ...before, generatedAt: expect.any(String) });
  });

  it('answers INVALID_INPUT for boundaries that are not seven consecutive days', async () => {
    const seven = expectFail(await runtime.handlers['overview:get']({ dayBoundaries: dayBoundaries.slice(1) }), 'INVALID_INPUT');
    expect(Object.keys(seven.fields ?? {})).toEqual(['dayBoundaries']);
    const swapped = [...dayBoundaries];
    [swapped[2], swapped[3]] = [swapped[3]!, swapped[2]!];
    const order = expectFail(await runtime.handlers['overview:get']({ dayBoundaries: swapped }), 'INVALID_INPUT');
    expect(Object.keys(order.fields ?? {})).toEqual(['dayBoundaries.2', 'dayBoundaries.3', 'dayBoundaries.4']);
    expectFail(await runtime.handlers['overview:get']({ dayBoundaries: dayBoundaries.map((iso) => iso.replace('Z', '')) }), 'INVALID_INPUT');
  });

  it('refuses a total too large to show exactly instead of a wrong figure', async () => {
    const insert = runtime.journal.prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, status, amount, currency, phone_number,
         payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES (?, ?, 'x', 'sandbox', 'payout', 'known', 'completed', ?, 'XAF', '+237650000001', 'momo_cm', 'A', 'B', 'a@b.c', ?, ?)`,
    );
    const at = Date.parse(dayBoundaries[0]!);
    for (let i = 0; i < 10; i += 1) insert.run(`huge-${i}`, LOCAL_SANDBOX_ID, 1_000_000_000_000_000, at, at);
    const failure = expectFail(await runtime.handlers['overview:get']({ dayBoundaries }), 'CONFLICT');
    expect(failure.message).toMatch(/too large/);
    runtime.journal.prepare(`DELETE FROM entries WHERE id LIKE 'huge-%'`).run();
    expectOk(await runtime.handlers['overview:get']({ dayBoundaries }));
  });
});
