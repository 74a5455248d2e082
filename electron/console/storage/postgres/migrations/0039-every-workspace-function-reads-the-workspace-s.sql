-- Migration 39: every workspace function reads the workspace's tables, never a caller's temporary ones (a fixed search_path)
--
-- Workspace migration 39: every function of the workspace reads the workspace's own tables, never a
-- caller's temporary table of the same name (issue 36 item 1;
-- docs/decisions/workspace-functions-fixed-search-path.md).
--
-- A function without its own `search_path` resolves a table's name with the caller's, and
-- PostgreSQL searches the session's temporary schema first unless `pg_temp` is named: any login
-- may `CREATE TEMP TABLE approval_tiers (…)`, so the gates that read `approval_tiers` or
-- `approval_requests` that way (the entry's gate, the claim gate, the request rules…) read an
-- empty table of the caller's and let a covered payout go. Now every function of the schema
-- (triggers, SECURITY DEFINER, plain) runs with `search_path = pg_catalog, public, pg_temp`: the catalog, the
-- workspace's schema, and the temporary schema last, named so that it is searched last.
--
-- The block below is an ALTER FUNCTION … SET of every such function (the extensions' own
-- functions aside): this migration runs it, and so does a later one that replaces functions (41,
-- 42 end with the same block), as a `CREATE OR REPLACE FUNCTION` without a SET clause drops it. test/storage/search-path.test.ts
-- fails on any function of the schema left without it.
--
-- Every function and procedure of the schema, members of an extension aside, gets the fixed search_path.

  DO $fix$
  DECLARE
    f regprocedure;
  BEGIN
    FOR f IN
      SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
        AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
      EXECUTE pg_catalog.format('ALTER ROUTINE %s SET search_path = pg_catalog, public, pg_temp', f);
    END LOOP;
  END $fix$;
