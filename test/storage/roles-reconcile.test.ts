/**
 * Support reconciles on a team workspace (issue 24): everything a reconciliation writes through
 * the storage port (its run, its rows' outcomes, the journal's entries the file lacks, a Verify's
 * answer on an entry finance sent) works as a support login, and raw SQL shows where that role and
 * the admin role stop (migration 7's grants: support reconciles, admin does not).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: StoragePort;
let samuel: StoragePort;
let entryId: string;
let txOfEntry: ReturnType<typeof serviceTx>;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = workspaces.storeAs('fatou', database);
  samuel = workspaces.storeAs('samuel', database);
  const request = payoutRequest({ external_id: 'REC-1', amount: 300 });
  entryId = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 });
  txOfEntry = serviceTx(request);
  await fatou.journal.writeInitiateOutcome(entryId, { kind: 'accepted', tx: txOfEntry, httpStatus: 201, message: null }, 1_001);
}, 60_000);
afterAll(() => workspaces.stop());

const refused = (client: pg.Client, text: string, values: unknown[] = []) => expect(client.query(text, values)).rejects.toThrow(/permission denied/);
const row = (n: number, externalId: string) => ({ row: n, externalId, kind: 'payout' as const, amount: 300, expectedRaw: null, expected: null, dateRaw: null, dateMs: null, dateEndMs: null });

describe('support reconciles on the workspace', () => {
  it('runs a reconciliation through the port: rows checked and saved, an answer on an entry finance sent, the entries the file lacks, done', async () => {
    const id = await samuel.reconcile.create({ fileName: 'bank.csv', profile: PROFILE, rows: [row(2, 'REC-1'), row(3, 'REC-9')], processingMinutes: 30, period: { from: 0, to: Date.parse('2030-01-01'), source: 'picked' }, currency: 'XAF', at: 2_000 });
    const entry = await samuel.reconcile.entryFor(PROFILE, 'payout', 'REC-1');
    expect(entry?.id).toBe(entryId);
    // What the runner writes when the service answers for a row the journal knows.
    const observed = await samuel.journal.recordObserved(entryId, { ...txOfEntry, status: 'completed' }, { type: 'status_seen', httpStatus: 200, message: 'found by reconciliation' }, 2_100);
    expect(observed.entry.status).toBe('completed');
    await samuel.reconcile.countRateLimitWait(id);
    await samuel.reconcile.saveOutcomes(
      id,
      [
        { rowNumber: 2, outcome: { category: 'matched', journalId: entryId, transactionId: txOfEntry.transaction_id, serviceStatus: 'completed', serviceAmount: 300, serviceCreatedAt: 5, currency: 'XAF', detail: null } },
        { rowNumber: 3, outcome: { category: 'missing_at_service', journalId: null, transactionId: null, serviceStatus: null, serviceAmount: null, serviceCreatedAt: null, currency: null, detail: null } },
      ],
      2_200,
    );
    await samuel.reconcile.reopenNotChecked(id);
    await samuel.reconcile.addUnknownToMerchant(id, [], 2_300);
    await samuel.reconcile.setStatus(id, 'done', 2_400);
    expect(await samuel.reconcile.summary(id)).toMatchObject({ status: 'done', checkedRows: 2, rateLimitWaits: 1, categories: { matched: { count: 1 }, missing_at_service: { count: 1 } } });
    expect(await samuel.reconcile.removeUnfinishedImports()).toBe(0);
    const root = await workspaces.server.connect(undefined, database);
    expect((await root.query('SELECT created_by, updated_by FROM reconciliations WHERE id = $1', [id])).rows[0]).toEqual({ created_by: 'samuel', updated_by: 'samuel' });
    expect((await root.query('SELECT updated_by FROM entries WHERE id = $1', [entryId])).rows[0]).toEqual({ updated_by: 'samuel' });
  });

  it('raw SQL: support writes runs and their rows, not an entry\'s request or amount sent; admin writes neither runs nor rows', async () => {
    const support = await workspaces.connectAs('samuel', database);
    await support.query(
      `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes, currency, created_at, updated_at)
       VALUES ('raw-1', 'f.csv', 'p1', 'Acme', 'sandbox', 'running', 'matching', 1, 30, 'XAF', 1, 1)`,
    );
    await support.query(`INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, amount) VALUES ('raw-1', 2, 'file', 'X', 'payout', 1)`);
    await support.query(`UPDATE reconciliation_rows SET category = 'matched', verified = 1 WHERE reconciliation_id = 'raw-1'`);
    await support.query(`UPDATE reconciliations SET rate_limit_waits = rate_limit_waits + 1 WHERE id = 'raw-1'`);
    await refused(support, `UPDATE entries SET request = '{}' WHERE id = $1`, [entryId]);
    await refused(support, `UPDATE entries SET created_at = 1 WHERE id = $1`, [entryId]);

    const admin = await workspaces.connectAs('adele', database);
    expect((await admin.query(`SELECT count(*)::int AS n FROM reconciliation_rows WHERE reconciliation_id = 'raw-1'`)).rows[0].n).toBe(1);
    await refused(admin, `UPDATE reconciliation_rows SET category = 'amount_differs' WHERE reconciliation_id = 'raw-1'`);
    await refused(admin, `INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, amount) VALUES ('raw-1', 3, 'file', 'Y', 'payout', 1)`);
    await refused(admin, `DELETE FROM reconciliations WHERE id = 'raw-1'`);
    await support.query(`DELETE FROM reconciliations WHERE id = 'raw-1'`);
    expect((await support.query(`SELECT count(*)::int AS n FROM reconciliation_rows WHERE reconciliation_id = 'raw-1'`)).rows[0].n).toBe(0);
  });
});
