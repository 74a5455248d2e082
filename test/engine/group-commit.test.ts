/**
 * Creates share one commit (context.ts `writeGroupedChecked`) and have no savepoint each: a create
 * refused by its checks leaves the others of its group alone, and a create that fails after it has
 * written rolls the whole group back, so no half-written create and no unanswered neighbour is
 * ever kept. The creates are started in one event-loop turn, which puts them in one group for sure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticated } from '../../packages/sandbox/src/auth/auth';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { initiateTransaction } from '../../packages/sandbox/src/lifecycle/initiate';
import { ApiError } from '../../packages/sandbox/src/api/errors';
import { DEMO_APP, keysOf, paymentBody, startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;
/** The external id whose creation a status hook breaks after its first rows are written. */
const BROKEN = `broken-${process.pid}`;

beforeAll(async () => {
  t = await startTestEngine({
    settleMs: 3_600_000,
    rateLimit: { perKeyPerMinute: 0 },
    extensions: [
      (_app, ctx) => {
        // Runs inside the create's write, after the provider request and the transaction row went in.
        ctx.registerStatusHook((db, change) => {
          const externalId = db.prepare('SELECT external_id FROM transactions WHERE id = ?').pluck().get(change.transactionId);
          if (externalId === BROKEN) throw new Error('the disk is full');
        });
      },
    ],
  });
});
afterAll(async () => {
  await t.stop();
});

function demoAuth(): Authenticated {
  const { db } = engineInternals(t.engine);
  const key = keysOf(t.engine).payment;
  const app = db.prepare('SELECT ref, name, currency FROM applications WHERE id = ?').get(DEMO_APP) as { ref: string; name: string; currency: string };
  return { publicKey: key.publicKey, appId: DEMO_APP, appRef: app.ref, appName: app.name, currency: app.currency, environment: 'sandbox', keyType: 'payment' };
}

function stored(externalId: string): number {
  const { db } = engineInternals(t.engine);
  const transactions = db.prepare('SELECT COUNT(*) FROM transactions WHERE external_id = ?').pluck().get(externalId) as number;
  const timeline = db
    .prepare('SELECT COUNT(*) FROM transaction_events e JOIN transactions t ON t.id = e.transaction_id WHERE t.external_id = ?')
    .pluck()
    .get(externalId) as number;
  const provider = db
    .prepare('SELECT COUNT(*) FROM provider_requests p JOIN transactions t ON t.id = p.transaction_id WHERE t.external_id = ?')
    .pluck()
    .get(externalId) as number;
  return transactions + timeline + provider;
}

describe('creates in one commit group', () => {
  it('a create refused by its checks (external_id taken) leaves the other creates of its group committed', async () => {
    const { ctx } = engineInternals(t.engine);
    const auth = demoAuth();
    const first = paymentBody();
    const other = paymentBody();
    const outcomes = await Promise.allSettled([
      initiateTransaction(ctx, auth, 'payment', first),
      initiateTransaction(ctx, auth, 'payment', { ...paymentBody(), external_id: first.external_id }),
      initiateTransaction(ctx, auth, 'payment', other),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refusal = (outcomes[1] as PromiseRejectedResult).reason as ApiError;
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal.code).toBe('VALIDATION_ERROR');
    // The transaction, its two timeline rows and its provider request, once each.
    expect(stored(first.external_id!)).toBe(4);
    expect(stored(other.external_id!)).toBe(4);
  });

  it('a create failing after it has written rolls back its whole group: nothing of it or its neighbours is kept', async () => {
    const { ctx } = engineInternals(t.engine);
    const auth = demoAuth();
    const before = paymentBody();
    const after = paymentBody();
    const outcomes = await Promise.allSettled([
      initiateTransaction(ctx, auth, 'payment', before),
      initiateTransaction(ctx, auth, 'payment', { ...paymentBody(), external_id: BROKEN }),
      // Started after the failure in the same turn: a new group, committed.
      initiateTransaction(ctx, auth, 'payment', after),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toContain('the disk is full');
    expect(stored(before.external_id!)).toBe(0);
    expect(stored(BROKEN)).toBe(0);
    expect(stored(after.external_id!)).toBe(4);
    // The rolled-back creates' external ids are free again: nothing of them exists.
    const retried = await initiateTransaction(ctx, auth, 'payment', before);
    expect(retried.external_id).toBe(before.external_id);
    expect(stored(before.external_id!)).toBe(4);
  });
});
