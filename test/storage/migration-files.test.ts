/**
 * The workspace's migrations are the SQL files of one folder, one a version
 * (electron/console/storage/postgres/migrations): read in order under Node, bundled byte for byte
 * into the main process's build, and applied whole to a fresh database.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrationFiles, type MigrationFile } from '../../electron/console/storage/postgres/migration-files';
import { migrationOf, migrationsOf, PG_MIGRATIONS } from '../../electron/console/storage/postgres/migrations';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { APPROVAL_SQLSTATE, CHANGES_CHANNEL, DESKTOP_SETTING, LOCAL_SANDBOX_BATCH_SQLSTATE, ROLES, RUN_ALIVE_MAX_AHEAD_MS, TEAM_SANDBOX, WORKSPACE_SEARCH_PATH } from '../../electron/console/storage/postgres/schema-names';
import { bundledMigrationFilesModule } from '../../vite.config';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { makeTempDir } from '../temp-dir';

/** Numbers never used (work numbered in parallel); the folder's README names them. No other gap is allowed. */
const NEVER_USED = [11, 12, 13, 14, 15, 16, 17, 18, 19, 23, 24, 26, 40];

const files = readMigrationFiles();
const allSql = PG_MIGRATIONS.map((m) => m.sql).join('\n');

describe('the migration files', () => {
  it('are one a version, 1 to the latest without a duplicate nor a gap beyond the numbers never used, each holding SQL', () => {
    const latest = PG_MIGRATIONS.at(-1)!.version;
    const expected = Array.from({ length: latest }, (_, i) => i + 1).filter((v) => !NEVER_USED.includes(v));
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual(expected);
    expect(files.map((f) => Number(f.fileName.slice(0, 4)))).toEqual(expected);
    for (const migration of PG_MIGRATIONS) {
      expect(migration.sql.trim(), `migration ${migration.version}`).not.toBe('');
      expect(migration.name, `migration ${migration.version}`).toMatch(/^\S/);
    }
  });

  it('name a migration by its first line and keep its SQL as written after the opening comment', () => {
    const migration = migrationOf({ fileName: '0043-people.sql', text: '-- Migration 43: people added by an admin\n--\n-- Why: issue 36.\n\n  CREATE TABLE people (login text);\n  ' });
    expect(migration).toEqual({ version: 43, name: 'people added by an admin', sql: '\n  CREATE TABLE people (login text);\n  ' });
  });

  it('refuse a file named wrong, one whose first line names another version, one without SQL, and two files of one version', () => {
    const file = (fileName: string, text: string): MigrationFile => ({ fileName, text });
    expect(() => migrationOf(file('43-people.sql', '-- Migration 43: people\nSELECT 1;'))).toThrow(/four digits/);
    expect(() => migrationOf(file('0043-people.sql', 'SELECT 1;'))).toThrow('its first line must be "-- Migration 43: <what it does>"');
    expect(() => migrationOf(file('0043-people.sql', '-- Migration 44: people\nSELECT 1;'))).toThrow('its first line says migration 44, its file name 43');
    expect(() => migrationOf(file('0043-people.sql', '-- Migration 43: people\n-- nothing else\n  \n'))).toThrow('holds no SQL');
    expect(() => migrationsOf([file('0043-people.sql', '-- Migration 43: people\nSELECT 1;'), file('0043-roles.sql', '-- Migration 43: roles\nSELECT 2;')]))
      .toThrow('Two workspace migrations are numbered 43: 0043-people.sql, 0043-roles.sql');
  });

  it('are what the main build bundles, byte for byte', async () => {
    const module = join(makeTempDir('paydesk-bundled-migrations-'), 'migration-files.mjs');
    writeFileSync(module, bundledMigrationFilesModule());
    const bundled = (await import(pathToFileURL(module).href)) as { readMigrationFiles(): MigrationFile[] };
    expect(bundled.readMigrationFiles()).toEqual(files);
    expect(migrationsOf(bundled.readMigrationFiles())).toEqual(PG_MIGRATIONS);
  });

  it('write the names the code shares with them (schema-names.ts)', () => {
    const written = [
      `'${CHANGES_CHANNEL}'`, ...Object.values(ROLES), `'${DESKTOP_SETTING}'`, `search_path = ${WORKSPACE_SEARCH_PATH}`,
      `paydesk_now_ms() + ${RUN_ALIVE_MAX_AHEAD_MS}`, ...Object.values(APPROVAL_SQLSTATE).map((code) => `ERRCODE = '${code}'`),
      `'${TEAM_SANDBOX.profileId}'`, `CREATE TABLE ${TEAM_SANDBOX.table} (`, `FUNCTION ${TEAM_SANDBOX.publish}(`, `'${TEAM_SANDBOX.auditAction}'`,
      `ERRCODE = '${LOCAL_SANDBOX_BATCH_SQLSTATE}'`,
    ];
    expect(written.filter((name) => !allSql.includes(name))).toEqual([]);
  });
});

describe('a fresh database', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 60_000);
  afterAll(() => server.stop());

  it('gets every file applied, in order, each recorded under its file\'s version and name', async () => {
    const client = await server.connect(undefined, await server.createDatabase());
    expect(await migrateWorkspace(client)).toEqual(files.map((f) => Number(f.fileName.slice(0, 4))));
    const { rows } = await client.query<{ version: number; name: string }>('SELECT version, name FROM paydesk_schema_migrations ORDER BY version');
    expect(rows).toEqual(files.map((f) => ({ version: Number(f.fileName.slice(0, 4)), name: /^-- Migration \d+: (.*)$/m.exec(f.text)![1] })));
  });
});
