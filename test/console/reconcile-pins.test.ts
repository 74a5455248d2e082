/**
 * Reconcile rules pinned (issue 15), each against the real engine, journal and channels: a service
 * amount above the merchant's, a cancelled payment the merchant thinks paid, a journal entry after
 * the run's period, and a journal status that is not final (asked again, never trusted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationSummary } from '../../shared/api';
import { expectOk } from './helpers';
import { closeRuntime, createAtService, merchantClient, reconcile, request, settleViaControlApi, startEngineTimeRuntime, type Runtime } from './reconcile-fixtures';

let runtime: Runtime;
let summary: ReconciliationSummary;
const ids: Record<string, string> = {};
type Row = { externalId: string | null; category: string; serviceStatus: string | null; serviceAmount: number | null };
let rows: Record<string, Row>;

beforeAll(async () => {
  runtime = await startEngineTimeRuntime();
  const engine = runtime.engine!;
  const merchant = merchantClient(runtime);
  const create = async (ext: string, amount: number, phone: string) => {
    ids[ext] = await createAtService(runtime, merchant, 'payment', request(ext, amount, phone));
    await settleViaControlApi(runtime, ids[ext]!);
  };
  const engineNow = () => engine.clock.nowMicros() / 1000;
  const from = engineNow() - 86_400_000;
  await create('svc-high', 5200, '+237650000001');
  await create('cxl-1', 5000, '+237650000009');
  await create('stale-1', 5000, '+237650000001');
  await create('early-x', 1111, '+237650000001');
  // The console knows these two; the file has neither (unknown to the merchant, when in the period).
  expectOk(await runtime.handlers['transactions:lookup']({ id: 'early-x', by: 'external_id', kind: 'payment' }));
  // The journal says stale-1 is still processing (the console missed its change, e.g. it was stopped).
  expectOk(await runtime.handlers['transactions:lookup']({ id: 'stale-1', by: 'external_id', kind: 'payment' }));
  runtime.journal
    .prepare(`UPDATE entries SET status = 'processing', transaction_json = json_set(transaction_json, '$.status', 'processing') WHERE external_id = 'stale-1'`)
    .run();
  const periodEnd = engineNow() + 60_000;
  // Two hours later (engine time), after the period's end: not this run's business.
  engine.clock.advance(2 * 3600);
  await create('late-x', 2222, '+237650000001');
  expectOk(await runtime.handlers['transactions:lookup']({ id: 'late-x', by: 'external_id', kind: 'payment' }));
  await merchant.close();

  const file = 'external_id,kind,amount,expected_status\nsvc-high,payment,5000,paid\ncxl-1,payment,5000,completed\nstale-1,payment,5000,paid\n';
  summary = await reconcile(runtime, file, { processingMinutes: 15, period: { from: new Date(from).toISOString(), to: new Date(periodEnd).toISOString() } });
  const page = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, offset: 0, limit: 50 }));
  rows = Object.fromEntries(page.rows.map((row) => [row.externalId ?? '', row as Row]));
}, 120_000);

afterAll(async () => {
  await closeRuntime(runtime);
});

describe('Reconcile categories', () => {
  it('puts a service amount higher than the merchant’s in "amount differs"', () => {
    expect(rows['svc-high']).toMatchObject({ category: 'amount_differs', serviceAmount: 5200 });
    expect(summary.categories.amount_differs).toEqual({ count: 1, amount: 5000, serviceAmount: 5200 });
  });

  it('puts expected completed, service cancelled in "status differs"', () => {
    expect(rows['cxl-1']).toMatchObject({ category: 'status_differs', serviceStatus: 'cancelled' });
  });

  it('asks the service about a journal entry that is not final, and does not trust it', async () => {
    expect(rows['stale-1']).toMatchObject({ category: 'matched', serviceStatus: 'completed' });
    // What the service said went back into the journal.
    const entry = runtime.journal.prepare(`SELECT status FROM entries WHERE external_id = 'stale-1'`).get() as { status: string };
    expect(entry.status).toBe('completed');
  });

  it('counts a journal entry inside the period as unknown to the merchant, and not one after the period’s end', () => {
    expect(rows['early-x']).toMatchObject({ category: 'unknown_to_merchant' });
    expect(rows['late-x']).toBeUndefined();
    expect(summary.categories.unknown_to_merchant).toMatchObject({ count: 1, amount: 1111 });
  });
});
