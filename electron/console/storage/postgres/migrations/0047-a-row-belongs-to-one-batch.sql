-- Migration 47: a row belongs to one batch

  ALTER TABLE batch_rows ADD COLUMN moved_to text;

  CREATE FUNCTION paydesk_moved_row_unsent() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    moved text;
  BEGIN
    IF NEW.state <> 'pending' OR NEW.batch_id IS NULL THEN RETURN NEW; END IF;
    -- Locked whatever its moved_to: a move in progress is waited for, then its value read.
    SELECT br.moved_to INTO moved FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
      WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row FOR SHARE OF br;
    IF moved IS NOT NULL THEN
      RAISE EXCEPTION 'batch % row % was moved to batch %: it is never sent by this one', NEW.batch_id, NEW.batch_row, moved USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_moved_row_unsent BEFORE INSERT OR UPDATE OF state, batch_id, batch_row ON entries
    FOR EACH ROW WHEN (NEW.state = 'pending' AND NEW.batch_id IS NOT NULL) EXECUTE FUNCTION paydesk_moved_row_unsent();
