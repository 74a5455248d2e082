/**
 * Every function of the workspace reads the workspace's tables, never a caller's temporary table of
 * the same name (migration 39; docs/decisions/workspace-functions-fixed-search-path.md). A function
 * without its own search_path resolves names with the caller's, where PostgreSQL searches the
 * session's temporary schema first: a finance login that creates an empty `approval_tiers` and
 * `approval_requests` of its own switched the batch gates off. The catalog test below fails on a
 * function a later migration creates (or replaces) without the fixed search_path.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_SCHEMA, WORKSPACE_SEARCH_PATH } from '../../electron/console/storage/postgres/schema-names';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { insertPayoutEntry, setPolicy } from './approval-helpers';
import { claimRow, insertRowEntry, sendingBatch } from './gate-helpers';

let workspaces: TestWorkspaces;
let database: string;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 60_000);
afterAll(() => workspaces.stop());

const refusedAs = (code: string) => expect.objectContaining({ code });

/** The caller's own empty copies of the tables the gates read: what shadowed them. */
async function shadowTheGates(client: pg.Client): Promise<void> {
  await client.query(`CREATE TEMP TABLE approval_tiers (environment text, currency text, min_amount bigint, approvals smallint, approver_role text)`);
  await client.query(`CREATE TEMP TABLE approval_requests (id bigint, subject text, batch_id text, state text, environment text, currency text,
    external_id text, phone_number text, amount bigint, row_count integer, digest text, approvals_required smallint, approvals_given smallint, approver_role text)`);
}

describe('the functions of the workspace', () => {
  it('each run with the fixed search_path, pg_temp last: a function created or replaced without it fails here', async () => {
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query<{ name: string; config: string[] | null }>(
      `SELECT p.oid::regprocedure::text AS name, p.proconfig AS config FROM pg_proc p
       WHERE p.pronamespace = $1::regnamespace AND p.prokind IN ('f', 'p')
         AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       ORDER BY 1`,
      [WORKSPACE_SCHEMA],
    );
    // The gates are among them (a query that found nothing would pass for the wrong reason).
    expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(['paydesk_gate_entry()', 'paydesk_gate_claims()', 'paydesk_request_rules()', 'paydesk_now_ms()']));
    const without = rows.filter((row) => !(row.config ?? []).includes(`search_path=${WORKSPACE_SEARCH_PATH}`)).map((row) => row.name);
    expect(without).toEqual([]);
  });
});

describe('raw SQL as a finance login with temporary tables named like the gates\' own', () => {
  it('cannot claim a covered batch\'s rows, write its row\'s entry, or send a covered payout: the gates read the workspace\'s tables', async () => {
    const fatouStore = workspaces.storeAs('fatou', database);
    // A row claimed while nothing was covered; then the admin's policy covers it.
    await sendingBatch(fatouStore, 'claimed-before', 2, 250_000);
    const fatou = await workspaces.connectAs('fatou', database);
    expect((await claimRow(fatou, 'claimed-before', 2)).rowCount).toBe(1);
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    await sendingBatch(fatouStore, 'covered', 2, 250_000);

    await shadowTheGates(fatou);
    await expect(claimRow(fatou, 'covered', 2)).rejects.toEqual(refusedAs('PD001'));
    await expect(insertRowEntry(fatou, 'shadowed-row', 'claimed-before', 2)).rejects.toEqual(refusedAs('PD001'));
    await expect(insertPayoutEntry(fatou, 'shadowed-payout', 250_000, 'SHADOW-1')).rejects.toEqual(refusedAs('PD001'));

    const root = await workspaces.server.connect(undefined, database);
    expect((await root.query(`SELECT count(*)::int AS n FROM entries`)).rows[0].n).toBe(0);
    expect((await root.query(`SELECT count(*)::int AS n FROM batch_rows WHERE claim_holder IS NOT NULL`)).rows[0].n).toBe(1);
  });
});
