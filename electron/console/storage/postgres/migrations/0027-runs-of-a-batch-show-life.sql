-- Migration 27: runs of a batch show life
--
-- Workspace migration 27: each run of a batch shows life (docs/decisions/batch-runs-show-life.md).
-- A row's lease said only that a desktop held rows at that instant: between two claims, or while
-- looking rows up, a sending desktop held none, and a colleague's console starting then marked the
-- batch `interrupted`, stopping every desktop. A run stamps `alive_until` on the database's clock
-- while it lasts (electron/console/batch/runner.ts) and removes its row when it ends.

    CREATE TABLE batch_runs (
      batch_seq bigint NOT NULL REFERENCES batches (seq) ON DELETE CASCADE,
      run text NOT NULL,
      login text NOT NULL DEFAULT session_user,
      alive_until bigint NOT NULL,
      PRIMARY KEY (batch_seq, run)
    );
    GRANT SELECT ON batch_runs TO paydesk_finance, paydesk_support, paydesk_admin;
    GRANT INSERT, UPDATE, DELETE ON batch_runs TO paydesk_finance;
  