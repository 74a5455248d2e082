-- Migration 25: change events for batch rows
--
-- Workspace migration 25: change events for a batch's rows. Migration 7 notifies entries, batches,
-- reconcile runs and team settings; a draft's rows edited, added or dropped, and a rehearsal's
-- results, changed none of those, so another desktop showing the batch did not hear them. One
-- NOTIFY per statement and batch (a 10,000-row import is one event, not 10,000), naming the batch;
-- a claim, a renewal or a release (the claim columns only) notifies no one: nothing shown changed.
--
-- The columns a claim writes: a row whose other columns are unchanged changed nothing a screen shows.
--
-- Transition tables allow one event per trigger: three triggers, one function, each branch
-- reading only the tables its own trigger names (a query on the others would fail).

      CREATE FUNCTION paydesk_notify_batch_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changed_batch text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_added) 
    LOOP
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
    END LOOP;
        ELSIF TG_OP = 'DELETE' THEN
          FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_removed) 
    LOOP
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
    END LOOP;
        ELSE
          FOR changed_batch IN
            SELECT b.id FROM batches b WHERE b.seq IN (
              SELECT n.batch_seq FROM rows_after n JOIN rows_before o USING (batch_seq, row_number)
              WHERE (to_jsonb(n) - 'claimed_by' - 'claim_holder' - 'lease_until') IS DISTINCT FROM (to_jsonb(o) - 'claimed_by' - 'claim_holder' - 'lease_until'))
          
    LOOP
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
    END LOOP;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER batch_rows_added AFTER INSERT ON batch_rows REFERENCING NEW TABLE AS rows_added
        FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
      CREATE TRIGGER batch_rows_removed AFTER DELETE ON batch_rows REFERENCING OLD TABLE AS rows_removed
        FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
      CREATE TRIGGER batch_rows_edited AFTER UPDATE ON batch_rows REFERENCING OLD TABLE AS rows_before NEW TABLE AS rows_after
        FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
    