-- Migration 44: a sent payout never changes, its timeline append-only; a pending entry is its request; a batch's move voids its approval; a batch row's entry under the writer's own claim, claims only while sending
--
-- Workspace migration 44: what was sent stays as it was sent, an approval follows its batch's
-- profile, and a batch's row is written only by the login whose claim holds it (issue 36 item 1;
-- docs/decisions/sent-payout-never-changes.md, docs/decisions/batch-entry-under-writers-claim.md).
-- New triggers only: the entry's gate (paydesk_gate_entry), the claim gate and the approval
-- functions are left as migrations 35, 41 and the approvals' own made them.
--
-- - **A sent payout never changes** (paydesk_sent_entry_frozen). Once an entry may have reached
--   the service (outcome unknown, known, or a transaction id), what it asked never changes for any
--   role, the table's owner included: request, recipient (phone, names, email, method),
--   description, metadata, external id, profile, environment, kind, batch row (unless a row sends it
--   again after a look-up found nothing, as it was); nor does it go back
--   to `pending` unless a look-up said "not found" (ENTRY_STATES: outcome_unknown → not_found →
--   pending). Its amount and currency change only with the service's first answer (the transaction
--   id arriving) and to that answer's own; its fee and net amount only to what the answer written
--   with them says; its transaction id, once there, never changes.
-- - **A pending entry is its request** (paydesk_pending_entry_is_its_request): amount, currency
--   (the request currency: a request names none), phone, external id, method, names and email
--   equal the request's, on every write that leaves it pending. Before,
--   the entry's gate compared only the keys the request had, and a currency other than the
--   request's found no approval tier: the POST sends the request.
-- - **The timeline is append-only** (paydesk_timeline_append_only): no UPDATE, DELETE or TRUNCATE
--   by any role (an entry with events is never deleted either: the cascade is a DELETE).
-- - **A batch's profile or environment change voids its approval** (paydesk_void_batch_approval_on_move),
--   waiting or approved, audited as `void_approval`.
-- - **A batch row's entry is written under the writer's own live claim** (paydesk_claim_is_writers):
--   inserted pending, moved back to pending, or changed while pending. Migration 41 refused only
--   another login's live claim, so a row nobody held was written by any finance login.
-- - **A claim is taken only on a batch being sent** (paydesk_claim_only_while_sending): a raw
--   UPDATE that sets a row's holder on a draft, paused, done… batch is refused; a live claim's
--   renewal and a release are not claims.
  CREATE OR REPLACE FUNCTION paydesk_entry_identity() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF NEW.environment IS DISTINCT FROM OLD.environment OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.profile_id IS DISTINCT FROM OLD.profile_id
       OR (OLD.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id)
       OR (OLD.transaction_id IS NOT NULL AND NEW.transaction_id IS NULL) THEN
      RAISE EXCEPTION 'entry %: its environment, kind, profile and external id never change once written, nor is its transaction id removed', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency)
       AND NOT (OLD.transaction_id IS NULL AND (OLD.state = 'pending' OR NEW.state = 'pending' OR NEW.transaction_id IS NOT NULL)) THEN
      RAISE EXCEPTION 'entry %: its amount and currency change only while it is being sent, or with the service''s first answer', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $$;

  CREATE FUNCTION paydesk_sent_entry_frozen() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    answer jsonb;
  BEGIN
    IF (OLD.state IN ('outcome_unknown', 'known') OR OLD.transaction_id IS NOT NULL) THEN
      IF (NEW.request, NEW.phone_number, NEW.customer_first_name, NEW.customer_last_name, NEW.customer_email, NEW.payment_method, NEW.description, NEW.metadata, NEW.profile_id, NEW.profile_name, NEW.environment, NEW.kind) IS DISTINCT FROM (OLD.request, OLD.phone_number, OLD.customer_first_name, OLD.customer_last_name, OLD.customer_email, OLD.payment_method, OLD.description, OLD.metadata, OLD.profile_id, OLD.profile_name, OLD.environment, OLD.kind) OR (OLD.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id) THEN
        RAISE EXCEPTION 'entry % may have reached the service: what it asked (request, recipient, external id, profile, environment, kind) never changes', OLD.id
          USING ERRCODE = 'check_violation';
      END IF;
      -- Its batch row only when a look-up found nothing and another batch's row sends it again, as it was.
      IF (NEW.batch_id, NEW.batch_row) IS DISTINCT FROM (OLD.batch_id, OLD.batch_row) AND NEW.state <> 'pending' THEN
        RAISE EXCEPTION 'entry % may have reached the service: its batch row changes only when it is sent again', OLD.id USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'pending' AND NOT (OLD.state = 'outcome_unknown' AND OLD.resolution IS NOT DISTINCT FROM 'not_found' AND OLD.transaction_id IS NULL) THEN
        RAISE EXCEPTION 'entry % may have reached the service: it is sent again only after a look-up found nothing under its external id', OLD.id
          USING ERRCODE = 'check_violation';
      END IF;
    END IF;
    IF OLD.transaction_id IS NOT NULL AND NEW.transaction_id IS DISTINCT FROM OLD.transaction_id THEN
      RAISE EXCEPTION 'entry %: its transaction id never changes once the service gave it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.transaction_json IS NOT NULL AND (NEW.amount, NEW.currency, NEW.fee, NEW.net_amount) IS DISTINCT FROM (OLD.amount, OLD.currency, OLD.fee, OLD.net_amount) THEN
      answer := NEW.transaction_json::jsonb;
    END IF;
    -- The money of an answer is the answer's: an amount or currency changes with the first one (or
    -- while pending, as its request: the next trigger), a fee or net amount to what it says.
    -- IS NOT TRUE throughout: a key the answer lacks (NULL) is no answer, never a pass.
    IF (NEW.amount, NEW.currency) IS DISTINCT FROM (OLD.amount, OLD.currency) AND NEW.state <> 'pending'
       AND (OLD.transaction_id IS NULL AND NEW.transaction_id IS NOT NULL AND answer IS NOT NULL
            AND jsonb_typeof(answer->'amount') = 'number' AND (answer->>'amount')::numeric = NEW.amount AND answer->>'currency' = NEW.currency) IS NOT TRUE THEN
      RAISE EXCEPTION 'entry %: its amount and currency change only with the service''s first answer, to that answer''s', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.state = 'pending' AND (OLD.state IN ('outcome_unknown', 'known') OR OLD.transaction_id IS NOT NULL) AND (NEW.amount, NEW.currency) IS DISTINCT FROM (OLD.amount, OLD.currency) THEN
      RAISE EXCEPTION 'entry % may have reached the service: its amount and currency never change', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.fee IS DISTINCT FROM OLD.fee AND (jsonb_typeof(answer->'fee') = 'number' AND (answer->>'fee')::numeric = NEW.fee) IS NOT TRUE)
       OR (NEW.net_amount IS DISTINCT FROM OLD.net_amount AND (jsonb_typeof(answer->'net_amount') = 'number' AND (answer->>'net_amount')::numeric = NEW.net_amount) IS NOT TRUE) THEN
      RAISE EXCEPTION 'entry %: its fee and net amount are the service''s answer''s, written with it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $$;
  -- The WHEN keeps a status written again (its answer's money unchanged) from calling the function.
  -- Named to run after migration 34's identity and migration 41's support triggers (a trigger's
  -- name orders it): what they refuse is refused with their words, the rest here.
  CREATE TRIGGER entries_was_sent_kept BEFORE UPDATE ON entries FOR EACH ROW
    WHEN (((OLD.state IN ('outcome_unknown', 'known') OR OLD.transaction_id IS NOT NULL) AND ((NEW.request, NEW.phone_number, NEW.customer_first_name, NEW.customer_last_name, NEW.customer_email, NEW.payment_method, NEW.description, NEW.metadata, NEW.profile_id, NEW.profile_name, NEW.environment, NEW.kind) IS DISTINCT FROM (OLD.request, OLD.phone_number, OLD.customer_first_name, OLD.customer_last_name, OLD.customer_email, OLD.payment_method, OLD.description, OLD.metadata, OLD.profile_id, OLD.profile_name, OLD.environment, OLD.kind) OR NEW.external_id IS DISTINCT FROM OLD.external_id
        OR (NEW.batch_id, NEW.batch_row) IS DISTINCT FROM (OLD.batch_id, OLD.batch_row)
        OR (NEW.state = 'pending' AND OLD.state <> 'pending')))
      OR (NEW.amount, NEW.currency, NEW.fee, NEW.net_amount, NEW.transaction_id) IS DISTINCT FROM (OLD.amount, OLD.currency, OLD.fee, OLD.net_amount, OLD.transaction_id))
    EXECUTE FUNCTION paydesk_sent_entry_frozen();

  CREATE FUNCTION paydesk_pending_entry_is_its_request() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    req jsonb;
  BEGIN
    IF NEW.request IS NULL THEN
      RAISE EXCEPTION 'entry %: a pending entry carries the request it sends', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    req := NEW.request::jsonb;
    -- Every column equal (IS NOT TRUE: a key the request lacks, NULL, is a disagreement, never a pass).
    IF (jsonb_typeof(req) = 'object' AND jsonb_typeof(req->'amount') = 'number' AND (req->>'amount')::numeric = NEW.amount
        AND NEW.currency = 'XAF' AND NOT req ? 'currency'
        AND req->>'phone_number' = NEW.phone_number AND req->>'external_id' = NEW.external_id AND req->>'payment_method' = NEW.payment_method
        AND req->'customer'->>'first_name' = NEW.customer_first_name AND req->'customer'->>'last_name' = NEW.customer_last_name
        AND req->'customer'->>'email' = NEW.customer_email) IS NOT TRUE THEN
      RAISE EXCEPTION 'entry %: a pending entry''s amount, currency (%), recipient and external id are its request''s', NEW.id, 'XAF'
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_pending_is_request BEFORE INSERT ON entries FOR EACH ROW WHEN (NEW.state = 'pending')
    EXECUTE FUNCTION paydesk_pending_entry_is_its_request();
  CREATE TRIGGER entries_pending_is_request_again BEFORE UPDATE ON entries FOR EACH ROW
    WHEN (NEW.state = 'pending' AND (OLD.state <> 'pending'
      OR (NEW.request, NEW.amount, NEW.currency, NEW.phone_number, NEW.external_id, NEW.payment_method, NEW.customer_first_name, NEW.customer_last_name, NEW.customer_email)
        IS DISTINCT FROM (OLD.request, OLD.amount, OLD.currency, OLD.phone_number, OLD.external_id, OLD.payment_method, OLD.customer_first_name, OLD.customer_last_name, OLD.customer_email)))
    EXECUTE FUNCTION paydesk_pending_entry_is_its_request();

  CREATE FUNCTION paydesk_timeline_append_only() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    RAISE EXCEPTION 'the timeline is append-only: % refused (%)', TG_OP, session_user USING ERRCODE = 'insufficient_privilege';
  END $$;
  CREATE TRIGGER timeline_append_only BEFORE UPDATE OR DELETE ON timeline FOR EACH ROW EXECUTE FUNCTION paydesk_timeline_append_only();
  CREATE TRIGGER timeline_no_truncate BEFORE TRUNCATE ON timeline FOR EACH STATEMENT EXECUTE FUNCTION paydesk_timeline_append_only();
  REVOKE UPDATE ON timeline FROM paydesk_finance;

  CREATE FUNCTION paydesk_void_batch_approval_on_move() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    voided approval_requests;
  BEGIN
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'the batch''s profile or environment changed after it was asked'
      WHERE batch_id = NEW.id AND state IN ('awaiting', 'approved') RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id,
        jsonb_build_object('digest', voided.digest, 'profileId', OLD.profile_id, 'environment', OLD.environment),
        jsonb_build_object('profileId', NEW.profile_id, 'environment', NEW.environment), voided.remark);
    END LOOP;
    RETURN NULL;
  END $$;
  CREATE TRIGGER batches_moved_void_approval AFTER UPDATE OF profile_id, environment ON batches FOR EACH ROW
    WHEN ((NEW.profile_id, NEW.environment) IS DISTINCT FROM (OLD.profile_id, OLD.environment))
    EXECUTE FUNCTION paydesk_void_batch_approval_on_move();

  CREATE FUNCTION paydesk_claim_is_writers() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    held record;
  BEGIN
    SELECT br.claim_holder, br.claimed_by, br.lease_until > paydesk_now_ms() AS live INTO held
      FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row;
    IF NOT FOUND OR held.claim_holder IS NULL OR held.claimed_by IS DISTINCT FROM session_user OR held.live IS NOT TRUE THEN
      RAISE EXCEPTION 'batch % row %: its entry is written only under a live claim of that row held by the login writing it (%)', NEW.batch_id, NEW.batch_row, session_user
        USING ERRCODE = 'insufficient_privilege',
          DETAIL = CASE WHEN held.claim_holder IS NULL THEN 'the row is not claimed' WHEN held.live IS NOT TRUE THEN 'its claim has run out' ELSE 'held by ' || held.claimed_by END;
    END IF;
    RETURN NEW;
  END $$;
  -- Named to run after the entry's gate and migration 47's moved row (a trigger's name orders it): what they refuse is refused with their words.
  CREATE TRIGGER entries_row_under_writers_claim BEFORE INSERT ON entries FOR EACH ROW
    WHEN (NEW.batch_id IS NOT NULL AND NEW.state = 'pending') EXECUTE FUNCTION paydesk_claim_is_writers();
  CREATE TRIGGER entries_row_under_writers_claim_again BEFORE UPDATE ON entries FOR EACH ROW
    WHEN (NEW.batch_id IS NOT NULL AND NEW.state = 'pending' AND (OLD.state <> 'pending'
      OR (NEW.request, NEW.amount, NEW.currency, NEW.phone_number, NEW.external_id, NEW.environment, NEW.batch_id, NEW.batch_row)
        IS DISTINCT FROM (OLD.request, OLD.amount, OLD.currency, OLD.phone_number, OLD.external_id, OLD.environment, OLD.batch_id, OLD.batch_row)))
    EXECUTE FUNCTION paydesk_claim_is_writers();

  CREATE FUNCTION paydesk_claim_only_while_sending() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    batch_state text := (SELECT state FROM batches WHERE seq = NEW.batch_seq);
  BEGIN
    IF batch_state IS DISTINCT FROM 'sending' THEN
      RAISE EXCEPTION 'batch row %: rows are claimed only while their batch is being sent (it is %)', NEW.row_number, batch_state
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END $$;
  -- Runs after batch_rows_claim (names in order) has stamped the login: a claim taken is a new
  -- holder or a new login; a renewal (the lease only) and a release are not.
  CREATE TRIGGER batch_rows_claim_while_sending BEFORE INSERT ON batch_rows FOR EACH ROW
    WHEN (NEW.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_claim_only_while_sending();
  CREATE TRIGGER batch_rows_claim_while_sending_again BEFORE UPDATE ON batch_rows FOR EACH ROW
    WHEN (NEW.claim_holder IS NOT NULL AND (NEW.claim_holder, NEW.claimed_by) IS DISTINCT FROM (OLD.claim_holder, OLD.claimed_by))
    EXECUTE FUNCTION paydesk_claim_only_while_sending();

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
