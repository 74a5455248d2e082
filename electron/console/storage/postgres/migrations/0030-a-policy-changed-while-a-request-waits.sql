-- Migration 30: a policy changed while a request waits: the waiting request binds, a raised one reopens what is unsent; what was sent is not withdrawn
--
-- Workspace migration 30: a policy changed while a request waits ends in one clear state
-- (issue 25 item 7; docs/decisions/approval-races.md).
--
-- - **A request still waiting binds the send**, whatever the policy says now: a policy lowered
--   (or a tier deleted) never lets a waiting batch or payout go without its approvals. The maker
--   who wants the new rules withdraws the request first (audited), then sends.
-- - **A policy raised applies to what has not been sent yet**: a waiting request is raised (as
--   in 21), and an approved one whose money has not left (a payout with no entry; a batch with a
--   valid row not yet sent, neither cancelled nor done) goes back to awaiting with what the policy
--   asks now; the approvals it had still count. The change is audited on the request.
--
-- - **An approved request whose money has left is not withdrawn** (PD014): it would say nothing
--   left. A batch halfway sent may be: its remaining rows are then refused.
-- - **A send and a policy raised at the same moment take turns**: the entry's gate holds the
--   approved request in share mode before it checks it, so a reopening never misses a send that
--   is still committing, and a send never passes on an approval being reopened.
--
-- The gate functions, the entry's gate and the request rules are migrations 28's and 21's with these
-- steps added; the SQLSTATEs are 28's (PD001: DETAIL names the request that waits).
--
-- What a waiting request needs, as PD001's DETAIL (the console's needOf reads it).

  CREATE OR REPLACE FUNCTION paydesk_assert_batch_send(p_batch_seq bigint, p_currency text) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
  DECLARE
    b batches;
    r approval_requests;
    w approval_requests;
    t record;
    need record;
  BEGIN
    SELECT * INTO b FROM batches WHERE seq = p_batch_seq;
    -- Asked and not yet decided: it waits, even if the policy now needs less (or nothing).
    SELECT * INTO w FROM approval_requests WHERE batch_id = b.id AND state = 'awaiting';
    IF FOUND THEN
      RAISE EXCEPTION 'batch % (total %) needs % approval(s) by % before it is sent: request % waits for them (% given), whatever the policy says now',
        b.id, w.amount, w.approvals_required, w.approver_role, w.id, w.approvals_given
        USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'batch', 'batchId', w.batch_id, 'environment', w.environment,
          'currency', w.currency, 'amount', w.amount, 'rows', w.row_count, 'approvals', w.approvals_required, 'approverRole', w.approver_role, 'requestId', w.id)::text;
    END IF;
    IF NOT EXISTS (SELECT FROM approval_tiers WHERE environment = b.environment AND approvals > 0) THEN RETURN; END IF;
    SELECT * INTO r FROM approval_requests WHERE batch_id = b.id AND state = 'approved';
    IF FOUND AND (p_currency IS NULL OR r.currency = p_currency) THEN
      IF r.digest <> paydesk_batch_digest(p_batch_seq, r.currency) THEN
        RAISE EXCEPTION 'batch % changed after it was approved: nothing is sent until it is approved again', b.id
          USING ERRCODE = 'PD002', DETAIL = json_build_object('subject', 'batch', 'batchId', b.id, 'requestId', r.id)::text;
      END IF;
      RETURN;
    END IF;
    t := paydesk_batch_total(p_batch_seq);
    need := paydesk_approval_need(b.environment, p_currency, t.total);
    IF need.approvals > 0 THEN
      RAISE EXCEPTION 'batch % (total %) needs % approval(s) by % before it is sent', b.id, t.total, need.approvals, need.approver_role
        USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'batch', 'batchId', b.id, 'environment', b.environment,
          'amount', t.total, 'rows', t.row_count, 'approvals', need.approvals, 'approverRole', need.approver_role)::text;
    END IF;
  END $$;

  CREATE OR REPLACE FUNCTION paydesk_assert_payout_send(p_environment text, p_currency text, p_phone text, p_amount bigint, p_external_id text) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
  DECLARE
    w approval_requests;
    need record := paydesk_approval_need(p_environment, p_currency, p_amount);
  BEGIN
    -- Asked and not yet decided: it waits, even if the policy now needs less (or nothing).
    SELECT * INTO w FROM approval_requests WHERE subject = 'payout' AND environment = p_environment AND external_id = p_external_id AND state = 'awaiting';
    IF FOUND THEN
      RAISE EXCEPTION 'a payout of % % (external id %) needs % approval(s) by % before it is sent: request % waits for them (% given), whatever the policy says now',
        w.amount, w.currency, p_external_id, w.approvals_required, w.approver_role, w.id, w.approvals_given
        USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'payout', 'externalId', w.external_id, 'environment', w.environment,
          'currency', w.currency, 'amount', w.amount, 'rows', w.row_count, 'approvals', w.approvals_required, 'approverRole', w.approver_role, 'requestId', w.id)::text;
    END IF;
    IF need.approvals = 0 THEN RETURN; END IF;
    IF EXISTS (SELECT FROM approval_requests WHERE subject = 'payout' AND state = 'approved' AND environment = p_environment
               AND external_id IS NOT DISTINCT FROM p_external_id
               AND digest = paydesk_payout_digest(p_environment, p_currency, p_phone, p_amount, p_external_id)) THEN
      RETURN;
    END IF;
    RAISE EXCEPTION 'a payout of % % (external id %) needs % approval(s) by % before it is sent', p_amount, p_currency, p_external_id, need.approvals, need.approver_role
      USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'payout', 'externalId', p_external_id, 'environment', p_environment,
        'currency', p_currency, 'amount', p_amount, 'rows', 1, 'approvals', need.approvals, 'approverRole', need.approver_role)::text;
  END $$;

  -- The gate reads an approved request without a lock, so a policy raised at the same moment could
  -- reopen it while a send it allowed is still uncommitted. The entry's write (a payout's, or a
  -- batch row's: the moment its POST may leave; a claim alone sends nothing) holds the approved
  -- request in share mode first: a reopening waits for the send and then sees its money gone; a send after
  -- a reopening waits for it and then sees the request awaiting. (People hold no UPDATE grant on
  -- approval_requests, which a row lock needs: hence SECURITY DEFINER.)
  CREATE FUNCTION paydesk_hold_approval(p_batch_id text, p_environment text, p_external_id text) RETURNS void
    LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT FROM approval_requests WHERE state = 'approved'
      AND CASE WHEN p_batch_id IS NOT NULL THEN batch_id = p_batch_id ELSE subject = 'payout' AND environment = p_environment AND external_id = p_external_id END
    FOR SHARE
  $$;
  REVOKE ALL ON FUNCTION paydesk_hold_approval(text, text, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_hold_approval(text, text, text) TO paydesk_finance, paydesk_support, paydesk_admin;

  CREATE OR REPLACE FUNCTION paydesk_gate_entry() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    req jsonb := coalesce(NEW.request::jsonb, '{}'::jsonb);
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = 'pending' AND NEW.request IS NOT DISTINCT FROM OLD.request THEN RETURN NEW; END IF;
    IF (req ? 'amount' AND (req->>'amount')::bigint <> NEW.amount) OR (req ? 'phone_number' AND req->>'phone_number' <> NEW.phone_number)
       OR (req->>'external_id' IS DISTINCT FROM NEW.external_id AND NEW.request IS NOT NULL) THEN
      RAISE EXCEPTION 'payout entry %: its columns and its request disagree', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
    IF NEW.batch_id IS NOT NULL THEN
      PERFORM paydesk_assert_batch_send((SELECT seq FROM batches WHERE id = NEW.batch_id), NEW.currency);
    ELSE
      PERFORM paydesk_assert_payout_send(NEW.environment, NEW.currency, NEW.phone_number, NEW.amount, NEW.external_id);
    END IF;
    RETURN NEW;
  END $$;

  -- Has the money of this request begun to leave? A payout: its entry exists (written in the
  -- transaction whose commit lets its POST go). A batch: every valid row has its entry, or the
  -- batch is over (cancelled, done); a row still unsent is money not yet sent.
  CREATE FUNCTION paydesk_request_sent(r approval_requests) RETURNS boolean LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    SELECT CASE r.subject
      WHEN 'payout' THEN EXISTS (SELECT FROM entries e WHERE e.kind = 'payout' AND e.environment = r.environment AND e.external_id = r.external_id)
      ELSE EXISTS (SELECT FROM batches b WHERE b.id = r.batch_id AND b.state IN ('cancelled', 'done'))
        OR NOT EXISTS (SELECT FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
                       WHERE b.id = r.batch_id AND br.request IS NOT NULL AND br.journal_id IS NULL)
    END
  $$;

  -- Migration 21's rules, with one more move: approved → awaiting, only when what it needs goes up
  -- (a policy raised before its money left) and only with fewer approvals counted than that.
  CREATE OR REPLACE FUNCTION paydesk_request_rules() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    reopened boolean;
  BEGIN
    IF TG_OP = 'DELETE' THEN RAISE EXCEPTION 'an approval request is never deleted' USING ERRCODE = 'insufficient_privilege'; END IF;
    IF TG_OP = 'INSERT' THEN
      NEW.requested_by := session_user;
      NEW.state := 'awaiting';
      NEW.approvals_given := 0;
      RETURN NEW;
    END IF;
    IF (NEW.subject, NEW.batch_id, NEW.environment, NEW.currency, NEW.external_id, NEW.phone_number, NEW.amount, NEW.digest, NEW.requested_by)
       IS DISTINCT FROM (OLD.subject, OLD.batch_id, OLD.environment, OLD.currency, OLD.external_id, OLD.phone_number, OLD.amount, OLD.digest, OLD.requested_by) THEN
      RAISE EXCEPTION 'what an approval request is for never changes: ask again' USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- What a request needs never goes down (a policy lowered while it waits does not apply to it).
    IF NEW.approvals_required < OLD.approvals_required THEN
      RAISE EXCEPTION 'approval request % needs % approvals: that is never lowered', OLD.id, OLD.approvals_required USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.state IS DISTINCT FROM OLD.state THEN
      reopened := OLD.state = 'approved' AND NEW.state = 'awaiting' AND NEW.approvals_required > OLD.approvals_required
        AND NOT paydesk_request_sent(OLD);
      IF NOT (OLD.state = 'awaiting' OR (OLD.state = 'approved' AND NEW.state IN ('withdrawn', 'void')) OR reopened) THEN
        RAISE EXCEPTION 'approval request % is % and cannot become %', OLD.id, OLD.state, NEW.state USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'approved' AND paydesk_approvals_counted(OLD.id) < NEW.approvals_required THEN
        RAISE EXCEPTION 'approval request % needs % approvals by %', OLD.id, NEW.approvals_required, NEW.approver_role USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'withdrawn' AND session_user <> OLD.requested_by THEN
        RAISE EXCEPTION 'only % (who asked) can withdraw approval request %', OLD.requested_by, OLD.id USING ERRCODE = 'insufficient_privilege';
      END IF;
      -- Withdrawn, it would say nothing left while its money did (a batch halfway may still be).
      IF NEW.state = 'withdrawn' AND OLD.state = 'approved' AND paydesk_request_sent(OLD) THEN
        RAISE EXCEPTION 'approval request % was already sent: it can no longer be withdrawn', OLD.id USING ERRCODE = 'PD014';
      END IF;
      IF reopened THEN
        -- Waiting again: no one has decided it now.
        NEW.decided_by := NULL;
        NEW.decided_at := NULL;
      ELSE
        NEW.decided_by := session_user;
        NEW.decided_at := clock_timestamp();
      END IF;
    END IF;
    RETURN NEW;
  END $$;

  -- A policy raised while requests wait raises them; one raised before an approved request's
  -- money left opens it again. Never the other way (the rules above).
  CREATE OR REPLACE FUNCTION paydesk_raise_waiting() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    ap approval_requests;
    asks record;
  BEGIN
    UPDATE approval_requests r SET approvals_required = n.approvals, approver_role = n.approver_role
    FROM approval_requests w CROSS JOIN LATERAL paydesk_approval_need(w.environment, w.currency, w.amount) n
    WHERE r.id = w.id AND w.state = 'awaiting' AND n.approvals > w.approvals_required;
    FOR ap IN SELECT * FROM approval_requests WHERE state = 'approved' ORDER BY id FOR UPDATE LOOP
      asks := paydesk_approval_need(ap.environment, ap.currency, ap.amount);
      CONTINUE WHEN asks.approvals <= ap.approvals_required OR paydesk_request_sent(ap);
      UPDATE approval_requests SET state = 'awaiting', approvals_required = asks.approvals, approver_role = asks.approver_role WHERE id = ap.id;
      -- Who approved still counts if they hold the role the policy now asks for.
      UPDATE approval_requests SET approvals_given = paydesk_approvals_counted(ap.id) WHERE id = ap.id;
      PERFORM paydesk_audit_write('policy_change', 'approval:' || ap.id,
        jsonb_build_object('state', ap.state, 'approvals_required', ap.approvals_required, 'approver_role', ap.approver_role),
        jsonb_build_object('state', 'awaiting', 'approvals_required', asks.approvals, 'approver_role', asks.approver_role),
        'the policy was raised before it was sent: it waits for more approvals');
    END LOOP;
    RETURN NULL;
  END $$;
