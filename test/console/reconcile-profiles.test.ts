/**
 * Reconciliation decisions that depend on the profile and on a restart: on a profile that is not
 * the local sandbox, payouts cannot be looked up (the spec has no payout retrieve), so they are
 * decided from the journal or reported as not checked; a file whose saving was cut off is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk } from './helpers';
import { closeRuntime, createAtService, merchantClient, reconcile, request, settleViaControlApi, startEngineTimeRuntime, type Runtime } from './reconcile-fixtures';

let runtime: Runtime;
let profileId: string;

beforeAll(async () => {
  runtime = await startEngineTimeRuntime();
  const merchant = merchantClient(runtime);
  for (const [ext, kind] of [['po-1', 'payout'], ['po-known', 'payout'], ['pay-1', 'payment']] as const) {
    await settleViaControlApi(runtime, await createAtService(runtime, merchant, kind, request(ext, 1500, '+237650000001')));
  }
  await merchant.close();
  const keys = runtime.engine!.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name: 'Hosted service',
      baseUrl: runtime.engine!.api.url,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  profileId = profile.id;
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profileId }));
}, 60_000);

afterAll(async () => {
  if (runtime) {
    for (const keyType of ['payment', 'payout'] as const) await runtime.handlers['secrets:delete']({ profileId, keyType });
  }
  await closeRuntime(runtime);
});

describe('reconciling on a profile that is not the local sandbox', () => {
  it('decides a payout from the journal when it knows it, reports one it does not as not checked, and asks about payments', async () => {
    // The console knew this payout already (looked up earlier, through the same profile).
    expectOk(await runtime.handlers['transactions:lookup']({ id: 'po-known', by: 'external_id', kind: 'payout' }));
    const summary = await reconcile(runtime, 'external_id,kind,amount\npo-1,payout,1500\npo-known,payout,1500\npay-1,payment,1500\n');
    expect(summary.profileId).toBe(profileId);
    const rows = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 10 })).rows;
    expect(rows.map((row) => [row.externalId, row.category])).toEqual([
      ['po-1', 'not_checked'],
      ['po-known', 'matched'],
      ['pay-1', 'matched'],
    ]);
    expect(rows[0]!.detail).toMatch(/^PAYOUT_LOOKUP_UNAVAILABLE: /);
    expect(rows[2]!.journalId).not.toBeNull();
  });
});

describe('a file whose saving was cut off', () => {
  it('is removed at the next start and never listed', async () => {
    runtime.journal
      .prepare(
        `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes, currency, created_at, updated_at)
         VALUES ('cut', 'cut.csv', ?, 'Hosted service', 'sandbox', 'importing', 'matching', 10, 30, 'XAF', 1, 1)`,
      )
      .run(profileId);
    runtime.journal.prepare(`INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, amount) VALUES ('cut', 2, 'file', 'x', 'payment', 1)`).run();
    expect(expectOk(await runtime.handlers['reconcile:list']({})).reconciliations.map((r) => r.id)).not.toContain('cut');
    const dir = runtime.dir;
    await closeRuntime(runtime, false);
    runtime = await startEngineTimeRuntime(dir);
    const left = runtime.journal.prepare(`SELECT (SELECT COUNT(*) FROM reconciliations WHERE id = 'cut') + (SELECT COUNT(*) FROM reconciliation_rows WHERE reconciliation_id = 'cut') AS n`).get() as { n: number };
    expect(left.n).toBe(0);
  });
});
