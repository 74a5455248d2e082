/**
 * Applies the workspace's numbered migrations (./migrations.ts), each in one transaction with its
 * version row, so a workspace is never half-migrated: a migration that fails leaves the schema as
 * it was before it. Desktops that start together take turns (an advisory lock). A workspace
 * migrated by a newer Paydesk is refused with a clear message instead of being written by code
 * that does not know its tables.
 */
import type pg from 'pg';
import { PG_MIGRATIONS, type PgMigration } from './migrations';

/** Any fixed number: the advisory lock all desktops of a workspace take to migrate one at a time. */
const MIGRATION_LOCK = 0x7061_7964;

export class WorkspaceSchemaError extends Error {
  constructor(
    readonly code: 'SCHEMA_NEWER' | 'SCHEMA_OLDER' | 'MIGRATION_FAILED',
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceSchemaError';
  }
}

const LATEST = (migrations: readonly PgMigration[]) => migrations.at(-1)?.version ?? 0;

/** The workspace's schema version (0 for an empty database). */
export async function appliedVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>(
    `SELECT CASE WHEN to_regclass('paydesk_schema_migrations') IS NULL THEN 0 ELSE (SELECT coalesce(max(version), 0) FROM paydesk_schema_migrations) END AS version`,
  );
  return Number(rows[0]?.version ?? 0);
}

function newerMessage(found: number, known: number): string {
  return `This team workspace was updated by a newer Paydesk (its schema is version ${found}; this Paydesk knows up to ${known}). Nothing was changed: update Paydesk on this desktop to use the workspace.`;
}

/** Brings the workspace to the latest version; returns the versions applied (none when up to date). */
export async function migrateWorkspace(client: pg.ClientBase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS paydesk_schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL DEFAULT session_user)`);
    const current = await appliedVersion(client);
    if (current > LATEST(migrations)) throw new WorkspaceSchemaError('SCHEMA_NEWER', newerMessage(current, LATEST(migrations)));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO paydesk_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new WorkspaceSchemaError(
          'MIGRATION_FAILED',
          `Updating the team workspace to version ${migration.version} (${migration.name}) failed and was undone; the workspace stays at version ${applied.at(-1) ?? current}. ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}

/**
 * What a person's desktop checks when it connects (people's logins cannot migrate): the workspace
 * is at exactly the version this Paydesk knows.
 */
export async function checkWorkspaceSchema(client: pg.ClientBase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<void> {
  const current = await appliedVersion(client);
  const known = LATEST(migrations);
  if (current > known) throw new WorkspaceSchemaError('SCHEMA_NEWER', newerMessage(current, known));
  if (current < known) {
    throw new WorkspaceSchemaError(
      'SCHEMA_OLDER',
      `This team workspace is at schema version ${current} and this Paydesk needs version ${known}: ask the workspace's administrator to update it (npm run team:local does it for a local one).`,
    );
  }
}
