/**
 * Workspace migration 39: every function of the workspace reads the workspace's own tables, never a
 * caller's temporary table of the same name (issue 36 item 1;
 * docs/decisions/workspace-functions-fixed-search-path.md).
 *
 * A function without its own `search_path` resolves a table's name with the caller's, and
 * PostgreSQL searches the session's temporary schema first unless `pg_temp` is named: any login
 * may `CREATE TEMP TABLE approval_tiers (…)`, so the gates that read `approval_tiers` or
 * `approval_requests` that way (the entry's gate, the claim gate, the request rules…) read an
 * empty table of the caller's and let a covered payout go. Now every function of the schema
 * (triggers, SECURITY DEFINER, plain) runs with WORKSPACE_SEARCH_PATH: the catalog, the
 * workspace's schema, and the temporary schema last, named so that it is searched last.
 *
 * FIX_SEARCH_PATHS is an ALTER FUNCTION … SET of every such function (the extensions' own
 * functions aside): this migration runs it, and so does a later one that replaces functions, as
 * a `CREATE OR REPLACE FUNCTION` without a SET clause drops it. test/storage/search-path.test.ts
 * fails on any function of the schema left without it.
 */
import type { PgMigration } from './pg-migration';

/** The workspace's schema (migration 7 grants its tables there). */
export const WORKSPACE_SCHEMA = 'public';

/** What every function of the workspace runs with: `pg_temp` named last, so it is searched last. */
export const WORKSPACE_SEARCH_PATH = `pg_catalog, ${WORKSPACE_SCHEMA}, pg_temp`;

/** `SET search_path = …`, for a CREATE FUNCTION of a later migration. */
export const SET_SEARCH_PATH = `SET search_path = ${WORKSPACE_SEARCH_PATH}`;

/** Every function and procedure of the schema, members of an extension aside, gets the fixed search_path. */
export const FIX_SEARCH_PATHS = `
  DO $fix$
  DECLARE
    f regprocedure;
  BEGIN
    FOR f IN
      SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
      WHERE p.pronamespace = '${WORKSPACE_SCHEMA}'::regnamespace AND p.prokind IN ('f', 'p')
        AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
      EXECUTE pg_catalog.format('ALTER ROUTINE %s ${SET_SEARCH_PATH}', f);
    END LOOP;
  END $fix$;
`;

export const FIXED_SEARCH_PATH_MIGRATION: PgMigration = {
  version: 39,
  name: 'every workspace function reads the workspace\'s tables, never a caller\'s temporary ones (a fixed search_path)',
  sql: FIX_SEARCH_PATHS,
};
