/**
 * Settlement in batches (lifecycle/scheduler.ts): more notifications due at once than one batch
 * holds (100) settle in several writes, the last marked sent in one statement, the others one by
 * one; every payment completes once, and no notification is left due afterwards (one left due
 * would be read again by every later run, and keep the scheduler's timer firing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { ok, paymentBody, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } });
});
afterAll(async () => {
  await t.stop();
});

describe('settling more than one batch at once', () => {
  it('completes each of 150 due payments once and leaves no notification due', async () => {
    const ids: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      const created = await Promise.all(Array.from({ length: 25 }, () => t.client.createPayment(paymentBody())));
      ids.push(...created.map((result) => ok(result).transaction_id));
    }
    const { db } = engineInternals(t.engine);
    const due = db.prepare('SELECT COUNT(*) FROM provider_requests WHERE notifies = 1 AND notified = 0').pluck();
    expect(due.get()).toBe(150);
    const balanceBefore = t.engine.control.walletBalance('app_paydesk_demo', 'sandbox');

    // An hour later all 150 are due at once: runDue settles them in batches of 100 and 50.
    t.engine.clock.advance(3_601);

    expect(due.get()).toBe(0);
    for (const id of ids) {
      expect(t.engine.control.transaction(id)?.status).toBe('completed');
      expect(t.engine.control.timeline(id).map((event) => event.status)).toEqual(['initiated', 'processing', 'completed']);
    }
    const credited = db.prepare('SELECT COUNT(*) FROM ledger_entries WHERE transaction_id IN (SELECT value FROM json_each(?))').pluck().get(JSON.stringify(ids));
    expect(credited).toBe(150);
    expect(t.engine.control.walletBalance('app_paydesk_demo', 'sandbox')).toBeGreaterThan(balanceBefore);
  });
});
