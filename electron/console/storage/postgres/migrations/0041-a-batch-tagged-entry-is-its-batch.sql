-- Migration 41: a batch-tagged entry is its batch row's; every entry sent is audited; support never sends nor changes money
--
-- Workspace migration 41: the money no longer goes around the gates (issue 36 item 1;
-- docs/team-workspace.md "Gates"). Migration 39 fixed the functions' search_path; here:
--
-- - **A batch-tagged entry is the entry of that batch's row.** The entry's gate (migrations 21, 30,
--   35) checked the batch a payout's entry named, not that the entry was one of its rows, and its
--   "nothing binds this batch" shortcut passed a batch id that does not exist: a finance login
--   wrote a pending payout of any amount to any phone by tagging it with an approved batch's id,
--   an unknown one or an empty draft's. Now an entry with a `batch_id` must be the entry of that
--   batch's row `batch_row` (its request and external id the row's, the row linked to no other
--   entry) and the row held by no other login's live claim; else it is refused before any
--   shortcut. The approval checks that follow are migration 35's.
-- - **An entry's gate runs on every write that changes what it sends**, a pending entry's amount,
--   phone, currency, external id, environment or batch link included (before, an UPDATE of a
--   pending entry that left its request alone passed without a check).
-- - **Every entry sent is audited**, a batch's rows too (migration 34 left them to their batch's
--   one `send` line, and so left out any entry tagged with a batch), and so is a pending entry whose
--   request, amount, phone, currency or batch link changes.
-- - **Support never sends nor changes money.** Migration 7 granted support UPDATE of `state`,
--   `amount`, `currency` and `transaction_id` (a follow-up writes the service's answer), under a
--   policy `USING (true)`: a support login moved an entry back to `pending` (what lets a POST
--   leave) and, inventing a transaction id, set an outcome-unknown entry's amount. A login that is
--   not finance now never moves an entry to `pending`, never changes its amount or currency, and
--   writes a transaction id only with the service's answer that makes the entry `known` (a Look up
--   or a Verify that found it).
--
-- A SQL function with its own search_path is never inlined and is parsed and planned again in
-- every statement that calls it (migration 35's finding): the two on the batch path become
-- PL/pgSQL, whose plans are kept for the session. `paydesk_now_ms` is in every claim, renewal
-- and release and in batch_rows' row-level security; `paydesk_audit_write` writes every line of
-- the database's own. Same results, same grants.
--
-- Support's follow-ups write the service's answer (status, fee, a transaction id), never what is
-- sent. Called only when a column support may write and must not change does, by a login that is
-- not finance (the WHEN, evaluated without a call: the batch path's answers, finance's, never call
-- it). The function asks again, so it holds whatever trigger calls it.

  CREATE OR REPLACE FUNCTION paydesk_now_ms() RETURNS bigint LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  END $$;
  CREATE OR REPLACE FUNCTION paydesk_audit_write(p_action text, p_subject text, p_before jsonb, p_after jsonb, p_remark text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    written bigint;
  BEGIN
    INSERT INTO audit_log (action, subject, before, after, remark) VALUES (p_action, p_subject, p_before, p_after, p_remark) RETURNING id INTO written;
    RETURN written;
  END $$;

  CREATE OR REPLACE FUNCTION paydesk_gate_entry() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    req jsonb := coalesce(NEW.request::jsonb, '{}'::jsonb);
    bound record;
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = 'pending'
       AND (NEW.request, NEW.amount, NEW.currency, NEW.phone_number, NEW.external_id, NEW.environment, NEW.batch_id, NEW.batch_row)
         IS NOT DISTINCT FROM (OLD.request, OLD.amount, OLD.currency, OLD.phone_number, OLD.external_id, OLD.environment, OLD.batch_id, OLD.batch_row) THEN
      RETURN NEW;
    END IF;
    IF (req ? 'amount' AND (req->>'amount')::bigint <> NEW.amount) OR (req ? 'phone_number' AND req->>'phone_number' <> NEW.phone_number)
       OR (req->>'external_id' IS DISTINCT FROM NEW.external_id AND NEW.request IS NOT NULL) THEN
      RAISE EXCEPTION 'payout entry %: its columns and its request disagree', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.batch_id IS NOT NULL THEN
      -- The entry of one of the batch's rows, exactly as the row says, before anything else.
      SELECT b.seq, b.environment, br.request, br.external_id, br.journal_id, br.claim_holder, br.claimed_by, br.lease_until INTO bound
        FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row;
      IF NOT FOUND OR bound.environment <> NEW.environment OR bound.request IS NULL OR NEW.request IS NULL OR bound.request::jsonb <> req
         OR bound.external_id IS DISTINCT FROM NEW.external_id THEN
        RAISE EXCEPTION 'payout entry % is not the entry of row % of batch %: a batch''s entry is one of its rows, as the row says', NEW.id, NEW.batch_row, NEW.batch_id
          USING ERRCODE = 'check_violation';
      END IF;
      -- The console's own words for both (../port.ts rowTakenMessage): a desktop reads them the same.
      IF bound.journal_id IS DISTINCT FROM NEW.id AND bound.journal_id IS NOT NULL THEN
        RAISE EXCEPTION 'batch % row % already has its journal entry or is held by another desktop: it is not sent again', NEW.batch_id, NEW.batch_row
          USING ERRCODE = 'check_violation', DETAIL = 'its entry is ' || bound.journal_id;
      END IF;
      IF bound.claim_holder IS NOT NULL AND bound.claimed_by IS DISTINCT FROM session_user AND bound.lease_until > paydesk_now_ms() THEN
        RAISE EXCEPTION 'batch % row % already has its journal entry or is held by another desktop: it is not sent again', NEW.batch_id, NEW.batch_row
          USING ERRCODE = 'insufficient_privilege', DETAIL = 'held by ' || coalesce(bound.claimed_by, 'another login') || '''s live claim';
      END IF;
      -- One statement instead of two function calls when nothing binds the batch (migration 35).
      IF NOT EXISTS (SELECT FROM approval_requests WHERE batch_id = NEW.batch_id AND state IN ('awaiting', 'approved'))
         AND NOT EXISTS (SELECT FROM approval_tiers t WHERE t.environment = bound.environment AND t.approvals > 0) THEN
        RETURN NEW;
      END IF;
      PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_batch_send(bound.seq, NEW.currency);
    ELSE
      PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_payout_send(NEW.environment, NEW.currency, NEW.phone_number, NEW.amount, NEW.external_id);
    END IF;
    RETURN NEW;
  END $$;
  DROP TRIGGER entries_approval_gate ON entries;
  CREATE TRIGGER entries_approval_gate BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment, batch_id, batch_row ON entries
    FOR EACH ROW WHEN (NEW.kind = 'payout' AND NEW.state = 'pending') EXECUTE FUNCTION paydesk_gate_entry();

  -- Once a batch row now: the line written here (the function is the owner's), not through
  -- paydesk_audit_write, one call less with its own search_path.
  CREATE OR REPLACE FUNCTION paydesk_audit_entry_sent() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    INSERT INTO audit_log (action, subject, before, after) VALUES ('send', 'entry:' || NEW.id,
      CASE WHEN TG_OP = 'UPDATE' THEN jsonb_build_object('state', OLD.state, 'resolution', OLD.resolution, 'amount', OLD.amount, 'currency', OLD.currency,
        'phone', OLD.phone_number, 'batchId', OLD.batch_id, 'batchRow', OLD.batch_row) END,
      jsonb_build_object('state', NEW.state, 'kind', NEW.kind, 'amount', NEW.amount, 'currency', NEW.currency, 'phone', NEW.phone_number,
        'externalId', NEW.external_id, 'environment', NEW.environment, 'profile', NEW.profile_name, 'batchId', NEW.batch_id, 'batchRow', NEW.batch_row));
    RETURN NULL;
  END $$;
  DROP TRIGGER entries_sent_audited ON entries;
  DROP TRIGGER entries_sent_again_audited ON entries;
  CREATE TRIGGER entries_sent_audited AFTER INSERT ON entries FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION paydesk_audit_entry_sent();
  -- Sent again, or what a pending entry sends changed.
  CREATE TRIGGER entries_sent_again_audited AFTER UPDATE OF state, request, amount, currency, phone_number, batch_id, batch_row ON entries
    FOR EACH ROW WHEN (NEW.state = 'pending' AND (OLD.state IS DISTINCT FROM 'pending'
      OR (NEW.request, NEW.amount, NEW.currency, NEW.phone_number, NEW.batch_id, NEW.batch_row) IS DISTINCT FROM (OLD.request, OLD.amount, OLD.currency, OLD.phone_number, OLD.batch_id, OLD.batch_row)))
    EXECUTE FUNCTION paydesk_audit_entry_sent();

  CREATE FUNCTION paydesk_support_follows_up() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RETURN NEW; END IF;
    IF NEW.state = 'pending' AND OLD.state IS DISTINCT FROM 'pending' THEN
      RAISE EXCEPTION 'entry %: only finance sends; % may not move it back to pending', OLD.id, session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency THEN
      RAISE EXCEPTION 'entry %: only finance changes its amount or currency, not %', OLD.id, session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.transaction_id IS DISTINCT FROM OLD.transaction_id AND NEW.state <> 'known' THEN
      RAISE EXCEPTION 'entry %: % records a transaction id only with the service''s answer that makes it known', OLD.id, session_user
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_support_follows_up BEFORE UPDATE OF state, amount, currency, transaction_id ON entries
    FOR EACH ROW WHEN (((NEW.state = 'pending' AND OLD.state IS DISTINCT FROM 'pending') OR NEW.amount IS DISTINCT FROM OLD.amount
      OR NEW.currency IS DISTINCT FROM OLD.currency OR NEW.transaction_id IS DISTINCT FROM OLD.transaction_id)
      AND NOT pg_has_role(session_user, 'paydesk_finance', 'MEMBER'))
    EXECUTE FUNCTION paydesk_support_follows_up();

  DO $fix$
  DECLARE
    f regprocedure;
  BEGIN
    FOR f IN
      SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
        AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
      EXECUTE pg_catalog.format('ALTER ROUTINE %s SET search_path = pg_catalog, public, pg_temp', f);
    END LOOP;
  END $fix$;
