/**
 * The console on a team workspace (issue 24): the Overview, History's "refused, paid later" and
 * CSV export, and a reconciliation, through the real runtime and the real engine, with the store
 * a PostgreSQL workspace (`openStorage`). Nothing is read from or written to the desktop's SQLite
 * journal beside it: the screens show what the workspace holds.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRequest } from '../../shared/contract';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { expectOk, nextEvent, paymentRequest, startRuntime } from './helpers';
import { reconcile, type Runtime } from './reconcile-fixtures';

const DAY = 86_400_000;
let workspaces: TestWorkspaces;
let runtime: Runtime;
let database: string;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  runtime = await startRuntime({
    engine: { settleMs: 3_600_000, rateLimit: { perKeyPerMinute: 0 } },
    openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config('tester', database))),
  });
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  if (runtime) rmSync(runtime.dir, { recursive: true, force: true });
  await workspaces?.stop();
});

async function sendPayout(overrides: Partial<TransactionRequest>, method = 'momo_cm') {
  const request = { ...paymentRequest(overrides), payment_method: method };
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

/** Settles at the engine and waits for the console to read the outcome. */
async function settle(journalId: string, transactionId: string) {
  const done = nextEvent(runtime, 'watch:progress', (p) => p.journalId === journalId && p.done);
  expectOk(await runtime.handlers['sandbox:settle']({ transactionId }));
  await done;
  return expectOk(await runtime.handlers['transactions:get']({ journalId })).transaction;
}

describe('the console on a team workspace', () => {
  let refusedId: string;
  let paidId: string;
  let paymentId: string;

  beforeAll(async () => {
    const payment = expectOk(await runtime.handlers['payments:create']({ request: paymentRequest({ external_id: 'WS-PAY-1', amount: 5000, phone_number: '+237650000001' }) }));
    paymentId = (await settle(payment.id, payment.transactionId!)).id;
    const refusal = await sendPayout({ external_id: 'WS-LATER', phone_number: '+237674000001', amount: 800 }, 'no_such_method');
    expect(refusal.ok).toBe(false);
    refusedId = refusal.ok ? '' : refusal.error.journalId!;
    const paid = expectOk(await sendPayout({ external_id: 'WS-LATER', phone_number: '+237674000001', amount: 800 }));
    paidId = (await settle(paid.id, paid.transactionId!)).id;
  }, 120_000);

  it('writes to the workspace, not to the desktop\'s journal', async () => {
    const root = await workspaces.server.connect(undefined, database);
    expect((await root.query(`SELECT count(*)::int AS n, array_agg(DISTINCT created_by) AS who FROM entries`)).rows[0]).toEqual({ n: 2, who: ['tester'] });
    expect((runtime.journal.prepare('SELECT COUNT(*) AS n FROM entries').get() as { n: number }).n).toBe(0);
  });

  it('shows the Overview from the workspace: the payment and the payout paid, not the refusal', async () => {
    const created = Date.parse(expectOk(await runtime.handlers['transactions:get']({ journalId: paymentId })).transaction.createdAt);
    const today = Math.floor(created / DAY) * DAY;
    const dayBoundaries = Array.from({ length: 8 }, (_, i) => new Date(today + (i - 6) * DAY).toISOString());
    const overview = expectOk(await runtime.handlers['overview:get']({ dayBoundaries }));
    expect(overview.today.total).toEqual({ count: 2, amounts: [{ currency: 'XAF', amount: 5800 }] });
    expect(overview.today.byKind.map((kind) => [kind.kind, kind.count])).toEqual([
      ['payment', 1],
      ['payout', 1],
    ]);
  });

  it('keeps the refused payout sent again as one record (its refusal on its timeline), and exports History as CSV', async () => {
    expect(paidId).toBe(refusedId);
    const { transaction, timeline } = expectOk(await runtime.handlers['transactions:get']({ journalId: refusedId }));
    expect(transaction).toMatchObject({ state: 'known', status: 'completed' });
    expect(transaction.paidLater).toBeUndefined();
    expect(timeline.filter((event) => event.type === 'request_sent')).toHaveLength(2);
    const page = expectOk(await runtime.handlers['transactions:search']({ query: { externalId: 'WS-LATER' }, offset: 0, limit: 10 }));
    expect(page.rows.map((row) => row.id)).toEqual([paidId]);
    const exported = expectOk(await runtime.handlers['transactions:export']({ query: {}, language: 'en' }));
    expect(exported.rows).toBe(2);
    const lines = exported.csv.trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).map((line) => line.split(',')[8])).toEqual(['"WS-LATER"', '"WS-PAY-1"']);
  });

  it('reconciles a merchant file against the workspace and the service; the report and its CSV come from the workspace', async () => {
    const summary = await reconcile(runtime, ['external_id,kind,amount,expected_status', 'WS-PAY-1,payment,5000,completed', 'WS-LATER,payout,800,completed', 'WS-NONE,payment,10,'].join('\n'));
    expect(summary).toMatchObject({ status: 'done', totalRows: 3, checkedRows: 3 });
    expect(summary.categories.matched.count).toBe(2);
    expect(summary.categories.missing_at_service.count).toBe(1);
    const rows = expectOk(await runtime.handlers['reconcile:rows']({ id: summary.id, category: 'matched', offset: 0, limit: 10 }));
    expect(rows.rows.map((row) => [row.externalId, row.journalId])).toEqual([
      ['WS-PAY-1', paymentId],
      ['WS-LATER', paidId],
    ]);
    const csv = expectOk(await runtime.handlers['reconcile:export']({ id: summary.id, language: 'en' }));
    expect(csv.rows).toBe(3);
    expect(expectOk(await runtime.handlers['reconcile:list']({})).reconciliations.map((run) => run.id)).toEqual([summary.id]);
    const root = await workspaces.server.connect(undefined, database);
    expect((await root.query(`SELECT count(*)::int AS n FROM reconciliation_rows WHERE reconciliation_id = $1`, [summary.id])).rows[0].n).toBe(3);
    expect((runtime.journal.prepare('SELECT COUNT(*) AS n FROM reconciliations').get() as { n: number }).n).toBe(0);
  });
});
