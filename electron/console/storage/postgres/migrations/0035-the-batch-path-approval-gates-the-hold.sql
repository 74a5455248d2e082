-- Migration 35: the batch path approval gates: the hold in PL/pgSQL, the claim gate on claims only, both skipped when nothing binds the batch; a linked row told without a whole-row comparison
--
-- Workspace migration 35: the approval gates of the batch path, the same refusals for less of the
-- server's CPU (issue 24 item 6; docs/team-workspace.md "Figures"). A PostgreSQL batch row cost the
-- server ~1 ms of CPU, and the gates were ~230 µs of it (bench/storage-profile.ts):
--
-- - **The entry's hold on its approval** (migration 30) was a SQL function with SECURITY DEFINER
--   and its own search_path: such a function is never inlined and its statement is parsed and
--   planned again at every call (~120 µs a row). Now PL/pgSQL (its plans kept for the session),
--   one statement per subject so each uses its own index; the same rows held FOR SHARE.
-- - **The claim gate** (migration 20) ran on every UPDATE of batch_rows that left a claim in
--   place, so also when a row's entry is linked to it (once per row, the entry's own gate having
--   just checked the same batch). Now it checks the rows whose claim was taken or renewed (holder,
--   login or lease changed, or a row new to the statement): what a claim is. A row's link, edit
--   or release writes no claim; the money's gate is the entry's, which every send still passes.
-- - **Both gates first ask, in one statement, whether anything binds the batch at all**: a
--   request awaiting or approved for it, or a tier asking approvals in its environment. When
--   nothing does, paydesk_assert_batch_send would have returned without refusing and the hold
--   would have held nothing: both are skipped. When something does, both run as before.
-- - **A batch row's change event** (migration 32) for a row's link to its entry (once per row):
--   its `journal_id` changed, so it is an event, told without comparing the whole row first.

  CREATE OR REPLACE FUNCTION paydesk_hold_approval(p_batch_id text, p_environment text, p_external_id text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    IF p_batch_id IS NOT NULL THEN
      PERFORM FROM approval_requests WHERE state = 'approved' AND batch_id = p_batch_id FOR SHARE;
    ELSE
      PERFORM FROM approval_requests WHERE state = 'approved' AND subject = 'payout' AND environment = p_environment AND external_id = p_external_id FOR SHARE;
    END IF;
  END $$;

  CREATE OR REPLACE FUNCTION paydesk_gate_entry() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    req jsonb := coalesce(NEW.request::jsonb, '{}'::jsonb);
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = 'pending' AND NEW.request IS NOT DISTINCT FROM OLD.request THEN RETURN NEW; END IF;
    IF (req ? 'amount' AND (req->>'amount')::bigint <> NEW.amount) OR (req ? 'phone_number' AND req->>'phone_number' <> NEW.phone_number)
       OR (req->>'external_id' IS DISTINCT FROM NEW.external_id AND NEW.request IS NOT NULL) THEN
      RAISE EXCEPTION 'payout entry %: its columns and its request disagree', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.batch_id IS NOT NULL THEN
      -- One statement instead of two function calls when nothing binds the batch.
      IF NOT EXISTS (SELECT FROM approval_requests WHERE batch_id = NEW.batch_id AND state IN ('awaiting', 'approved'))
         AND NOT EXISTS (SELECT FROM batches b JOIN approval_tiers t ON t.environment = b.environment AND t.approvals > 0 WHERE b.id = NEW.batch_id) THEN
        RETURN NEW;
      END IF;
      PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_batch_send((SELECT seq FROM batches WHERE id = NEW.batch_id), NEW.currency);
    ELSE
      PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_payout_send(NEW.environment, NEW.currency, NEW.phone_number, NEW.amount, NEW.external_id);
    END IF;
    RETURN NEW;
  END $$;

  CREATE OR REPLACE FUNCTION paydesk_gate_claims() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    claimed_seq bigint;
  BEGIN
    FOR claimed_seq IN
      SELECT DISTINCT n.batch_seq FROM claimed n LEFT JOIN held_before o USING (batch_seq, row_number)
      WHERE n.claim_holder IS NOT NULL
        AND (o.batch_seq IS NULL OR (n.claim_holder, n.claimed_by, n.lease_until) IS DISTINCT FROM (o.claim_holder, o.claimed_by, o.lease_until))
    LOOP
      -- Nothing binds the batch (as in paydesk_gate_entry): paydesk_assert_batch_send would pass.
      CONTINUE WHEN NOT EXISTS (SELECT FROM batches b JOIN approval_requests r ON r.batch_id = b.id AND r.state IN ('awaiting', 'approved') WHERE b.seq = claimed_seq)
        AND NOT EXISTS (SELECT FROM batches b JOIN approval_tiers t ON t.environment = b.environment AND t.approvals > 0 WHERE b.seq = claimed_seq);
      PERFORM paydesk_assert_batch_send(claimed_seq, NULL);
    END LOOP;
    RETURN NULL;
  END $$;
  DROP TRIGGER batch_rows_claim_gate ON batch_rows;
  CREATE TRIGGER batch_rows_claim_gate AFTER UPDATE ON batch_rows REFERENCING OLD TABLE AS held_before NEW TABLE AS claimed
    FOR EACH STATEMENT EXECUTE FUNCTION paydesk_gate_claims();

  -- Migration 32's change event of batch rows, the same events: a row whose entry was linked
  -- changed past its claim columns without comparing the whole row (once per row sent).
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
          WHERE n.journal_id IS DISTINCT FROM o.journal_id
            OR NOT (jsonb_populate_record(o, jsonb_build_object('claimed_by', n.claimed_by, 'claim_holder', n.claim_holder, 'lease_until', n.lease_until)) *= n))
      LOOP
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
      END LOOP;
    END IF;
    RETURN NULL;
  END $$;
