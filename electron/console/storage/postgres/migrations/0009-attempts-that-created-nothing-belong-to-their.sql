-- Migration 9: attempts that created nothing belong to their payout
--
-- The same folding as SQLite journal migration 8 (docs/decisions/attempts-belong-to-their-payout.md):
-- an entry that created nothing at the service (rejected with NOT_SENT: a 429 or a request that
-- never left; outcome unknown resolved not_found) joins the latest entry of its payout (profile,
-- environment, kind, external id). Its timeline events move there (their ids keep the order),
-- batch and Reconcile rows point there, and the empty attempt goes. Run by the workspace's
-- owner, whom row-level security does not restrict.

      CREATE TEMP TABLE attempt_moves ON COMMIT DROP AS
        SELECT e.seq AS from_seq, e.id AS from_id,
          (SELECT l.seq FROM entries l
             WHERE l.external_id = e.external_id AND l.kind = e.kind AND l.profile_id = e.profile_id AND l.environment = e.environment
             ORDER BY l.created_at DESC, l.seq DESC LIMIT 1) AS to_seq
        FROM entries e
        WHERE e.external_id IS NOT NULL
          AND ((e.state = 'rejected' AND e.last_error IS NOT NULL AND (e.last_error::jsonb ->> 'code') = 'NOT_SENT')
            OR (e.state = 'outcome_unknown' AND e.resolution = 'not_found'));
      DELETE FROM attempt_moves WHERE to_seq = from_seq;
      CREATE TEMP TABLE attempt_targets ON COMMIT DROP AS
        SELECT m.from_seq, m.from_id, m.to_seq, t.id AS to_id FROM attempt_moves m JOIN entries t ON t.seq = m.to_seq;
      UPDATE timeline SET entry_seq = a.to_seq FROM attempt_targets a WHERE timeline.entry_seq = a.from_seq;
      UPDATE batch_rows SET journal_id = a.to_id FROM attempt_targets a WHERE batch_rows.journal_id = a.from_id;
      UPDATE reconciliation_rows SET journal_id = a.to_id FROM attempt_targets a WHERE reconciliation_rows.journal_id = a.from_id;
      DELETE FROM entries WHERE seq IN (SELECT from_seq FROM attempt_targets);
    