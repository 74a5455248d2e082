-- Migration 31: change events for the audit log
--
-- Workspace migration 31: change events for the audit log (issue 25: the Audit screen live). The
-- log is written by the database (approvals, policy and role changes) and by the desktops' hooks;
-- until now no line was heard, so an Audit screen open on another desktop showed a policy change
-- only when the person pressed Apply again. One NOTIFY per statement naming its newest line (a
-- policy replaced tier by tier is one event): the screen reads its first page again, never a line
-- from the event.

    CREATE FUNCTION paydesk_notify_audit() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      newest bigint;
    BEGIN
      SELECT max(id) INTO newest FROM lines_added;
      IF newest IS NOT NULL THEN
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'audit_log', 'id', newest::text, 'batchId', NULL)::text);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER audit_log_changed AFTER INSERT ON audit_log REFERENCING NEW TABLE AS lines_added
      FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_audit();
  