import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SEED_INPUT, parseSeed, SeedError, startEngine } from '../../packages/sandbox/src/engine';
import { clientFor, ok, paymentBody, profileFor } from './helpers';
import { engineInternals } from '../../packages/sandbox/src/internals';

const example = JSON.parse(readFileSync(new URL('../../packages/sandbox/seed.example.json', import.meta.url), 'utf8')) as unknown;

function problemsOf(value: unknown): string[] {
  try {
    parseSeed(value);
  } catch (error) {
    if (error instanceof SeedError) return error.problems;
    throw error;
  }
  return [];
}

describe('seed files', () => {
  it('the full example validates', () => {
    const seed = parseSeed(example);
    expect(seed.applications.map((app) => app.id)).toEqual(['app_acme_shop', 'app_dormant']);
  });

  it('the default seed validates', () => {
    expect(parseSeed(DEFAULT_SEED_INPUT).applications[0]?.keys).toHaveLength(4);
  });

  it('names every bad field by its dotted path', () => {
    const problems = problemsOf({
      applications: [
        {
          id: 'bad id',
          name: '',
          status: 'sleeping',
          keys: [{ environment: 'sandbox', type: 'payout', publicKey: 'pk_live_payment_x1', secretKey: 'short' }],
          wallets: { sandbox: -5 },
          methods: [{ code: 'unknown_method' }],
        },
      ],
      fees: { payment: { percentBps: 1.5, fixed: 0 }, payout: { percentBps: 100, fixed: 50 } },
      colour: 'blue',
    });
    const joined = problems.join('\n');
    for (const path of [
      'applications.0.id',
      'applications.0.name',
      'applications.0.status',
      'applications.0.keys.0.secretKey',
      'applications.0.wallets.sandbox',
      'fees.payment.percentBps',
      '(root)',
    ]) {
      expect(joined).toContain(`${path}: `);
    }
    expect(joined).toMatch(/colour/);
  });

  it('checks cross-field rules: key shape, duplicates, unknown methods', () => {
    const key = { environment: 'sandbox', type: 'payment', publicKey: 'pk_sandbox_payment_a1', secretKey: 'sk_sandbox_payment_a1_secret' };
    const problems = problemsOf({
      applications: [
        { id: 'app_a', name: 'A', keys: [key, { ...key, type: 'payout' }], methods: [{ code: 'nope' }] },
        { id: 'app_a', name: 'B', keys: [key] },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^applications\.0\.keys\.1\.publicKey: must look like pk_sandbox_payout_/),
        expect.stringMatching(/^applications\.1\.id: is used by another application/),
        expect.stringMatching(/^applications\.1\.keys\.0\.publicKey: is used by another key/),
        expect.stringMatching(/^applications\.0\.methods\.0\.code: is not a method/),
      ]),
    );
  });

  it('an engine started with the example seed serves its keys, methods and wallets', async () => {
    const engine = await startEngine({ db: ':memory:', port: 0, seed: parseSeed(example), settleMs: 0 });
    const client = clientFor(engine, profileFor(engine, 'app_acme_shop'));
    try {
      expect(engine.api.applications()[0]?.keys.find((key) => key.type === 'payout' && key.environment === 'sandbox')?.ipWhitelist).toEqual(['127.0.0.1', '::1']);
      expect(ok(await client.getBalance()).balance).toBe(5_000_000);
      expect(ok(await client.createPayment(paymentBody({ payment_method: 'momo_cm' }))).payment_method?.code).toBe('momo_cm');
      // momo_cm is enabled for payments only in this application.
      expect(await client.initiatePayout(paymentBody({ payment_method: 'momo_cm' }))).toMatchObject({ code: 'APP_PAYOUT_METHOD_NOT_ENABLED' });
      expect(await client.createPayment(paymentBody({ payment_method: 'orange_cm' }))).toMatchObject({ code: 'PAYMENT_METHOD_NOT_ENABLED' });
      expect(engineInternals(engine).db.prepare("SELECT value FROM meta WHERE key = 'admin_token'").pluck().get()).toBe('sandbox-admin-token-change-me');
    } finally {
      await client.close();
      await engine.stop();
    }
  });
});
