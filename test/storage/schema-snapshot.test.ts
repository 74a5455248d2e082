/**
 * docs/workspace-schema.sql, the one place a database reviewer reads the workspace's security
 * model, is what the migrations build: a fresh database migrated here is described the same,
 * line for line (scripts/workspace-schema.ts). A migration added or changed without running
 * `npm run schema:snapshot` fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWorkspaceSchema, freshWorkspaceSnapshot, SNAPSHOT_FILE } from '../../scripts/workspace-schema';
import { startTestPostgres, TEST_SUPERUSER, type TestPostgres } from '../helpers/postgres';

const root = join(import.meta.dirname, '../..');

let server: TestPostgres;
let database: string;
let client: pg.Client;
let snapshot: string;
beforeAll(async () => {
  server = await startTestPostgres();
  database = await server.createDatabase('paydesk_schema');
  client = await server.connect(undefined, database);
  snapshot = await freshWorkspaceSnapshot(client);
}, 120_000);
afterAll(() => server.stop());

describe('the workspace schema snapshot', () => {
  it('is what the migrations build on a fresh database', async () => {
    const committed = readFileSync(join(root, SNAPSHOT_FILE), 'utf8');
    const { rows } = await client.query<{ major: string }>(`SELECT current_setting('server_version_num')::int / 10000 AS major`);
    expect(snapshot, `${SNAPSHOT_FILE} is not what the migrations build (read from PostgreSQL ${rows[0]!.major}): run \`npm run schema:snapshot\` and commit the file`).toBe(committed);
  });

  it('names nothing of the cluster it was read from: no login, database, port or time of its own', () => {
    expect(snapshot).not.toContain(TEST_SUPERUSER);
    expect(snapshot).not.toContain(database);
    expect(snapshot).not.toContain(String(server.cluster.port));
    expect(snapshot).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
  });

  it('shows a grant, a column grant, a policy, a function\'s settings and a trigger changed', async () => {
    await client.query(`GRANT UPDATE ON approval_tiers TO paydesk_finance`);
    await client.query(`GRANT UPDATE (request) ON batch_rows TO paydesk_support`);
    await client.query(`ALTER POLICY entries_change ON entries USING (state <> 'known')`);
    await client.query(`ALTER FUNCTION paydesk_approve(bigint, text, text) RESET search_path`);
    await client.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    const changed = await describeWorkspaceSchema(client);
    const added = changed.split('\n').filter((line) => !snapshot.split('\n').includes(line));
    expect(added).toEqual(expect.arrayContaining([
      'GRANT SELECT, UPDATE ON TABLE approval_tiers TO paydesk_finance;',
      'GRANT UPDATE (request) ON TABLE batch_rows TO paydesk_support;',
      '  USING ((state <> \'known\'::text))',
      '-- paydesk_approve(bigint,text,text): SECURITY DEFINER (runs as <owner>); no fixed settings',
    ]));
    expect(changed).toContain('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only;');
  });
});
