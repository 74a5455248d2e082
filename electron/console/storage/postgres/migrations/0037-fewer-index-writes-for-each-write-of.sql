-- Migration 37: fewer index writes for each write of an entry
--
-- Workspace migration 37: fewer index writes for each write of an entry (issue 24 item 6;
-- docs/team-workspace.md "Figures"). A sent batch row writes its `entries` row three times (the
-- pending entry, the answer, the final status), and an answer can never be a HOT update (`state`,
-- `status` and `transaction_id` are indexed), so every write of a row writes every index of the
-- table again: 16 indexes, 48 index writes a row. Dropping six btrees (an experiment,
-- bench/batch-stores.ts BENCH_DROP_INDEXES) took ~30 % of the server's CPU a row. Here only what
-- no read loses:
--
-- - `entries_by_external_id` (external_id, created_at) goes: `entries_by_payout` (migration 22)
--   leads with external_id too, and every read by external id (an earlier attempt, "paid later",
--   Reconcile, History's exact external id) names it first; a payout has a handful of entries, so
--   ordering them by time costs nothing.
-- - `entries_by_state` keeps only the states that are not `known` (pending, outcome unknown,
--   rejected: the ones a person filters History by, and the sweeper and the start-up look for):
--   an entry is written into it once (pending), not on its answer and its final status. A filter
--   on `known`, most of the journal, reads History's time order as it does without a filter.
-- - `entries_by_batch` (batch_id, batch_row) goes: no read of a workspace looks entries up by
--   their batch (a batch's rows are read from `batch_rows`, which names each row's entry), and a
--   batch row's entry was written into it three times.
-- - `entries_by_transaction_id` leaves out the entries without one (a pending entry): every read
--   names a transaction id, which implies it. (`entries_by_status` keeps its NULLs: the follow-up
--   sweeper asks for known entries without a status, and without them it scanned the journal.)
--
-- One transaction, as every migration: a workspace is never half-migrated. Rebuilding two
-- indexes takes a few seconds at a million entries.

    DROP INDEX entries_by_external_id;
    DROP INDEX entries_by_batch;
    DROP INDEX entries_by_state;
    CREATE INDEX entries_by_state ON entries (state, created_at) WHERE state <> 'known';
    DROP INDEX entries_by_transaction_id;
    CREATE INDEX entries_by_transaction_id ON entries (transaction_id, created_at) WHERE transaction_id IS NOT NULL;
  