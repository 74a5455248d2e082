/**
 * The tolerant reader (issue 35 item 3, docs/decisions/tolerant-reader.md) through the console:
 * the real engine behind a gate proxy that rewrites its real answers into shapes the spec does not
 * promise against (null fields left out, millisecond timestamps, extra fields, another `type`, a
 * status the spec does not list, a 201). Such a payout is known and followed up to its final
 * status; an answer without what decides money stays outcome unknown, says what was missing and
 * keeps the answer as received; another payout's answer is never taken for this one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRequest } from '../../shared/contract';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { expectFail, expectOk, nextEvent, paymentRequest } from './helpers';
import { batchCsv, sendConfirmed, withRows } from './batch-helpers';
import type { GateAction, GateAnswer } from './gate-proxy';
import { startProxiedConsole, type ProxiedConsole } from './proxied-console';

let s: ProxiedConsole;
beforeAll(async () => {
  s = await startProxiedConsole('paydesk-tolerant-reader-');
});
afterAll(async () => {
  await s?.close();
});

type Data = Record<string, unknown>;

/** Forwards, then answers the engine's answer with its `data` changed by `change` (and an extra envelope field). */
function rewriteData(change: (data: Data) => Data, status?: number): GateAction {
  return {
    rewrite: (answer: GateAnswer) => {
      const envelope = answer.body as Data;
      return { status: status ?? answer.status, body: { ...envelope, request_id: 'req-1', data: change({ ...(envelope.data as Data) }) } };
    },
  };
}

/** A service that leaves null fields out, writes milliseconds, and adds fields of its own. */
function looseShape(data: Data): Data {
  const out: Data = {};
  for (const [name, value] of Object.entries(data)) {
    if (value === null) continue;
    out[name] = typeof value === 'string' && /\.\d{6}Z$/.test(value) ? value.replace(/(\.\d{3})\d{3}Z$/, '$1Z') : value;
  }
  return { ...out, provider_reference: 'MTN-778812', settlement: { batch: 7 } };
}

function payoutRequest(externalId: string, overrides: Partial<TransactionRequest> = {}): TransactionRequest {
  return { ...paymentRequest({ external_id: externalId, ...overrides }), payment_method: 'momo_cm' };
}

