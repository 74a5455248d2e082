/**
 * A rehearsal is isolated (issue 23 item 4): it runs on a throwaway copy of the local sandbox, so
 * the user's sandbox (a real engine at 20 requests a minute per key, a webhook URL, scenarios)
 * counts no request against its rate limit, records none in its inspector, posts no webhook,
 * writes no ledger line and creates no transaction; and the copy predicts what the real send
 * meets: outcomes by phone, the user's scenarios, and the wallet running short.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { expectFail, expectOk, startRuntime } from './helpers';
import { BATCH_HEADER, OUTCOME_PHONES, batchReaches, withRows } from './batch-helpers';
import { clientFor } from '../engine/helpers';
import { DEFAULT_SEED_INPUT, parseSeed, startEngine } from '../../packages/sandbox/src/engine';
import { sandboxControlFrom } from '../../electron/console/sandbox-engine';
import { createClient } from '../../electron/client';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
const RATE_LIMIT = 20;

beforeAll(async () => {
  runtime = await startRuntime({ engine: { settleMs: 0, rateLimit: { perKeyPerMinute: RATE_LIMIT } } });
});
afterAll(async () => {
  await runtime?.close();
});

const engine = () => runtime.engine!;
const appId = () => engine().api.applications()[0]!.id;

/** Everything of the user's sandbox a rehearsal could touch. */
function sandboxState() {
  const db = engineInternals(engine()).db;
  return {
    requests: engine().inspector.list({ limit: 500 }).requests.map((request) => request.id),
    deliveries: engine().webhooks.deliveries(appId()).length,
    ledger: engine().control.ledger(appId(), 'sandbox').length,
    balance: engine().control.walletBalance(appId(), 'sandbox'),
    transactions: (db.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number }).n,
    scenarios: engine().control.scenarios.list().map((scenario) => [scenario.id, scenario.applied, scenario.uses_left]),
  };
}

function fileOf(lines: string[]): string {
  return [BATCH_HEADER, ...lines].join('\n');
}

describe('a rehearsal of 58 rows', () => {
  it('leaves the user\'s sandbox untouched: no request, no webhook, no ledger line, no transaction, scenarios unused', async () => {
    expectOk(await runtime.handlers['sandbox:setWebhookUrl']({ url: 'http://127.0.0.1:9/hooks' }));
    // The user's scenarios: one by phone, one by the row's own external id; the copy must apply both.
    expectOk(await runtime.handlers['sandbox:addScenario']({ phone_number: '+237670000058', status: 'failed', failed_code: 'SERVICE_UNAVAILABLE', kind: 'payout' }));
    expectOk(await runtime.handlers['sandbox:addScenario']({ external_id: 'REH-057', status: 'cancelled', uses: 1 }));
    const lines = Array.from({ length: 58 }, (_, i) => {
      const phone = i < OUTCOME_PHONES.length ? OUTCOME_PHONES[i]! : `+2376700000${String(i + 1).padStart(2, '0')}`;
      return `${phone},${500 + i},Person${i},Rehearsal,p${i}@example.com,Rehearsal ${i},REH-${String(i + 1).padStart(3, '0')}`;
    });
    const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'rehearse-58.csv', text: fileOf(lines), paymentMethod: 'momo_cm' }));
    const before = sandboxState();

    const summary = expectOk(await runtime.handlers['batches:rehearse']({ batchId: batch.id }));
    expect(summary).toMatchObject({ rows: 58, accepted: 58, rejected: 0 });
    expect(sandboxState()).toEqual(before);

    // Outcomes by phone (the ten sandbox numbers), then the scenarios by phone and by external id.
    const rows = (await withRows(runtime.handlers, batch.id)).rows;
    expect(rows.slice(0, 10).map((row) => row.rehearsal?.status)).toEqual(['completed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed', 'completed', 'cancelled', 'completed']);
    expect(rows[56]!.rehearsal).toMatchObject({ status: 'cancelled', wouldFail: true });
    expect(rows[57]!.rehearsal).toMatchObject({ status: 'failed', failedCode: 'SERVICE_UNAVAILABLE', wouldFail: true });
    expect(rows.slice(10, 56).every((row) => row.rehearsal?.status === 'completed')).toBe(true);
    expect(summary.wouldFail).toBe(7 + 2);

    // The user's rate limit window holds none of the rehearsal's 58 requests: all of its 20 are still there.
    const client = clientFor(engine());
    const answers = [];
    for (let i = 0; i < RATE_LIMIT; i += 1) answers.push(await client.getBalance());
    expect(answers.map((answer) => answer.kind)).toEqual(Array(RATE_LIMIT).fill('success'));
  });

  it('predicts the wallet running short: the rows past the local sandbox balance are refused INSUFFICIENT_FUNDS', async () => {
    const fee = engine().api.feeFor('payout', 1000);
    const target = 3 * (1000 + fee) + 10;
    const current = engine().control.walletBalance(appId(), 'sandbox');
    expectOk(await runtime.handlers['sandbox:topUp']({ environment: 'sandbox', amount: target - current, reason: 'test: room for three rows' }));
    const lines = Array.from({ length: 8 }, (_, i) => `+237670000010,1000,Short${i},Wallet,s${i}@example.com,Short ${i},SHORT-${i + 1}`);
    const { batch } = expectOk(await runtime.handlers['batches:import']({ fileName: 'short.csv', text: fileOf(lines), paymentMethod: 'momo_cm' }));
    const before = sandboxState();
    const summary = expectOk(await runtime.handlers['batches:rehearse']({ batchId: batch.id }));
    expect(sandboxState()).toEqual(before);
    expect(summary).toMatchObject({ rows: 8, accepted: 3, rejected: 5, wouldFail: 5 });
    const rows = (await withRows(runtime.handlers, batch.id)).rows;
    expect(rows.filter((row) => row.rehearsal?.code === 'INSUFFICIENT_FUNDS')).toHaveLength(5);
  });
});

