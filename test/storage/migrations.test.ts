/**
 * The workspace's PostgreSQL migrations: numbered like the journal's with the same tables, each
 * one transaction (a failure leaves nothing of itself), and a schema newer than the app refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import { PG_MIGRATIONS, SQLITE_TO_PG } from '../../electron/console/storage/postgres/migrations';
import { checkWorkspaceSchema, migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(() => server.stop());

async function freshDatabase(): Promise<pg.Client> {
  return server.connect(undefined, await server.createDatabase());
}

const tables = async (client: pg.Client) =>
  (await client.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((row) => row.tablename);

describe('workspace migrations', () => {
  it('gives every journal migration a workspace migration of the same name (SQLITE_TO_PG), numbered in increasing order (approvals start at 20)', () => {
    const byVersion = new Map(PG_MIGRATIONS.map((m) => [m.version, m.name]));
    expect(MIGRATIONS.map((m) => [m.version, byVersion.get(SQLITE_TO_PG[m.version] ?? -1)])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
    // Increasing, with gaps left for work numbered in parallel (approvals start at 20).
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual([...new Set(PG_MIGRATIONS.map((m) => m.version))].sort((a, b) => a - b));
    expect(byVersion.get(7)).toBe('team roles, who did what, row claims, change events');
  });

  it('folds an older workspace\'s attempts that created nothing into their payout\'s latest entry (migration 9)', async () => {
    const client = await freshDatabase();
    await migrateWorkspace(client, PG_MIGRATIONS.filter((m) => m.version <= 8));
    const entry = (id: string, state: string, at: number, extra: string) =>
      client.query(
        `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
           customer_first_name, customer_last_name, customer_email, created_at, updated_at, last_error, resolution)
         VALUES ($1, 'p1', 'Acme', 'sandbox', 'payout', $2, 'OLD-1', 500, 'XAF', '+237650000001', 'm', 'A', 'B', 'a@b.c', $3, $3, $4, $5) RETURNING seq`,
        [id, state, at, extra === 'not_sent' ? JSON.stringify({ code: 'NOT_SENT', message: '429', httpStatus: 429 }) : extra === 'refused' ? JSON.stringify({ code: 'INVALID_PHONE', message: 'x', httpStatus: 422 }) : null, extra === 'not_found' ? 'not_found' : null],
      );
    const seqOf = async (id: string, state: string, at: number, extra: string) => Number((await entry(id, state, at, extra)).rows[0].seq);
    const empty429 = await seqOf('e-429', 'rejected', 1_000, 'not_sent');
    const emptyLookup = await seqOf('e-nf', 'outcome_unknown', 2_000, 'not_found');
    await seqOf('e-refused', 'rejected', 2_500, 'refused');
    const paid = await seqOf('e-paid', 'known', 3_000, '');
    for (const [seq, type] of [[empty429, 'api_error'], [emptyLookup, 'status_seen'], [paid, 'response']] as const) {
      await client.query(`INSERT INTO timeline (entry_seq, type, at) VALUES ($1, $2, 1)`, [seq, type]);
    }
    await client.query(`INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at) VALUES ('b', 'f', 'h', 'done', 'p1', 'Acme', 'sandbox', 1, 1, 1)`);
    await client.query(`INSERT INTO batch_rows (batch_seq, row_number, cells, errors, duplicates, external_id, journal_id) SELECT seq, 2, '{}', '{}', '[]', 'OLD-1', 'e-429' FROM batches`);
    expect(await migrateWorkspace(client, PG_MIGRATIONS.filter((m) => m.version <= 9))).toEqual([9]);
    const ids = (await client.query<{ id: string }>(`SELECT id FROM entries ORDER BY seq`)).rows.map((row) => row.id);
    expect(ids).toEqual(['e-refused', 'e-paid']);
    const moved = await client.query<{ type: string }>(`SELECT type FROM timeline WHERE entry_seq = $1 ORDER BY id`, [paid]);
    expect(moved.rows.map((row) => row.type)).toEqual(['api_error', 'status_seen', 'response']);
    expect((await client.query(`SELECT journal_id FROM batch_rows`)).rows).toEqual([{ journal_id: 'e-paid' }]);
  });

  it('applies every migration once, records who applied it, and does nothing the second time', async () => {
    const client = await freshDatabase();
    expect(await migrateWorkspace(client)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await tables(client)).toEqual(
      ['admin_changes', 'approval_requests', 'approval_tiers', 'approval_votes', 'audit_log', 'batch_rows', 'batch_runs', 'batches', 'entries', 'paydesk_schema_migrations', 'people', 'person_logins', 'reconciliation_rows', 'reconciliations', 'send_asks', 'team_profiles', 'team_sandbox', 'team_settings', 'timeline'],
    );
    const { rows } = await client.query<{ applied_by: string }>('SELECT DISTINCT applied_by FROM paydesk_schema_migrations');
    expect(rows).toEqual([{ applied_by: 'paydesk_root' }]);
    expect(await migrateWorkspace(client)).toEqual([]);
    await expect(checkWorkspaceSchema(client)).resolves.toBeUndefined();
  });

  it('undoes a migration that fails half-way: none of its statements stay, the version stays', async () => {
    const client = await freshDatabase();
    const broken = [...PG_MIGRATIONS.slice(0, 2), { version: 3, name: 'half', sql: 'CREATE TABLE half_done (id int); SELECT 1/0;' }];
    await expect(migrateWorkspace(client, broken)).rejects.toMatchObject({ code: 'MIGRATION_FAILED', message: expect.stringContaining('stays at version 2') });
    expect(await tables(client)).not.toContain('half_done');
    const { rows } = await client.query<{ version: number }>('SELECT max(version) AS version FROM paydesk_schema_migrations');
    expect(rows[0]!.version).toBe(2);
  });

  it('keeps a migration and its version row together: if the version cannot be recorded, the migration is undone too', async () => {
    const client = await freshDatabase();
    // The SQL succeeds, then recording version 3 fails (the row is already there): nothing of 3 may stay.
    const sql = `CREATE TABLE half_done (id int); INSERT INTO paydesk_schema_migrations (version, name) VALUES (3, 'early')`;
    await expect(migrateWorkspace(client, [...PG_MIGRATIONS.slice(0, 2), { version: 3, name: 'half', sql }])).rejects.toMatchObject({ code: 'MIGRATION_FAILED' });
    expect(await tables(client)).not.toContain('half_done');
    const { rows } = await client.query<{ version: number }>('SELECT max(version) AS version FROM paydesk_schema_migrations');
    expect(rows[0]!.version).toBe(2);
  });

  it('refuses a workspace whose schema is newer than this Paydesk, changing nothing', async () => {
    const client = await freshDatabase();
    await migrateWorkspace(client);
    await client.query(`INSERT INTO paydesk_schema_migrations (version, name) VALUES (99, 'from the future')`);
    await expect(migrateWorkspace(client)).rejects.toMatchObject({ code: 'SCHEMA_NEWER', message: expect.stringContaining('update Paydesk on this desktop') });
    await expect(checkWorkspaceSchema(client)).rejects.toMatchObject({ code: 'SCHEMA_NEWER' });
  });

  it('tells a desktop connecting to a workspace not yet updated to ask its administrator', async () => {
    const client = await freshDatabase();
    await migrateWorkspace(client, PG_MIGRATIONS.slice(0, 3));
    await expect(checkWorkspaceSchema(client)).rejects.toMatchObject({ code: 'SCHEMA_OLDER', message: expect.stringContaining('administrator') });
  });
});
