-- Migration 29: a batch run is its login's
--
-- Workspace migration 29: a batch's runs are their login's (docs/decisions/batch-runs-row-security.md).
-- Migration 27 granted `batch_runs` to finance without row-level security: any finance login could
-- stamp, move or remove another login's run, keeping a colleague's dead run "alive" (a start then
-- never marks the batch interrupted) or removing a live one (a fault elsewhere then interrupts a
-- batch still being sent). Now, as migration 7 does for row claims:
-- - everyone with the table's SELECT grant (finance, support, admin) reads every run;
-- - a finance login adds and renews only runs stamped with its own login (`session_user`), and a
--   run's sign of life reaches at most ten minutes ahead (a lease is two; a modified client cannot
--   pin a batch `sending` for hours);
-- - it removes its own runs, and anyone's run that has lapsed (leaveRun's clean-up: the protocol
--   needs it), never another login's live run.
-- Support and admin keep no write grant (migration 27).
--
-- The furthest ahead a run's `alive_until` may be stamped (ms): five leases of two minutes.

    ALTER TABLE batch_runs ENABLE ROW LEVEL SECURITY;
    CREATE POLICY batch_runs_read ON batch_runs FOR SELECT USING (true);
    CREATE POLICY batch_runs_add ON batch_runs FOR INSERT
      WITH CHECK (login = session_user AND alive_until <= paydesk_now_ms() + 600000);
    CREATE POLICY batch_runs_beat ON batch_runs FOR UPDATE
      USING (login = session_user)
      WITH CHECK (login = session_user AND alive_until <= paydesk_now_ms() + 600000);
    CREATE POLICY batch_runs_leave ON batch_runs FOR DELETE
      USING (login = session_user OR alive_until <= paydesk_now_ms());
  