/**
 * A status change pushed by the local sandbox (issue 9, items 1 and 2): the console reads the
 * transaction again and stores the whole object, so the failure reason, the timestamps and the
 * stored transaction agree with the status at once, without Verify. The timeline names the event
 * for what it is (a sandbox status change), not a webhook.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;

beforeAll(async () => {
  runtime = await startRuntime();
});

afterAll(async () => {
  await runtime?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

/** Creates a payment and lets the watcher give up first, so only the push can bring the news. */
async function createAndOutwait(phone: string) {
  let journalId = '';
  const watchDone = nextEvent(runtime, 'watch:progress', (p) => p.done && p.journalId === journalId);
  const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ phone_number: phone }) }));
  journalId = created.id;
  const last = await watchDone;
  expect(last.status).toBe('processing');
  return created;
}

describe('a status pushed by the local sandbox', () => {
  it('stores the whole transaction: failed code, the stored object and its timestamps, without Verify', async () => {
    const created = await createAndOutwait('+237650000002');
    const failed = nextEvent(runtime, 'transaction:changed', (e) => e.journalId === created.id && e.status === 'failed');
    runtime.engine!.control.settleNow(created.transactionId!);
    await failed;
    await runtime.watchesIdle();
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: created.id }));
    expect(detail.transaction.status).toBe('failed');
    expect(detail.transaction.failedCode).toBe('PAYER_NOT_FOUND');
    expect(detail.transaction.transaction).toMatchObject({ status: 'failed', failed_code: 'PAYER_NOT_FOUND' });
    expect(detail.transaction.transaction && 'failed_at' in detail.transaction.transaction ? detail.transaction.transaction.failed_at : null).toEqual(expect.any(String));
    const pushed = detail.timeline.filter((event) => event.type === 'sandbox_status');
    expect(pushed.map((event) => event.status)).toEqual(['failed']);
    expect(detail.timeline.every((event) => event.type !== 'verify_result')).toBe(true);
  });

  it('records a completed one the same way, with its fee and net amount', async () => {
    const created = await createAndOutwait('+237650000001');
    const completed = nextEvent(runtime, 'transaction:changed', (e) => e.journalId === created.id && e.status === 'completed');
    runtime.engine!.control.settleNow(created.transactionId!);
    await completed;
    await runtime.watchesIdle();
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: created.id }));
    expect(detail.transaction).toMatchObject({ status: 'completed', failedCode: null, fee: 75, netAmount: 4925 });
    expect(detail.transaction.transaction).toMatchObject({ status: 'completed' });
    expect(detail.timeline.find((event) => event.type === 'sandbox_status')?.status).toBe('completed');
  });
});

describe('a status push after Verify', () => {
  it('adds no second event when Verify has already recorded the change', async () => {
    const created = await createAndOutwait('+237650000008');
    runtime.engine!.control.settleNow(created.transactionId!);
    const verified = expectOk(await runtime.handlers['transactions:verify']({ journalId: created.id }));
    expect(verified.transaction.status).toBe('completed');
    await runtime.watchesIdle();
    const detail = expectOk(await runtime.handlers['transactions:get']({ journalId: created.id }));
    const completed = detail.timeline.filter((event) => event.status === 'completed');
    expect(completed.map((event) => event.type)).toEqual(['verify_result']);
  });
});

describe('methods offered', () => {
  it('a live profile is not offered the sandbox-only test method; the sandbox is', async () => {
    expect(expectOk(await runtime.handlers['methods:list']({})).methods).toEqual(['service_demo', 'momo_cm']);
    const live = expectOk(
      await runtime.handlers['profiles:save']({
        name: 'Live methods',
        baseUrl: 'https://api.example.com',
        environment: 'live',
        headerWord: 'SVC',
        paymentPublicKey: 'pk_live_payment_methods1',
        payoutPublicKey: 'pk_live_payout_methods1',
      }),
    );
    expectOk(await runtime.handlers['profiles:activate']({ id: live.id }));
    try {
      expect(expectOk(await runtime.handlers['methods:list']({})).methods).toEqual(['momo_cm']);
    } finally {
      expectOk(await runtime.handlers['profiles:activate']({ id: 'local-sandbox' }));
    }
  });
});

describe('lookup of the wrong kind', () => {
  it('says the id exists as the other kind, and says nothing of the kind for an unknown id', async () => {
    const created = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'ORDER-kind-1' }) }));
    await runtime.watchesIdle();
    const asPayout = expectOk(await runtime.handlers['transactions:lookup']({ id: created.transactionId!, by: 'transaction_id', kind: 'payout' }));
    expect(asPayout).toEqual({ found: false, environment: 'sandbox', profileName: 'Local sandbox', otherKind: 'payment' });
    const byExternal = expectOk(await runtime.handlers['transactions:lookup']({ id: 'ORDER-kind-1', by: 'external_id', kind: 'payout' }));
    expect(byExternal).toMatchObject({ found: false, otherKind: 'payment' });
    const unknown = expectOk(await runtime.handlers['transactions:lookup']({ id: 'ORDER-nowhere', by: 'external_id', kind: 'payout' }));
    expect(unknown).toEqual({ found: false, environment: 'sandbox', profileName: 'Local sandbox' });
  });
});
