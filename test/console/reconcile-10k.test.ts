/**
 * A 10,000-row merchant file against the real engine, with every category present: 2,000 real
 * transactions created through the engine's public API (as the merchant's backend would) and
 * settled through the control API (+237650000002 fails, +237650000008 is a lost callback), amounts
 * changed in the file, 8,000 rows the service never saw and 50 lines repeating one of them (a
 * duplicate in the merchant's records: whichever comes later in the file), and 50 transactions the
 * console looked up that the file does not have. Counts and totals are asserted exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_CATEGORIES, type ReconcileCategory, type ReconciliationSummary } from '../../shared/api';
import { expectOk } from './helpers';
import {
  closeRuntime,
  createAtService,
  inParallel,
  merchantClient,
  reconcile,
  request,
  settleViaControlApi,
  startEngineTimeRuntime,
  untilStatus,
  type Runtime,
} from './reconcile-fixtures';

interface Planned {
  ext: string;
  kind: 'payment' | 'payout';
  /** Amount at the service (null: never created). */
  created: number | null;
  phone: string;
  /** Amount in the file (null: not in the file). */
  inFile: number | null;
  expected: string;
  category: ReconcileCategory;
}

const plan: Planned[] = [];
const add = (count: number, make: (i: number) => Planned) => {
  for (let i = 0; i < count; i += 1) plan.push(make(i));
};
const WORDS = ['paid', 'completed', 'Payé', ''];
add(1400, (i) => ({ ext: `m-${i}`, kind: 'payment', created: 1000 + i, phone: '+237650000001', inFile: 1000 + i, expected: WORDS[i % 4]!, category: 'matched' }));
add(100, (i) => ({ ext: `p-${i}`, kind: 'payout', created: 500 + i, phone: '+237650000001', inFile: 500 + i, expected: 'completed', category: 'matched' }));
add(150, (i) => ({ ext: `a-${i}`, kind: 'payment', created: 2000, phone: '+237650000001', inFile: 2100, expected: 'paid', category: 'amount_differs' }));
add(150, (i) => ({ ext: `s-${i}`, kind: 'payment', created: 2500, phone: '+237650000002', inFile: 2500, expected: 'paid', category: 'status_differs' }));
add(150, (i) => ({ ext: `l-${i}`, kind: 'payment', created: 3000, phone: '+237650000008', inFile: 3000, expected: 'paid', category: 'still_processing' }));
add(50, (i) => ({ ext: `u-${i}`, kind: 'payment', created: 4000, phone: '+237650000001', inFile: null, expected: '', category: 'unknown_to_merchant' }));
add(8000, (i) => ({ ext: `x-${i}`, kind: i % 10 === 0 ? 'payout' : 'payment', created: null, phone: '', inFile: 300, expected: 'paid', category: 'missing_at_service' }));
// The same line twice: the later of the two in the shuffled file is the finding, the other is matched as usual.
add(50, (i) => ({ ext: `x-${i * 10 + 1}`, kind: 'payment', created: null, phone: '', inFile: 300, expected: 'paid', category: 'duplicate_in_records' }));

