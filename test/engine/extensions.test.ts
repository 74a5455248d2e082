import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusChange } from '../../packages/sandbox/src/engine';
import { ok, paymentBody, startTestEngine, waitForStatus, type TestEngine } from './helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

let t: TestEngine;
let failHooks = false;
const seenInHook: StatusChange[] = [];

beforeAll(async () => {
  t = await startTestEngine({
    migrations: [{ version: 900, name: 'test deliveries', up: (db) => db.exec('CREATE TABLE test_deliveries (id INTEGER PRIMARY KEY, transaction_id TEXT NOT NULL, status TEXT NOT NULL)') }],
    extensions: [
      (app, ctx) => {
        ctx.registerStatusHook((db, change) => {
          // Runs inside the status change's transaction.
          expect(db.inTransaction).toBe(true);
          if (failHooks) throw new Error('hook refused');
          seenInHook.push(change);
          db.prepare('INSERT INTO test_deliveries (transaction_id, status) VALUES (?, ?)').run(change.transactionId, change.to);
        });
        app.get('/_test/boom', async () => {
          throw new Error('secret internal detail');
        });
        app.get('/_test/ping', async () => ({ pong: true }));
      },
    ],
  });
});
afterAll(async () => {
  await t.stop();
});

describe('extension points', () => {
  it('serves extension routes outside the authenticated API', async () => {
    expect(await (await fetch(`${t.engine.api.url}/_test/ping`)).json()).toEqual({ pong: true });
  });

  it('runs status hooks in the same transaction as every status change', async () => {
    const created = ok(await t.client.createPayment(paymentBody()));
    await waitForStatus(t.engine, created.transaction_id, 'completed');
    const rows = engineInternals(t.engine).db.prepare('SELECT status FROM test_deliveries WHERE transaction_id = ? ORDER BY id').pluck().all(created.transaction_id);
    expect(rows).toEqual(['initiated', 'processing', 'completed']);
    expect(seenInHook.filter((change) => change.transactionId === created.transaction_id).map((change) => change.from)).toEqual([null, 'initiated', 'processing']);
  });

  it('rolls the whole initiation back when a hook throws, answering 500 INTERNAL_ERROR without detail', async () => {
    const count = () => engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM transactions').pluck().get();
    const ledger = () => t.engine.control.ledger('app_paydesk_demo', 'sandbox').length;
    const providerRequests = () => engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM provider_requests').pluck().get();
    const before = [count(), ledger(), providerRequests()];
    failHooks = true;
    try {
      const result = await t.client.initiatePayout(paymentBody());
      expect(result).toMatchObject({ kind: 'api-error', httpStatus: 500, code: 'INTERNAL_ERROR' });
      expect(JSON.stringify(result)).not.toContain('hook refused');
    } finally {
      failHooks = false;
    }
    expect([count(), ledger(), providerRequests()]).toEqual(before);
  });

  it('maps an unexpected error to 500 INTERNAL_ERROR without leaking its message', async () => {
    const response = await fetch(`${t.engine.api.url}/_test/boom`);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ success: false, message: 'An unexpected error occurred.', code: 'INTERNAL_ERROR', errors: [] });
  });

  it('reset() empties every table (extension tables too) and seeds again', async () => {
    ok(await t.client.createPayment(paymentBody()));
    t.engine.control.reset();
    expect(engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM transactions').pluck().get()).toBe(0);
    expect(engineInternals(t.engine).db.prepare('SELECT COUNT(*) FROM test_deliveries').pluck().get()).toBe(0);
    expect(t.engine.control.walletBalance('app_paydesk_demo', 'sandbox')).toBe(10_000_000);
    expect((await t.client.createPayment(paymentBody())).kind).toBe('success');
  });
});
