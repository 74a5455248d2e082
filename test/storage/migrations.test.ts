/**
 * The workspace's PostgreSQL migrations: numbered like the journal's with the same tables, each
 * one transaction (a failure leaves nothing of itself), and a schema newer than the app refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import { PG_MIGRATIONS } from '../../electron/console/storage/postgres/migrations';
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
  it('numbers the shared migrations like the journal, with the same names, then the workspace own', () => {
    const shared = PG_MIGRATIONS.filter((migration) => migration.version <= MIGRATIONS.at(-1)!.version);
    expect(shared.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
    // Increasing, with gaps left for work numbered in parallel (approvals start at 20).
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual([...new Set(PG_MIGRATIONS.map((m) => m.version))].sort((a, b) => a - b));
  });

  it('applies every migration once, records who applied it, and does nothing the second time', async () => {
    const client = await freshDatabase();
    expect(await migrateWorkspace(client)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await tables(client)).toEqual(
      ['approval_requests', 'approval_tiers', 'approval_votes', 'audit_log', 'batch_rows', 'batches', 'entries', 'paydesk_schema_migrations', 'reconciliation_rows', 'reconciliations', 'team_settings', 'timeline'],
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
