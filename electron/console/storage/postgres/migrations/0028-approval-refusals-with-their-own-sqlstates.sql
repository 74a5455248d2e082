-- Migration 28: approval refusals with their own SQLSTATEs
--
-- Workspace migration 28: the approval rules' refusals get SQLSTATEs of their own, so the console
-- tells "this needs an approval" from "your role may not do this" without reading English
-- sentences (docs/decisions/approvals-port.md). The rules are migration 21's, unchanged; the
-- functions are replaced with the same logic, the same messages, and these codes:
--
--   PD001 sending needs approval (DETAIL: JSON of what is needed)   PD002 changed after approval
--   PD010 the maker votes on their own request                      PD011 the request no longer waits
--   PD012 the voter is not of the approving role                    PD013 not what the approver saw
--
-- A custom class ("PD") is no standard SQLSTATE class, so no other error shares it.
--
-- PD014 (migration 30): an approved request whose money has left is not withdrawn.
-- The codes are APPROVAL_SQLSTATE in electron/console/storage/postgres/schema-names.ts.

  CREATE OR REPLACE FUNCTION paydesk_assert_batch_send(p_batch_seq bigint, p_currency text) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = public, pg_temp AS $$
  DECLARE
    b batches;
    r approval_requests;
    t record;
    need record;
  BEGIN
    SELECT * INTO b FROM batches WHERE seq = p_batch_seq;
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
    need record := paydesk_approval_need(p_environment, p_currency, p_amount);
  BEGIN
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

  CREATE OR REPLACE FUNCTION paydesk_vote_rules() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    r approval_requests;
  BEGIN
    IF TG_OP <> 'INSERT' THEN RAISE EXCEPTION 'a vote cannot be changed or taken back' USING ERRCODE = 'insufficient_privilege'; END IF;
    NEW.voter := session_user;
    NEW.at := clock_timestamp();
    -- Locked: two approvers at the same moment take turns, the second sees what the first did.
    SELECT * INTO r FROM approval_requests WHERE id = NEW.request_id FOR UPDATE;
    IF r.state <> 'awaiting' THEN
      RAISE EXCEPTION 'approval request % is already %: nothing more can be decided', r.id, r.state
        USING ERRCODE = 'PD011', DETAIL = json_build_object('state', r.state, 'decidedBy', r.decided_by)::text;
    END IF;
    IF NEW.voter = r.requested_by THEN
      RAISE EXCEPTION 'the person who asked (%) cannot approve or reject their own request', r.requested_by USING ERRCODE = 'PD010';
    END IF;
    IF NOT pg_has_role(NEW.voter, r.approver_role, 'MEMBER') THEN
      RAISE EXCEPTION 'approval request % is decided by %: % is not one', r.id, r.approver_role, NEW.voter
        USING ERRCODE = 'PD012', DETAIL = json_build_object('approverRole', r.approver_role)::text;
    END IF;
    RETURN NEW;
  END $$;

  CREATE OR REPLACE FUNCTION paydesk_approve(p_id bigint, p_digest text, p_remark text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    r approval_requests;
    done approval_requests;
    counted integer;
  BEGIN
    SELECT * INTO r FROM approval_requests WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no approval request %', p_id USING ERRCODE = 'no_data_found'; END IF;
    INSERT INTO approval_votes (request_id, vote, remark) VALUES (p_id, 'approve', p_remark);
    IF p_digest IS DISTINCT FROM r.digest OR r.digest IS DISTINCT FROM paydesk_current_digest(r) THEN
      RAISE EXCEPTION 'approval request % is not what you saw (it changed): look at it again', p_id USING ERRCODE = 'PD013';
    END IF;
    counted := paydesk_approvals_counted(p_id);
    UPDATE approval_requests SET approvals_given = counted, state = CASE WHEN counted >= approvals_required THEN 'approved' ELSE state END
      WHERE id = p_id RETURNING * INTO done;
    PERFORM paydesk_audit_write('approve', 'approval:' || p_id, jsonb_build_object('state', r.state, 'approvals', r.approvals_given),
      jsonb_build_object('state', done.state, 'approvals', done.approvals_given), p_remark);
    RETURN done.state;
  END $$;
