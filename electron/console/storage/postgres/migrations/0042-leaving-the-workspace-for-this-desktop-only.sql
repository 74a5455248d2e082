-- Migration 42: leaving the workspace for this desktop only, and coming back, are audited
--
-- Workspace migration 42: leaving the workspace and coming back are in its audit log (issue 36
-- item 2; docs/decisions/leaving-keeps-the-policy.md). "Use this desktop only" moves a desktop out
-- of the team's approval policy for what it then sends with its own profiles; the team must see
-- who did it and when, so the console writes the line while still connected, before the switch
-- (electron/console/workspace/console-host.ts refuses to leave when it cannot be written), and writes the coming (back) the
-- same way, before its choice changes.
--
-- `leave_workspace` and `join_workspace` (a desktop coming from its own journal: the first time, or back) join the actions the log allows and the hooks a desktop
-- may record itself (`paydesk_audit`): the line's actor is still `session_user`, stamped by the
-- log's own trigger, never a name the desktop sends.

  ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
  ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN ('sign_in', 'import', 'confirm', 'send', 'pause', 'cancel',
    'request_approval', 'approve', 'reject', 'withdraw', 'void_approval', 'policy_change', 'role_change', 'leave_workspace', 'join_workspace'));

  CREATE OR REPLACE FUNCTION paydesk_audit(p_action text, p_subject text, p_before jsonb DEFAULT NULL, p_after jsonb DEFAULT NULL, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF p_action IS NULL OR NOT p_action = ANY (ARRAY['sign_in', 'import', 'confirm', 'send', 'pause', 'cancel', 'leave_workspace', 'join_workspace']) THEN
      RAISE EXCEPTION 'a desktop cannot record "%" in the audit log: only the database writes it', p_action USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN paydesk_audit_write(p_action, p_subject, p_before, p_after, p_remark);
  END $$;

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