describe('sending while a rehearsal runs', () => {
  it('refuses batches:start until the rehearsal has finished, keeping the confirmation for then; a second rehearsal meanwhile too', async () => {
    // A console of its own, without a rate limit: this test sends its batch for real.
    const own = await startRuntime({ engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
    try {
      const lines = Array.from({ length: 30 }, (_, i) => `+237670000010,${100 + i},Wait${i},Rehearsal,w${i}@example.com,Wait ${i},WAIT-${i + 1}`);
      const { batch } = expectOk(await own.handlers['batches:import']({ fileName: 'wait.csv', text: fileOf(lines), paymentMethod: 'momo_cm' }));
      const { confirmationToken } = expectOk(await own.handlers['batches:prepare']({ batchId: batch.id }));
      // The rehearsal is marked running before its first await: no moment to race.
      const rehearsal = own.handlers['batches:rehearse']({ batchId: batch.id });
      expectFail(await own.handlers['batches:start']({ batchId: batch.id, confirmationToken }), 'CONFLICT');
      expectFail(await own.handlers['batches:rehearse']({ batchId: batch.id }), 'CONFLICT');
      expect(expectOk(await rehearsal)).toMatchObject({ rows: 30, wouldFail: 0 });
      const done = batchReaches(own, batch.id, ['done', 'interrupted']);
      expectOk(await own.handlers['batches:start']({ batchId: batch.id, confirmationToken }));
      expect((await done).state).toBe('done');
    } finally {
      await own.close();
    }
  });
});

describe('the rehearsal copy of a sandbox', () => {
  it('has its fees, sandbox wallet and scenarios, and no webhook URL, rate limit or inspector', async () => {
    const seed = parseSeed({ ...DEFAULT_SEED_INPUT, fees: { payment: { percentBps: 300, fixed: 5 }, payout: { percentBps: 250, fixed: 7 } } });
    const original = await startEngine({ host: '127.0.0.1', port: 0, db: ':memory:', settleMs: 0, rateLimit: { perKeyPerMinute: RATE_LIMIT }, seed });
    const copy = await sandboxControlFrom(original).rehearsalCopy();
    try {
      const user = sandboxControlFrom(original);
      user.setWebhookUrl('http://127.0.0.1:9/hooks');
      // Added after the copy was made: the copy is a snapshot; compare with a second copy below.
      const scenario = user.addScenario({ phone_number: '+237670000077', status: 'failed', failed_code: 'EXPIRED', notify: true, webhooks: 'deliver', uses: 2 });
      const second = await user.rehearsalCopy({ walletBalance: 1234 });
      try {
        expect(second.feeFor('payout', 'sandbox', 10_000, 'momo_cm')).toBe(original.api.feeFor('payout', 10_000));
        expect(second.feeFor('payout', 'sandbox', 10_000, 'momo_cm')).toBe(257);
        expect(second.state().webhookUrl).toBeNull();
        expect(second.walletBalance('sandbox').balance).toBe(1234);
        expect(second.scenarios().map(({ match, kind, status, failed_code, uses_left }) => ({ match, kind, status, failed_code, uses_left }))).toEqual([
          { match: scenario.match, kind: null, status: 'failed', failed_code: 'EXPIRED', uses_left: 2 },
        ]);
        expect(second.requests({ limit: 10 }).capacity).toBe(0);
      } finally {
        await second.stop();
      }
      expect(copy.walletBalance('sandbox').balance).toBe(user.walletBalance('sandbox').balance);
      // No rate limit: more requests than the original allows in a minute, all answered.
      const keys = copy.keys().filter((key) => key.environment === 'sandbox' && key.type === 'payout')[0]!;
      const client = createClient(
        { baseUrl: copy.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: '', payoutPublicKey: keys.publicKey },
        async () => keys.secretKey,
        { retry: { attempts: 1 } },
      );
      const kinds = [];
      for (let i = 0; i < RATE_LIMIT + 5; i += 1) kinds.push((await client.getBalance()).kind);
      expect(kinds).toEqual(Array(RATE_LIMIT + 5).fill('success'));
      await client.close();
      expect(original.inspector.list({ limit: 100 }).requests).toEqual([]);
    } finally {
      await copy.stop();
      await original.stop();
    }
  });
});
