/**
 * Workspace migration 47: a row belongs to one batch (issue 37 item 3;
 * docs/decisions/a-row-belongs-to-one-batch.md). A cancelled batch's remaining rows are moved to
 * the batch made of them: the old row keeps its place and names the batch it went to
 * (`moved_to`), and is never sent by the old batch again, whichever desktop holds it.
 *
 * The guard is the database's, as the SQLite journal's (its migration 11): an entry becomes
 * `pending` (its request about to leave) only for a row that was not moved. The trigger locks the
 * row it reads (FOR SHARE) and the move locks the rows it moves (FOR UPDATE) before it reads them,
 * so a desktop writing an old row's entry and another moving that row are serialized: the entry
 * written first makes the row sent (pending: not moved), the move committed first makes the
 * entry's write fail (nothing is POSTed).
 */
import type { PgMigration } from './pg-migration';
import { SET_SEARCH_PATH } from './fixed-search-path-migration';

const ONE_BATCH_SQL = `
  ALTER TABLE batch_rows ADD COLUMN moved_to text;

  CREATE FUNCTION paydesk_moved_row_unsent() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER ${SET_SEARCH_PATH} AS $$
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
`;

export const ONE_BATCH_MIGRATION: PgMigration = {
  version: 47,
  name: 'a row belongs to one batch',
  sql: ONE_BATCH_SQL,
};
