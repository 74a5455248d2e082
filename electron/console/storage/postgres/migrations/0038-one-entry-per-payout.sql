-- Migration 38: one entry per payout
--
-- Workspace migration 38, the twin of the SQLite journal's 10 (one entry per payout): the journal
-- is the only guard against paying twice (electron/console/journal/payout-identity.ts, issue 35). A unique
-- index on the payout's key (external id, kind, profile, environment) makes a second entry for one
-- payout impossible, whatever a desktop's client does: two desktops writing the same external id
-- at once, the second's INSERT waits for the first's transaction and then fails (23505), and the
-- store answers it as the guard's own refusal (ExternalIdKnown). Older entries written twice for one
-- payout fold into its best entry (known first, then unknown, then pending; the oldest); entries
-- holding another transaction at the service (paid twice by a service that accepted the id again)
-- stay, marked legacy_duplicate, outside the index. Run by the workspace's owner, whom row-level
-- security does not restrict.

    ALTER TABLE entries ADD COLUMN legacy_duplicate boolean;
    CREATE TEMP TABLE payout_keep ON COMMIT DROP AS
      SELECT g.profile_id, g.environment, g.kind, g.external_id,
        (SELECT k.seq FROM entries k
           WHERE k.external_id = g.external_id AND k.kind = g.kind AND k.profile_id = g.profile_id AND k.environment = g.environment
           ORDER BY (k.state = 'known') DESC, (k.state = 'outcome_unknown' AND k.resolution IS NULL) DESC, (k.state = 'pending') DESC, k.created_at, k.seq
           LIMIT 1) AS keep_seq
      FROM entries g WHERE g.external_id IS NOT NULL
      GROUP BY g.profile_id, g.environment, g.kind, g.external_id HAVING COUNT(*) > 1;
    UPDATE entries e SET legacy_duplicate = true
      FROM payout_keep p, entries k
      WHERE e.external_id = p.external_id AND e.kind = p.kind AND e.profile_id = p.profile_id AND e.environment = p.environment
        AND k.seq = p.keep_seq AND e.seq <> p.keep_seq
        AND e.transaction_id IS NOT NULL AND k.transaction_id IS NOT NULL AND e.transaction_id <> k.transaction_id;
    CREATE TEMP TABLE payout_moves ON COMMIT DROP AS
      SELECT e.seq AS from_seq, e.id AS from_id, p.keep_seq AS to_seq, k.id AS to_id
      FROM payout_keep p
        JOIN entries e ON e.external_id = p.external_id AND e.kind = p.kind AND e.profile_id = p.profile_id AND e.environment = p.environment
        JOIN entries k ON k.seq = p.keep_seq
      WHERE e.seq <> p.keep_seq AND e.legacy_duplicate IS NULL;
    UPDATE timeline SET entry_seq = m.to_seq FROM payout_moves m WHERE timeline.entry_seq = m.from_seq;
    UPDATE batch_rows SET journal_id = m.to_id FROM payout_moves m WHERE batch_rows.journal_id = m.from_id;
    UPDATE reconciliation_rows SET journal_id = m.to_id FROM payout_moves m WHERE reconciliation_rows.journal_id = m.from_id;
    DELETE FROM entries WHERE seq IN (SELECT from_seq FROM payout_moves);
    CREATE UNIQUE INDEX entries_one_per_payout ON entries (external_id, kind, profile_id, environment)
      WHERE external_id IS NOT NULL AND legacy_duplicate IS NULL;
  