-- Migration 32: batch path change events without whole rows as JSON
--
-- Workspace migration 32: the change events of the batch path, the same events for less of the
-- server's CPU. A PostgreSQL batch row costs the server about a millisecond of CPU
-- (bench/storage-profile.ts), and a third of it was triggers: the batch path writes an entry twice
-- per row (its pending request, its answer) and batch_rows three times per claim (claim, link,
-- release), and each write told its listeners by first turning whole rows into JSON.
--
-- - An entry's change event (migration 7) is built from the entry's own columns (`id`,
--   `batch_id`) instead of the whole row read as JSON: the same payload, without converting the
--   request and the service's answer each time.
-- - A batch row's event (migration 25) is still sent only when something besides the claim
--   columns changed, but that is now decided by putting the new claim columns into the old row
--   and comparing it with the new one as records (`*=`, their stored bytes), instead of turning
--   both into JSON and removing the claim keys. Same answer: a row whose only changes are its
--   claim columns is equal to its old self with those columns set.

    CREATE FUNCTION paydesk_notify_entry_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'entries', 'id', NEW.id, 'batchId', NEW.batch_id)::text);
      RETURN NULL;
    END $$;
    DROP TRIGGER entries_changed ON entries;
    CREATE TRIGGER entries_changed AFTER INSERT OR UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_notify_entry_change();

    CREATE OR REPLACE FUNCTION paydesk_notify_batch_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed_batch text;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_added) LOOP
          PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
        END LOOP;
      ELSIF TG_OP = 'DELETE' THEN
        FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_removed) LOOP
          PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
        END LOOP;
      ELSE
        FOR changed_batch IN
          SELECT b.id FROM batches b WHERE b.seq IN (
            SELECT n.batch_seq FROM rows_after n JOIN rows_before o USING (batch_seq, row_number)
            WHERE NOT (jsonb_populate_record(o, jsonb_build_object('claimed_by', n.claimed_by, 'claim_holder', n.claim_holder, 'lease_until', n.lease_until)) *= n))
        LOOP
          PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
        END LOOP;
      END IF;
      RETURN NULL;
    END $$;
  