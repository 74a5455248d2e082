/**
 * Workspace migration 23 (the workspace's own, like 7: one desktop has no other client to guard
 * against): a batch's rows are fixed once the batch has left `draft`. The console already refuses
 * a draft edit of a confirmed batch (../../handlers/batch-read.ts requireDraft, and
 * ./batch-drafts.ts replaceDraftRows under the batch's row lock); here the database refuses it
 * too, so a modified client or raw SQL as a finance login cannot change or drop a row of a batch
 * confirmed and sent (what was confirmed is what is paid). Adding rows stays allowed: a new draft
 * gets its rows that way, and moving a journal in (./move-in.ts) copies sent batches' rows.
 * Support and admin change no batch or row at all (migration 7 grants them reading only).
 */
import type { PgMigration } from './pg-migration';

export const BATCH_DRAFT_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 23,
    name: 'batch rows fixed once confirmed',
    sql: `
      CREATE FUNCTION paydesk_rows_fixed_once_confirmed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        batch_state text;
        batch_id text;
      BEGIN
        SELECT state, id INTO batch_state, batch_id FROM batches WHERE seq = OLD.batch_seq;
        IF batch_state IS NOT NULL AND batch_state <> 'draft' THEN
          RAISE EXCEPTION 'batch % is %: only a draft''s rows can be changed or removed', batch_id, batch_state
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
      END $$;
      CREATE TRIGGER batch_rows_fixed BEFORE UPDATE OF cells, request, errors, duplicates, external_id, retry_of OR DELETE ON batch_rows
        FOR EACH ROW EXECUTE FUNCTION paydesk_rows_fixed_once_confirmed();
    `,
  },
];
