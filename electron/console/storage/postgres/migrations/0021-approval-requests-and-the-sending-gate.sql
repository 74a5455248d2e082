-- Migration 21: approval requests and the sending gate
--
-- Approval requests, their votes, and the sending gate (migration 20 holds the audit log and the policy).
--
-- The rules live in triggers and constraints on the tables, so they hold for every writer, the
-- SECURITY DEFINER functions a desktop calls included (those only sequence the steps):
-- - a vote is stamped with session_user; the maker's vote is refused; one vote per person;
--   a vote on a request that no longer waits is refused (the request row is locked first, so two
--   approvers at the same moment take turns and the second sees the first's result);
-- - a request moves only awaiting → approved | rejected | withdrawn | void, approved → withdrawn |
--   void; approved only with enough approvals from the role; only the maker withdraws; what it
--   needs never goes down, and a policy raised while it waits raises it;
-- - the digest (sha-256 of a canonical text of what is sent) is computed by the database; a
--   change to a batch's rows voids its approval, and the gate compares digests again at send.
--
-- The canonical text of one payout: a JSON array [environment, currency, phone, amount, external id].
--
-- Part of migration 21: what a desktop calls (ask, approve, reject, withdraw), and the sending
-- gate. The functions are SECURITY DEFINER (people get no write grant on the approval tables) and
-- only sequence steps; the rules are the tables' triggers (above).
--
-- The gate is triggers, not a call a client could skip: claiming batch rows (statement-level, one
-- digest per claim) and writing or re-sending a payout's entry are refused in that same
-- transaction unless the policy needs nothing or an approved request binds exactly what is sent.

  CREATE FUNCTION paydesk_payout_digest(p_environment text, p_currency text, p_phone text, p_amount bigint, p_external_id text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$ SELECT encode(sha256(convert_to(jsonb_build_array(p_environment, p_currency, p_phone, p_amount, coalesce(p_external_id, ''))::text, 'UTF8')), 'hex') $$;
  -- Every valid row in order: [environment, currency, [[phone, amount, external id], …]].
  CREATE FUNCTION paydesk_batch_digest(p_batch_seq bigint, p_currency text) RETURNS text
    LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    SELECT encode(sha256(convert_to(jsonb_build_array(b.environment, p_currency, coalesce(
      (SELECT jsonb_agg(jsonb_build_array(br.request::jsonb->>'phone_number', (br.request::jsonb->>'amount')::bigint, br.external_id) ORDER BY br.row_number)
       FROM batch_rows br WHERE br.batch_seq = b.seq AND br.request IS NOT NULL), '[]'::jsonb))::text, 'UTF8')), 'hex')
    FROM batches b WHERE b.seq = p_batch_seq
  $$;
  CREATE FUNCTION paydesk_batch_total(p_batch_seq bigint, OUT total bigint, OUT row_count integer) LANGUAGE sql STABLE AS $$
    SELECT coalesce(sum((request::jsonb->>'amount')::bigint), 0)::bigint, count(*)::int FROM batch_rows WHERE batch_seq = p_batch_seq AND request IS NOT NULL
  $$;

  CREATE TABLE approval_requests (
    id bigserial PRIMARY KEY,
    subject text NOT NULL CHECK (subject IN ('payout', 'batch')),
    batch_id text REFERENCES batches (id),
    environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
    currency text NOT NULL,
    external_id text,
    phone_number text,
    amount bigint NOT NULL CHECK (amount >= 0),
    row_count integer NOT NULL,
    digest text NOT NULL,
    approvals_required smallint NOT NULL CHECK (approvals_required BETWEEN 1 AND 2),
    approver_role text NOT NULL,
    approvals_given smallint NOT NULL DEFAULT 0,
    state text NOT NULL DEFAULT 'awaiting' CHECK (state IN ('awaiting', 'approved', 'rejected', 'withdrawn', 'void')),
    requested_by text NOT NULL DEFAULT session_user,
    requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    decided_by text,
    decided_at timestamptz,
    remark text,
    CHECK ((subject = 'batch') = (batch_id IS NOT NULL))
  );
  -- One open request per batch and per payout (environment and external id).
  CREATE UNIQUE INDEX approval_requests_open_batch ON approval_requests (batch_id) WHERE state IN ('awaiting', 'approved');
  CREATE UNIQUE INDEX approval_requests_open_payout ON approval_requests (environment, external_id) WHERE subject = 'payout' AND state IN ('awaiting', 'approved');
  CREATE INDEX approval_requests_waiting ON approval_requests (state, approver_role) WHERE state = 'awaiting';

  CREATE TABLE approval_votes (
    request_id bigint NOT NULL REFERENCES approval_requests (id),
    voter text NOT NULL DEFAULT session_user,
    vote text NOT NULL CHECK (vote IN ('approve', 'reject')),
    remark text,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- One person counts once.
    PRIMARY KEY (request_id, voter)
  );

  CREATE FUNCTION paydesk_vote_rules() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    r approval_requests;
  BEGIN
    IF TG_OP <> 'INSERT' THEN RAISE EXCEPTION 'a vote cannot be changed or taken back' USING ERRCODE = 'insufficient_privilege'; END IF;
    NEW.voter := session_user;
    NEW.at := clock_timestamp();
    -- Locked: two approvers at the same moment take turns, the second sees what the first did.
    SELECT * INTO r FROM approval_requests WHERE id = NEW.request_id FOR UPDATE;
    IF r.state <> 'awaiting' THEN
      RAISE EXCEPTION 'approval request % is already %: nothing more can be decided', r.id, r.state USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.voter = r.requested_by THEN
      RAISE EXCEPTION 'the person who asked (%) cannot approve or reject their own request', r.requested_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT pg_has_role(NEW.voter, r.approver_role, 'MEMBER') THEN
      RAISE EXCEPTION 'approval request % is decided by %: % is not one', r.id, r.approver_role, NEW.voter USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER approval_votes_rules BEFORE INSERT OR UPDATE OR DELETE ON approval_votes FOR EACH ROW EXECUTE FUNCTION paydesk_vote_rules();

  -- Approvals that count: distinct people of the request's role.
  CREATE FUNCTION paydesk_approvals_counted(p_id bigint) RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT count(*)::int FROM approval_votes v JOIN approval_requests r ON r.id = v.request_id
    WHERE v.request_id = p_id AND v.vote = 'approve' AND v.voter <> r.requested_by AND pg_has_role(v.voter, r.approver_role, 'MEMBER')
  $$;

  CREATE FUNCTION paydesk_request_rules() RETURNS trigger LANGUAGE plpgsql AS $$
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
      IF NOT (OLD.state = 'awaiting' OR (OLD.state = 'approved' AND NEW.state IN ('withdrawn', 'void'))) THEN
        RAISE EXCEPTION 'approval request % is % and cannot become %', OLD.id, OLD.state, NEW.state USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'approved' AND paydesk_approvals_counted(OLD.id) < NEW.approvals_required THEN
        RAISE EXCEPTION 'approval request % needs % approvals by %', OLD.id, NEW.approvals_required, NEW.approver_role USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'withdrawn' AND session_user <> OLD.requested_by THEN
        RAISE EXCEPTION 'only % (who asked) can withdraw approval request %', OLD.requested_by, OLD.id USING ERRCODE = 'insufficient_privilege';
      END IF;
      NEW.decided_by := session_user;
      NEW.decided_at := clock_timestamp();
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER approval_requests_rules BEFORE INSERT OR UPDATE OR DELETE ON approval_requests FOR EACH ROW EXECUTE FUNCTION paydesk_request_rules();
  CREATE TRIGGER approval_requests_changed AFTER INSERT OR UPDATE ON approval_requests FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();

  -- A policy raised while requests wait raises them (never the other way: the rule above).
  CREATE FUNCTION paydesk_raise_waiting() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    UPDATE approval_requests r SET approvals_required = n.approvals, approver_role = n.approver_role
    FROM approval_requests w CROSS JOIN LATERAL paydesk_approval_need(w.environment, w.currency, w.amount) n
    WHERE r.id = w.id AND w.state = 'awaiting' AND n.approvals > w.approvals_required;
    RETURN NULL;
  END $$;
  CREATE TRIGGER approval_tiers_raise_waiting AFTER INSERT OR UPDATE OR DELETE ON approval_tiers FOR EACH STATEMENT EXECUTE FUNCTION paydesk_raise_waiting();

  -- Any change to a batch's rows voids its open approval: it was for what was seen.
  CREATE FUNCTION paydesk_void_batch_approval() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    changed_seq bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.batch_seq ELSE NEW.batch_seq END;
    voided approval_requests;
  BEGIN
    -- Importing a file inserts many rows before anyone asks: nothing open, nothing to void.
    IF NOT EXISTS (SELECT FROM approval_requests WHERE subject = 'batch' AND state IN ('awaiting', 'approved')) THEN RETURN NULL; END IF;
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'the batch''s rows changed after it was asked'
      WHERE batch_id = (SELECT id FROM batches WHERE seq = changed_seq) AND state IN ('awaiting', 'approved') RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id, jsonb_build_object('digest', voided.digest), NULL, voided.remark);
    END LOOP;
    RETURN NULL;
  END $$;
  CREATE TRIGGER batch_rows_void_approval AFTER UPDATE OF request, external_id ON batch_rows FOR EACH ROW
    WHEN (OLD.request IS DISTINCT FROM NEW.request OR OLD.external_id IS DISTINCT FROM NEW.external_id) EXECUTE FUNCTION paydesk_void_batch_approval();
  CREATE TRIGGER batch_rows_void_approval_added AFTER INSERT OR DELETE ON batch_rows FOR EACH ROW EXECUTE FUNCTION paydesk_void_batch_approval();

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