async function sendPayout(runtime: ConsoleRuntime, request: TransactionRequest) {
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

const isPost = (request: { method: string }) => request.method === 'POST';
const isPayoutRead = (request: { method: string; path: string }) => request.method === 'GET' && request.path.startsWith('/v1/payouts/');

describe('an accepted answer in a shape the spec does not promise', () => {
  it('a 201 with null fields left out, millisecond timestamps, extra fields, type "disbursement" and status "pending": known, shown as said, followed up to its final status', async () => {
    s.proxy.decide = (request) =>
      isPost(request) && request.externalId === 'TOL-loose-1'
        ? rewriteData((data) => ({ ...looseShape(data), type: 'disbursement', status: 'pending' }), 201)
        : 'forward';
    const watched = nextEvent(s.runtime, 'watch:progress', (progress) => progress.done);
    const sent = expectOk(await sendPayout(s.runtime, payoutRequest('TOL-loose-1')));
    expect(sent).toMatchObject({ state: 'known', status: 'pending', externalId: 'TOL-loose-1', amount: 5000, currency: 'XAF' });
    expect(sent.transactionId).toMatch(/^TE_/);
    // What the service said is kept: its own fields, its type, its millisecond timestamps.
    expect(sent.transaction).toMatchObject({ type: 'disbursement', provider_reference: 'MTN-778812', reason: null, failed_code: null });
    expect(sent.transaction?.created_at).toMatch(/\.\d{3}Z$/);
    expect(sent).not.toHaveProperty('answerDiffers');
    const { timeline } = expectOk(await s.runtime.handlers['transactions:get']({ journalId: sent.id }));
    expect(timeline.find((event) => event.type === 'response')).toMatchObject({ status: 'pending', httpStatus: 201 });

    // Not final: the watcher reads it again (by its transaction id) and records the final status.
    const progress = await watched;
    expect(progress).toMatchObject({ journalId: sent.id, done: true });
    const after = expectOk(await s.runtime.handlers['transactions:get']({ journalId: sent.id })).transaction;
    expect(after).toMatchObject({ state: 'known', status: 'completed' });
    expect(s.proxy.seen.filter((request) => isPayoutRead(request) && request.path === `/v1/payouts/${sent.transactionId}`).length).toBeGreaterThan(0);
    expect(s.postsFor('TOL-loose-1')).toBe(1);
  });

  it('an unlisted status read back by the follow-up keeps the entry open: the sweep after a restart reads it again until a listed final status', async () => {
    // Every read of this payout says `queued` (a status the spec does not list) until the test lets the real answer through.
    let sayQueued = true;
    s.proxy.decide = (request) => {
      if (isPost(request) && request.externalId === 'TOL-queued-1') return rewriteData((data) => ({ ...data, status: 'queued' }));
      if (isPayoutRead(request) && sayQueued) return rewriteData((data) => (data.external_id === 'TOL-queued-1' ? { ...looseShape(data), status: 'queued' } : data));
      return 'forward';
    };
    const watched = nextEvent(s.runtime, 'watch:progress', (progress) => progress.done);
    const sent = expectOk(await sendPayout(s.runtime, payoutRequest('TOL-queued-1')));
    expect(sent).toMatchObject({ state: 'known', status: 'queued' });
    expect(await watched).toMatchObject({ journalId: sent.id, status: 'queued', done: true });

    // Started again: the sweep at start finds it open (queued is not final) and reads it again.
    sayQueued = false;
    const again = await s.restart();
    await again.followUpsIdle();
    expect(expectOk(await again.handlers['transactions:get']({ journalId: sent.id })).transaction).toMatchObject({ state: 'known', status: 'completed' });
  });
});

describe('an answer without what decides money', () => {
  it('no transaction_id: outcome unknown, the timeline names what was missing and keeps the answer as received; Look up by external id then finds it', async () => {
    s.proxy.decide = (request) =>
      isPost(request) && request.externalId === 'TOL-no-id-1'
        ? rewriteData((data) => {
            const { transaction_id: _dropped, ...rest } = data;
            return rest;
          })
        : 'forward';
    const failure = expectFail(await sendPayout(s.runtime, payoutRequest('TOL-no-id-1')), 'OUTCOME_UNKNOWN');
    const journalId = failure.journalId!;
    const { transaction, timeline } = expectOk(await s.runtime.handlers['transactions:get']({ journalId }));
    expect(transaction).toMatchObject({ state: 'outcome_unknown', transactionId: null, externalId: 'TOL-no-id-1' });
    const event = timeline.find((item) => item.outcome === 'unknown')!;
    expect(event.message).toContain('the answer has no data.transaction_id');
    // The answer as received: the service's own fields, the external id, no transaction id.
    const kept = JSON.parse(event.message!.slice(event.message!.indexOf('{'))) as Data;
    expect(kept).toMatchObject({ external_id: 'TOL-no-id-1', amount: 5000, status: 'processing' });
    expect(kept).not.toHaveProperty('transaction_id');
    expect(s.engineCount('TOL-no-id-1')).toBe(1);

    // Look up by external id, answered in the loose shape with an unlisted status: found, known.
    s.proxy.decide = (request) => (isPayoutRead(request) ? rewriteData((data) => ({ ...looseShape(data), status: 'pending' })) : 'forward');
    const resolved = expectOk(await s.runtime.handlers['transactions:resolveUnknown']({ journalId }));
    expect(resolved).toMatchObject({ exists: true, transaction: { state: 'known', status: 'pending', externalId: 'TOL-no-id-1' } });
    expect(resolved.transaction.transactionId).toMatch(/^TE_/);
    expect(s.postsFor('TOL-no-id-1')).toBe(1);
    s.proxy.decide = () => 'forward';
  });

  it('an amount that is not a whole number: outcome unknown, said so', async () => {
    s.proxy.decide = (request) => (isPost(request) && request.externalId === 'TOL-amount-1' ? rewriteData((data) => ({ ...data, amount: '5000' })) : 'forward');
    const failure = expectFail(await sendPayout(s.runtime, payoutRequest('TOL-amount-1')), 'OUTCOME_UNKNOWN');
    const { timeline } = expectOk(await s.runtime.handlers['transactions:get']({ journalId: failure.journalId! }));
    expect(timeline.find((item) => item.outcome === 'unknown')?.message).toMatch(/data\.amount.*"amount":"5000"/);
    s.proxy.decide = () => 'forward';
  });

  it("another external id is another payout's answer: outcome unknown, and a look-up answered with it adopts nothing", async () => {
    s.proxy.decide = (request) => (isPost(request) && request.externalId === 'TOL-other-1' ? rewriteData((data) => ({ ...data, external_id: 'SOMEONE-ELSE' })) : 'forward');
    const failure = expectFail(await sendPayout(s.runtime, payoutRequest('TOL-other-1')), 'OUTCOME_UNKNOWN');
    const journalId = failure.journalId!;
    const { timeline } = expectOk(await s.runtime.handlers['transactions:get']({ journalId }));
    expect(timeline.find((item) => item.outcome === 'unknown')?.message).toContain('the answer names external id SOMEONE-ELSE, not TOL-other-1');

    s.proxy.decide = (request) => (isPayoutRead(request) ? rewriteData((data) => ({ ...data, external_id: 'SOMEONE-ELSE' })) : 'forward');
    expectFail(await s.runtime.handlers['transactions:resolveUnknown']({ journalId }), 'BAD_RESPONSE');
    expect(expectOk(await s.runtime.handlers['transactions:get']({ journalId })).transaction).toMatchObject({ state: 'outcome_unknown', transactionId: null });

    s.proxy.decide = () => 'forward';
    expect(expectOk(await s.runtime.handlers['transactions:resolveUnknown']({ journalId }))).toMatchObject({ exists: true, transaction: { state: 'known', externalId: 'TOL-other-1' } });
    expect(s.postsFor('TOL-other-1')).toBe(1);
  });
});

describe('an accepted answer that is not what was sent', () => {
  it("another amount: accepted (the service's transaction for this request), its figures recorded, and the timeline says both", async () => {
    s.proxy.decide = (request) => (isPost(request) && request.externalId === 'TOL-amount-2' ? rewriteData((data) => ({ ...data, amount: 5100 })) : 'forward');
    const sent = expectOk(await sendPayout(s.runtime, payoutRequest('TOL-amount-2')));
    expect(sent).toMatchObject({ state: 'known', amount: 5100, answerDiffers: { asked: { amount: 5000, currency: 'XAF' }, found: { amount: 5100, currency: 'XAF' }, differs: ['amount'] } });
    const { timeline } = expectOk(await s.runtime.handlers['transactions:get']({ journalId: sent.id }));
    expect(timeline.find((event) => event.type === 'response')?.message).toContain("the service's answer says 5100 XAF; the request asked 5000 XAF");
    s.proxy.decide = () => 'forward';
  });
});

describe('Look up', () => {
  it('by external id, answered in the loose shape with an unlisted status: found and recorded as said', async () => {
    const sent = expectOk(await sendPayout(s.runtime, payoutRequest('TOL-lookup-1')));
    s.proxy.decide = (request) => (isPayoutRead(request) ? rewriteData((data) => ({ ...looseShape(data), status: 'on_hold' })) : 'forward');
    const found = expectOk(await s.runtime.handlers['transactions:lookup']({ id: 'TOL-lookup-1', by: 'external_id', kind: 'payout' }));
    expect(found).toMatchObject({ found: true, transaction: { id: sent.id, status: 'on_hold', transactionId: sent.transactionId } });
    s.proxy.decide = () => 'forward';
  });
});

describe('a bulk payout', () => {
  it('rows answered in the loose shape with an unlisted status are accepted and followed up to final; a row without transaction_id is unknown, said so, looked up and found; each sent once', async () => {
    const { batch } = expectOk(await s.runtime.handlers['batches:import']({ fileName: 'tolerant.csv', text: batchCsv(3, { tag: 'Tolerant', phone: () => '+237650000001' }), paymentMethod: 'momo_cm' }));
    const ids = (await withRows(s.runtime.handlers, batch.id)).rows.map((row) => row.externalId);
    s.proxy.decide = (request) => {
      if (!isPost(request)) return 'forward';
      if (request.externalId === ids[2]) {
        return rewriteData((data) => {
          const { transaction_id: _dropped, ...rest } = data;
          return rest;
        });
      }
      return rewriteData((data) => ({ ...looseShape(data), status: 'pending' }), 201);
    };
    expect((await sendConfirmed(s.runtime, batch.id)).state).toBe('done');
    s.proxy.decide = () => 'forward';
    await s.runtime.followUpsIdle();
    // Accepted as said, then followed up (the run's sweep) to the engine's final status; the third
    // was unknown, then found by the run's own look-up by external id (the engine has it).
    const sent = await withRows(s.runtime.handlers, batch.id);
    expect(sent.rows.map((row) => [row.state, row.status])).toEqual([
      ['accepted', 'completed'],
      ['accepted', 'completed'],
      ['accepted', 'completed'],
    ]);
    for (const id of ids) expect(s.postsFor(id)).toBe(1);
    const first = expectOk(await s.runtime.handlers['transactions:get']({ journalId: sent.rows[0]!.journalId! })).timeline;
    expect(first.find((event) => event.type === 'response')).toMatchObject({ status: 'pending', httpStatus: 201 });
    const third = expectOk(await s.runtime.handlers['transactions:get']({ journalId: sent.rows[2]!.journalId! })).timeline;
    expect(third.find((event) => event.outcome === 'unknown')?.message).toContain('the answer has no data.transaction_id');
  });
});
