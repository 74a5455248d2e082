/**
 * Workspace migration 37 (postgres/migrations/0037-fewer-index-writes-for-each-write-of.sql): fewer index writes for each write of an
 * entry, and every read that used the indexes it changed still has one (the follow-up sweeper's
 * read scanned the journal when entries_by_status left out its NULLs: EXPLAIN ANALYZE at 300,000
 * entries, 1 ms → 71 ms). Each read is planned as
 * the store plans it (History's search with its values, a prepared statement with a generic
 * plan) with sequential scans priced out, so the plan names an index only if one can answer the
 * read: a partial index whose condition the read does not imply would leave a scan.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '../../shared/api';
import { whereClause } from '../../electron/console/storage/postgres/search';
import { entryColumns } from '../../electron/console/storage/postgres/journal';
import { OPEN_ENTRIES_SQL } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
let sql: pg.Client;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  const database = await workspaces.create();
  const store = workspaces.storeAs('tester', database);
  // A few entries of each kind the reads look for: pending, known with a status, looked up.
  for (let i = 0; i < 6; i += 1) {
    const request = payoutRequest({ external_id: `IX-${i}` });
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 + i });
    if (i % 2 === 0) await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(request), httpStatus: 201, message: null }, 2_000 + i);
  }
  sql = await workspaces.connectAs('tester', database);
  await sql.query('ANALYZE entries');
  // A scan of the table is priced out: what is left is an index that can answer the read, or a scan anyway.
  await sql.query('SET enable_seqscan = off');
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await workspaces?.stop();
});

const plan = async (text: string, values: unknown[]) => JSON.stringify((await sql.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]['QUERY PLAN']);

/** The plan of History's search for `query`, as searchWorkspace sends it (its values known to the planner). */
async function historyPlan(query: SearchQuery): Promise<string> {
  const { sql: where, params } = whereClause(query);
  return plan(`SELECT * FROM entries ${where} ORDER BY created_at DESC, seq DESC LIMIT 100`, params);
}

/** The plan of a prepared statement run with a generic plan (its values unknown to the planner), as the store's prepared reads end up. */
async function genericPlan(name: string, text: string, types: string, values: unknown[]): Promise<string> {
  await sql.query(`PREPARE ${name} (${types}) AS ${text}`);
  await sql.query('SET plan_cache_mode = force_generic_plan');
  try {
    // EXPLAIN takes no bound values: they are written into the EXECUTE, escaped.
    const literals = values.map((value) => sql.escapeLiteral(String(value))).join(', ');
    return JSON.stringify((await sql.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name} (${literals})`)).rows[0]['QUERY PLAN']);
  } finally {
    await sql.query('RESET plan_cache_mode');
    await sql.query(`DEALLOCATE ${name}`);
  }
}

describe('entries indexes after migration 37', () => {
  it('writes an entry into fewer indexes: no external-id or batch index of its own, the state index only while not known, the transaction id index only once one is set', async () => {
    const { rows } = await sql.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'entries' ORDER BY indexname`);
    const names = rows.map((row) => row.indexname);
    expect(names).not.toContain('entries_by_external_id');
    expect(names).not.toContain('entries_by_batch');
    const definition = (name: string) => rows.find((row) => row.indexname === name)?.indexdef ?? '';
    expect(definition('entries_by_state')).toMatch(/WHERE \(state <> 'known'::text\)/);
    // The sweeper asks for known entries without a status: this one keeps its NULLs.
    expect(definition('entries_by_status')).not.toMatch(/WHERE/);
    expect(definition('entries_by_transaction_id')).toMatch(/WHERE \(transaction_id IS NOT NULL\)/);
  });

  it("answers History's filters by a state other than known, by a status and by a transaction id from their indexes", async () => {
    expect(await historyPlan({ state: 'outcome_unknown' })).toContain('entries_by_state');
    expect(await historyPlan({ state: 'pending' })).toContain('entries_by_state');
    expect(await historyPlan({ status: 'failed' })).toContain('entries_by_status');
    expect(await historyPlan({ transactionId: 'tx-1' })).toContain('entries_by_transaction_id');
    // The exact external id (the field, and the search box's exact match) from the payout index.
    expect(await historyPlan({ externalId: 'IX-1' })).toContain('entries_by_payout');
  });

  it("answers the prepared look-up by transaction id (every status push) from its index with a generic plan, and a payout's earlier attempt from the payout index", async () => {
    expect(await genericPlan('by_tx', `SELECT ${entryColumns()} FROM entries WHERE transaction_id = $1 ORDER BY created_at DESC, seq DESC`, 'text', ['tx-1'])).toContain(
      'entries_by_transaction_id',
    );
    expect(
      await genericPlan(
        'earlier',
        'SELECT * FROM entries WHERE external_id = $1 AND kind = $2 AND profile_id = $3 AND environment = $4 ORDER BY created_at DESC, seq DESC LIMIT 1',
        'text, text, text, text',
        ['IX-1', 'payout', PROFILE.id, PROFILE.environment],
      ),
    ).toContain('entries_by_payout');
  });

  it("reads the follow-up sweeper's open entries (known without a final status, outcome unknown) without reading the journal's settled entries", async () => {
    // A journal of 30,000 entries, all but a few settled, written by the superuser with the
    // triggers off (a fill, not a send) and analysed: the planner's own choice, scans allowed.
    const database = await workspaces.create();
    const owner = await workspaces.server.connect(undefined, database);
    try {
      await owner.query('SET session_replication_role = replica');
      await owner.query(`INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
          customer_first_name, customer_last_name, customer_email, created_at, updated_at, transaction_id, status)
        SELECT 'sw-' || g, 'p', 'p', 'sandbox', 'payout', CASE WHEN g % 3000 = 0 THEN 'outcome_unknown' ELSE 'known' END, 'sw-' || g, 100, 'XAF', '+237650000001',
          'momo_cm', 'A', 'B', 'a@b.c', g, g, CASE WHEN g % 3000 = 0 THEN NULL ELSE 'tx-sw-' || g END,
          CASE WHEN g % 3000 = 0 THEN NULL WHEN g % 1500 = 7 THEN 'processing' WHEN g % 3000 = 11 THEN NULL WHEN g % 3 = 0 THEN 'failed' ELSE 'completed' END
        FROM generate_series(1, 30000) g`);
      await owner.query('RESET session_replication_role');
      await owner.query('ANALYZE entries');
      const explained = (await owner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${OPEN_ENTRIES_SQL}`, [20_000, 50, -1, ''])).rows[0]['QUERY PLAN'] as unknown;
      const text = JSON.stringify(explained);
      expect(text).not.toContain('Seq Scan');
      // The pages read: the open entries' and their index pages (34 here), not a walk through an
      // index of every entry (371 when entries_by_status left out its NULLs: the Overview's index
      // was read whole for "known without a status"; at 300,000 entries the planner chose a scan).
      const [{ Plan: top }] = explained as [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }];
      expect(top['Shared Hit Blocks'] + top['Shared Read Blocks']).toBeLessThan(120);
      // 20 processing, 10 known without a status, 6 outcome unknown from before the cut-off.
      const found = (await owner.query(OPEN_ENTRIES_SQL, [20_000, 50, -1, ''])).rows;
      expect(found.length).toBe(36);
    } finally {
      await owner.end();
    }
  });

  it("finds this login's pending entries at start (the stale-pending sweep) from the state index", async () => {
    expect(await plan(`SELECT e.* FROM entries e WHERE e.state = 'pending' AND e.created_by = session_user ORDER BY e.seq`, [])).toContain('entries_by_state');
  });
});
