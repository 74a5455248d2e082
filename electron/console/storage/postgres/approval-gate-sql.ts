/**
 * Part of migration 21: what a desktop calls (ask, approve, reject, withdraw), and the sending
 * gate. The functions are SECURITY DEFINER (people get no write grant on the approval tables) and
 * only sequence steps; the rules are the tables' triggers (./approval-requests-sql.ts).
 *
 * The gate is triggers, not a call a client could skip: claiming batch rows (statement-level, one
 * digest per claim) and writing or re-sending a payout's entry are refused in that same
 * transaction unless the policy needs nothing or an approved request binds exactly what is sent.
 */
export const APPROVAL_GATE_SQL = `
  CREATE FUNCTION paydesk_current_digest(r approval_requests) RETURNS text LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    SELECT CASE r.subject WHEN 'batch' THEN paydesk_batch_digest((SELECT seq FROM batches WHERE id = r.batch_id), r.currency) ELSE r.digest END
  $$;

  CREATE FUNCTION paydesk_request_payout_approval(p_environment text, p_currency text, p_request jsonb, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    need record;
    amount bigint := (p_request->>'amount')::bigint;
    made approval_requests;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RAISE EXCEPTION 'only finance asks to send money' USING ERRCODE = 'insufficient_privilege'; END IF;
    need := paydesk_approval_need(p_environment, p_currency, amount);
    IF need.approvals = 0 THEN RETURN NULL; END IF;
    INSERT INTO approval_requests (subject, environment, currency, external_id, phone_number, amount, row_count, digest, approvals_required, approver_role, remark)
    VALUES ('payout', p_environment, p_currency, p_request->>'external_id', p_request->>'phone_number', amount, 1,
      paydesk_payout_digest(p_environment, p_currency, p_request->>'phone_number', amount, p_request->>'external_id'), need.approvals, need.approver_role, p_remark)
    RETURNING * INTO made;
    PERFORM paydesk_audit_write('request_approval', 'approval:' || made.id, NULL, to_jsonb(made), p_remark);
    RETURN made.id;
  END $$;

  CREATE FUNCTION paydesk_request_batch_approval(p_batch_id text, p_currency text, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    b batches;
    t record;
    need record;
    made approval_requests;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RAISE EXCEPTION 'only finance asks to send money' USING ERRCODE = 'insufficient_privilege'; END IF;
    SELECT * INTO b FROM batches WHERE id = p_batch_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no batch %', p_batch_id; END IF;
    t := paydesk_batch_total(b.seq);
    need := paydesk_approval_need(b.environment, p_currency, t.total);
    IF need.approvals = 0 THEN RETURN NULL; END IF;
    INSERT INTO approval_requests (subject, batch_id, environment, currency, amount, row_count, digest, approvals_required, approver_role, remark)
    VALUES ('batch', b.id, b.environment, p_currency, t.total, t.row_count, paydesk_batch_digest(b.seq, p_currency), need.approvals, need.approver_role, p_remark)
    RETURNING * INTO made;
    PERFORM paydesk_audit_write('request_approval', 'approval:' || made.id, NULL, to_jsonb(made), p_remark);
    RETURN made.id;
  END $$;

  -- Approves what the approver saw (its digest): returns the request's state afterwards.
  CREATE FUNCTION paydesk_approve(p_id bigint, p_digest text, p_remark text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    r approval_requests;
    done approval_requests;
    counted integer;
  BEGIN
    SELECT * INTO r FROM approval_requests WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no approval request %', p_id; END IF;
    INSERT INTO approval_votes (request_id, vote, remark) VALUES (p_id, 'approve', p_remark);
    IF p_digest IS DISTINCT FROM r.digest OR r.digest IS DISTINCT FROM paydesk_current_digest(r) THEN
      RAISE EXCEPTION 'approval request % is not what you saw (it changed): look at it again', p_id USING ERRCODE = 'check_violation';
    END IF;
    counted := paydesk_approvals_counted(p_id);
    UPDATE approval_requests SET approvals_given = counted, state = CASE WHEN counted >= approvals_required THEN 'approved' ELSE state END
      WHERE id = p_id RETURNING * INTO done;
    PERFORM paydesk_audit_write('approve', 'approval:' || p_id, jsonb_build_object('state', r.state, 'approvals', r.approvals_given),
      jsonb_build_object('state', done.state, 'approvals', done.approvals_given), p_remark);
    RETURN done.state;
  END $$;

  CREATE FUNCTION paydesk_reject(p_id bigint, p_remark text) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    r approval_requests;
  BEGIN
    IF coalesce(btrim(p_remark), '') = '' THEN RAISE EXCEPTION 'a rejection says why: the remark is empty' USING ERRCODE = 'check_violation'; END IF;
    SELECT * INTO r FROM approval_requests WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no approval request %', p_id; END IF;
    INSERT INTO approval_votes (request_id, vote, remark) VALUES (p_id, 'reject', p_remark);
    UPDATE approval_requests SET state = 'rejected', remark = p_remark WHERE id = p_id;
    PERFORM paydesk_audit_write('reject', 'approval:' || p_id, jsonb_build_object('state', r.state), jsonb_build_object('state', 'rejected'), p_remark);
    RETURN 'rejected';
  END $$;

  CREATE FUNCTION paydesk_withdraw(p_id bigint, p_remark text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    r approval_requests;
  BEGIN
    SELECT * INTO r FROM approval_requests WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no approval request %', p_id; END IF;
    UPDATE approval_requests SET state = 'withdrawn', remark = coalesce(p_remark, remark) WHERE id = p_id;
    PERFORM paydesk_audit_write('withdraw', 'approval:' || p_id, jsonb_build_object('state', r.state), jsonb_build_object('state', 'withdrawn'), p_remark);
    RETURN 'withdrawn';
  END $$;

  -- The gate for a batch: nothing covered, or an approved request whose digest is today's rows'.
  -- Without a currency (a claim) the strictest currency's tier applies.
  CREATE FUNCTION paydesk_assert_batch_send(p_batch_seq bigint, p_currency text) RETURNS void
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
        RAISE EXCEPTION 'batch % changed after it was approved: nothing is sent until it is approved again', b.id USING ERRCODE = 'insufficient_privilege';
      END IF;
      RETURN;
    END IF;
    t := paydesk_batch_total(p_batch_seq);
    need := paydesk_approval_need(b.environment, p_currency, t.total);
    IF need.approvals > 0 THEN
      RAISE EXCEPTION 'batch % (total %) needs % approval(s) by % before it is sent', b.id, t.total, need.approvals, need.approver_role USING ERRCODE = 'insufficient_privilege';
    END IF;
  END $$;

  CREATE FUNCTION paydesk_assert_payout_send(p_environment text, p_currency text, p_phone text, p_amount bigint, p_external_id text) RETURNS void
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
      USING ERRCODE = 'insufficient_privilege';
  END $$;

  CREATE FUNCTION paydesk_gate_claims() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    claimed_seq bigint;
  BEGIN
    FOR claimed_seq IN SELECT DISTINCT batch_seq FROM claimed WHERE claim_holder IS NOT NULL LOOP
      PERFORM paydesk_assert_batch_send(claimed_seq, NULL);
    END LOOP;
    RETURN NULL;
  END $$;
  CREATE TRIGGER batch_rows_claim_gate AFTER UPDATE ON batch_rows REFERENCING NEW TABLE AS claimed FOR EACH STATEMENT EXECUTE FUNCTION paydesk_gate_claims();

  -- A payout's entry is written (or moved back to pending to resend) in the transaction whose
  -- commit lets its POST leave: refused there when not approved.
  CREATE FUNCTION paydesk_gate_entry() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    req jsonb := coalesce(NEW.request::jsonb, '{}'::jsonb);
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = 'pending' AND NEW.request IS NOT DISTINCT FROM OLD.request THEN RETURN NEW; END IF;
    IF (req ? 'amount' AND (req->>'amount')::bigint <> NEW.amount) OR (req ? 'phone_number' AND req->>'phone_number' <> NEW.phone_number)
       OR (req->>'external_id' IS DISTINCT FROM NEW.external_id AND NEW.request IS NOT NULL) THEN
      RAISE EXCEPTION 'payout entry %: its columns and its request disagree', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.batch_id IS NOT NULL THEN
      PERFORM paydesk_assert_batch_send((SELECT seq FROM batches WHERE id = NEW.batch_id), NEW.currency);
    ELSE
      PERFORM paydesk_assert_payout_send(NEW.environment, NEW.currency, NEW.phone_number, NEW.amount, NEW.external_id);
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_approval_gate BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment ON entries
    FOR EACH ROW WHEN (NEW.kind = 'payout' AND NEW.state = 'pending') EXECUTE FUNCTION paydesk_gate_entry();

  REVOKE ALL ON approval_requests, approval_votes FROM PUBLIC;
  GRANT SELECT ON approval_requests, approval_votes TO paydesk_finance, paydesk_support, paydesk_admin;
  REVOKE ALL ON FUNCTION paydesk_request_payout_approval(text, text, jsonb, text), paydesk_request_batch_approval(text, text, text),
    paydesk_approve(bigint, text, text), paydesk_reject(bigint, text), paydesk_withdraw(bigint, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_request_payout_approval(text, text, jsonb, text), paydesk_request_batch_approval(text, text, text),
    paydesk_approve(bigint, text, text), paydesk_reject(bigint, text), paydesk_withdraw(bigint, text) TO paydesk_finance, paydesk_admin;
`;