/** The file in a fixed shuffled order (so categories interleave across chunks), `;`, with a BOM. */
function merchantFile(): string {
  const rows = plan.filter((p) => p.inFile !== null);
  let seed = 42;
  for (let i = rows.length - 1; i > 0; i -= 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return `\uFEFFexternal_id;kind;amount;expected_status\r\n${rows.map((p) => `${p.ext};${p.kind};${p.inFile};${p.expected}`).join('\r\n')}\r\n`;
}

function expectedTotals(): Record<ReconcileCategory, { count: number; amount: number; serviceAmount: number }> {
  const totals = Object.fromEntries(RECONCILE_CATEGORIES.map((c) => [c, { count: 0, amount: 0, serviceAmount: 0 }])) as Record<ReconcileCategory, { count: number; amount: number; serviceAmount: number }>;
  for (const p of plan) {
    const total = totals[p.category];
    total.count += 1;
    total.amount += p.category === 'unknown_to_merchant' ? p.created! : p.inFile!;
    total.serviceAmount += p.created ?? 0;
  }
  return totals;
}

let runtime: Runtime;
let summary: ReconciliationSummary;

beforeAll(async () => {
  runtime = await startEngineTimeRuntime();
  const merchant = merchantClient(runtime);
  const toCreate = plan.filter((p) => p.created !== null);
  await inParallel(toCreate, 8, async (p) => {
    const transactionId = await createAtService(runtime, merchant, p.kind, { ...request(p.ext, p.created!, p.phone) });
    await settleViaControlApi(runtime, transactionId);
  });
  await merchant.close();
  // The 50 look-ups below do not wait out a 429: start them in a fresh one-minute window of the
  // engine's rate limit, whatever the creates above left in the current one (CI seed-independent).
  const clock = runtime.engine!.clock;
  clock.advance(60 - (clock.nowSeconds() % 60));
  for (const p of plan.filter((q) => q.category === 'unknown_to_merchant')) {
    expectOk(await runtime.handlers['transactions:lookup']({ id: p.ext, by: 'external_id', kind: 'payment' }));
  }
  // The lost callbacks are 20 minutes old when the file is matched (threshold: 15).
  runtime.engine!.clock.advance(20 * 60);
  const now = runtime.engine!.clock.nowMicros() / 1000;
  summary = await reconcile(runtime, merchantFile(), {
    processingMinutes: 15,
    period: { from: new Date(now - 86_400_000).toISOString(), to: new Date(now + 86_400_000).toISOString() },
  });
}, 240_000);

afterAll(async () => {
  await closeRuntime(runtime);
});

describe('a 10,000-row merchant file', () => {
  it('puts every row in its category, with exact counts and totals', () => {
    expect(summary.status).toBe('done');
    expect(summary.totalRows).toBe(10_000);
    expect(summary.checkedRows).toBe(10_000);
    expect(summary.categories).toEqual(expectedTotals());
    for (const category of RECONCILE_CATEGORIES.filter((c) => c !== 'processing_recent' && c !== 'not_checked')) {
      expect(summary.categories[category].count).toBeGreaterThan(0);
    }
  });

  it('waited out the service’s 429s instead of failing rows (9,900 payment look-ups at 600 a minute)', () => {
    expect(summary.rateLimitWaits).toBeGreaterThan(0);
    expect(summary.categories.not_checked.count).toBe(0);
  });

  it('recorded every transaction it looked up in the journal', () => {
    const { n } = runtime.journal.prepare(`SELECT COUNT(*) AS n FROM entries WHERE state = 'known'`).get() as { n: number };
    expect(n).toBe(2000);
  });

  it('pages the report by category, each row naming its journal entry', async () => {
    const page = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, category: 'still_processing', offset: 100, limit: 100 }));
    expect(page.total).toBe(150);
    expect(page.rows).toHaveLength(50);
    for (const row of page.rows) {
      expect(row.externalId).toMatch(/^l-/);
      expect(row.serviceStatus).toBe('processing');
      expect(row.journalId).not.toBeNull();
    }
    const missing = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, category: 'missing_at_service', offset: 0, limit: 500 }));
    expect(missing.total).toBe(8000);
    expect(missing.rows.every((row) => row.journalId === null && row.serviceStatus === null)).toBe(true);
  });

  it('Verify brings the lost callbacks to completed: they move to matched', async () => {
    const done = untilStatus(runtime, ['done']);
    expectOk(await runtime.handlers['reconcile:verify']({ id: summary.id }));
    await done;
    const after = expectOk(await runtime.handlers['reconcile:get']({ id: summary.id }));
    const before = expectedTotals();
    expect(after.categories.still_processing.count).toBe(0);
    expect(after.categories.matched).toEqual({
      count: before.matched.count + 150,
      amount: before.matched.amount + before.still_processing.amount,
      serviceAmount: before.matched.serviceAmount + before.still_processing.serviceAmount,
    });
    expect(after.verify).toEqual({ done: 150, total: 150 });
  });

  it('exports all 10,050 rows as CSV', async () => {
    const exported = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, language: 'en' }));
    expect(exported.rows).toBe(10_050);
    expect(exported.csv.trimEnd().split('\r\n')).toHaveLength(10_051);
  });
});
