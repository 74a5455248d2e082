-- Migration 43: an approval binds profile, merchant account, recipient and the whole request, and is spent by its one send

  ALTER TABLE approval_requests
    ADD COLUMN kind text NOT NULL DEFAULT 'payout' CHECK (kind = 'payout'),
    ADD COLUMN profile_id text,
    ADD COLUMN account jsonb,
    ADD COLUMN request jsonb,
    ADD COLUMN spent_by_entry text,
    ADD COLUMN spent_at timestamptz;

  -- The merchant account a profile sends to, as the workspace holds it: a team profile's definition
  -- (its keys are each desktop's own), or a desktop profile's id alone.
  CREATE FUNCTION paydesk_profile_account(p_profile_id text) RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT coalesce(
      (SELECT jsonb_build_object('profileId', t.id, 'team', true, 'environment', t.environment, 'baseUrl', t.base_url, 'headerWord', t.header_word)
       FROM team_profiles t WHERE t.id = p_profile_id),
      jsonb_build_object('profileId', p_profile_id, 'team', false))
  $$;

  DROP FUNCTION paydesk_payout_digest(text, text, text, bigint, text);
  -- jsonb's text is canonical (keys ordered, spaces fixed): one request, one digest.
  CREATE FUNCTION paydesk_payout_digest(p_environment text, p_kind text, p_profile_id text, p_account jsonb, p_currency text, p_request jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT encode(sha256(convert_to(jsonb_build_array('payout/43', p_environment, p_kind, p_profile_id, p_account, p_currency,
      p_request->>'phone_number', p_request->'customer'->>'first_name', p_request->'customer'->>'last_name',
      (p_request->>'amount')::bigint, coalesce(p_request->>'external_id', ''), p_request)::text, 'UTF8')), 'hex')
  $$;

  -- [environment, kind, profile, account, currency, [[row, external id, request], …]] of every valid row in order.
  CREATE OR REPLACE FUNCTION paydesk_batch_digest(p_batch_seq bigint, p_currency text) RETURNS text
    LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT encode(sha256(convert_to(jsonb_build_array('batch/43', b.environment, 'payout', b.profile_id, paydesk_profile_account(b.profile_id), p_currency, coalesce(
      (SELECT jsonb_agg(jsonb_build_array(br.row_number, br.external_id, br.request::jsonb) ORDER BY br.row_number)
       FROM batch_rows br WHERE br.batch_seq = b.seq AND br.request IS NOT NULL), '[]'::jsonb))::text, 'UTF8')), 'hex')
    FROM batches b WHERE b.seq = p_batch_seq
  $$;

  -- What a request binds, as it is today: the approver approves this, the gate sends only this.
  CREATE OR REPLACE FUNCTION paydesk_current_digest(r approval_requests) RETURNS text LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT CASE r.subject
      WHEN 'batch' THEN paydesk_batch_digest((SELECT seq FROM batches WHERE id = r.batch_id), r.currency)
      ELSE paydesk_payout_digest(r.environment, r.kind, r.profile_id, paydesk_profile_account(r.profile_id), r.currency, r.request) END
  $$;

  -- The audit line of a request asked: its columns, with what it binds as flat values a reader
  -- scans (the whole request stays in the request row; its digest is on the line).
  CREATE FUNCTION paydesk_audited_request(r approval_requests) RETURNS jsonb LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT (to_jsonb(r) - 'request' - 'account') || jsonb_strip_nulls(jsonb_build_object(
      'recipient', nullif(btrim(coalesce(r.request->'customer'->>'first_name', '') || ' ' || coalesce(r.request->'customer'->>'last_name', '')), ''),
      'description', r.request->>'description', 'account', r.account->>'baseUrl'))
  $$;
  DROP FUNCTION paydesk_request_payout_approval(text, text, jsonb, text);
  CREATE FUNCTION paydesk_request_payout_approval(p_profile_id text, p_environment text, p_currency text, p_request jsonb, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    need record;
    amount bigint := (p_request->>'amount')::bigint;
    account jsonb := paydesk_profile_account(p_profile_id);
    made approval_requests;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RAISE EXCEPTION 'only finance asks to send money' USING ERRCODE = 'insufficient_privilege'; END IF;
    IF coalesce(btrim(p_profile_id), '') = '' THEN
      RAISE EXCEPTION 'an approval names the profile it is sent with: none given' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF coalesce(p_request->>'external_id', '') = '' THEN
      RAISE EXCEPTION 'an approval binds the payout''s external id: the request has none' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF (account->>'team')::boolean AND account->>'environment' <> p_environment THEN
      RAISE EXCEPTION 'team profile % sends in %, not %', p_profile_id, account->>'environment', p_environment USING ERRCODE = 'invalid_parameter_value';
    END IF;
    need := paydesk_approval_need(p_environment, p_currency, amount);
    IF need.approvals = 0 THEN RETURN NULL; END IF;
    INSERT INTO approval_requests (subject, environment, currency, external_id, phone_number, amount, row_count, digest, approvals_required, approver_role, remark,
      kind, profile_id, account, request)
    VALUES ('payout', p_environment, p_currency, p_request->>'external_id', p_request->>'phone_number', amount, 1,
      paydesk_payout_digest(p_environment, 'payout', p_profile_id, account, p_currency, p_request), need.approvals, need.approver_role, p_remark,
      'payout', p_profile_id, account, p_request)
    RETURNING * INTO made;
    PERFORM paydesk_audit_write('request_approval', 'approval:' || made.id, NULL, paydesk_audited_request(made), p_remark);
    RETURN made.id;
  END $$;
  REVOKE ALL ON FUNCTION paydesk_request_payout_approval(text, text, text, jsonb, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_request_payout_approval(text, text, text, jsonb, text) TO paydesk_finance, paydesk_admin;

  CREATE OR REPLACE FUNCTION paydesk_request_batch_approval(p_batch_id text, p_currency text, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    b batches;
    t record;
    need record;
    made approval_requests;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RAISE EXCEPTION 'only finance asks to send money' USING ERRCODE = 'insufficient_privilege'; END IF;
    SELECT * INTO b FROM batches WHERE id = p_batch_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no batch %', p_batch_id USING ERRCODE = 'no_data_found'; END IF;
    t := paydesk_batch_total(b.seq);
    need := paydesk_approval_need(b.environment, p_currency, t.total);
    IF need.approvals = 0 THEN RETURN NULL; END IF;
    INSERT INTO approval_requests (subject, batch_id, environment, currency, amount, row_count, digest, approvals_required, approver_role, remark, kind, profile_id, account)
    VALUES ('batch', b.id, b.environment, p_currency, t.total, t.row_count, paydesk_batch_digest(b.seq, p_currency), need.approvals, need.approver_role, p_remark,
      'payout', b.profile_id, paydesk_profile_account(b.profile_id))
    RETURNING * INTO made;
    PERFORM paydesk_audit_write('request_approval', 'approval:' || made.id, NULL, paydesk_audited_request(made), p_remark);
    RETURN made.id;
  END $$;

  DROP FUNCTION paydesk_assert_payout_send(text, text, text, bigint, text);
  -- The gate of one payout's entry (p_entry_id: the entry being written; NULL when the console asks
  -- before writing a new one). Nothing covered, or the approved request of this external id binds
  -- exactly this (profile, account, request) and is spent by no other entry.
  CREATE FUNCTION paydesk_assert_payout_send(p_environment text, p_profile_id text, p_currency text, p_amount bigint, p_request jsonb, p_entry_id text) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    w approval_requests;
    r approval_requests;
    v_external_id text := p_request->>'external_id';
    need record := paydesk_approval_need(p_environment, p_currency, p_amount);
  BEGIN
    -- Asked and not yet decided: it waits, even if the policy now needs less (or nothing).
    SELECT * INTO w FROM approval_requests a WHERE a.subject = 'payout' AND a.environment = p_environment AND a.external_id = v_external_id AND a.state = 'awaiting';
    IF FOUND THEN
      RAISE EXCEPTION 'a payout of % % (external id %) needs % approval(s) by % before it is sent: request % waits for them (% given), whatever the policy says now',
        w.amount, w.currency, v_external_id, w.approvals_required, w.approver_role, w.id, w.approvals_given
        USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'payout', 'externalId', w.external_id, 'environment', w.environment,
          'currency', w.currency, 'amount', w.amount, 'rows', w.row_count, 'approvals', w.approvals_required, 'approverRole', w.approver_role, 'requestId', w.id)::text;
    END IF;
    IF need.approvals = 0 THEN RETURN; END IF;
    SELECT * INTO r FROM approval_requests a WHERE a.subject = 'payout' AND a.state = 'approved' AND a.environment = p_environment AND a.external_id = v_external_id;
    IF FOUND THEN
      IF r.digest IS DISTINCT FROM paydesk_payout_digest(p_environment, 'payout', p_profile_id, paydesk_profile_account(p_profile_id), p_currency, p_request) THEN
        RAISE EXCEPTION 'a payout of % % (external id %) needs % approval(s) by % before it is sent: request % approved another payout (its profile, merchant account, recipient or request differ)',
          p_amount, p_currency, v_external_id, need.approvals, need.approver_role, r.id
          USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'payout', 'externalId', v_external_id, 'environment', p_environment,
            'currency', p_currency, 'amount', p_amount, 'rows', 1, 'approvals', need.approvals, 'approverRole', need.approver_role, 'boundTo', r.id)::text;
      END IF;
      IF r.spent_by_entry IS NOT NULL AND r.spent_by_entry IS DISTINCT FROM p_entry_id THEN
        RAISE EXCEPTION 'approval request % was spent by entry %: one approval pays one payout once; ask again', r.id, r.spent_by_entry
          USING ERRCODE = 'PD020', DETAIL = json_build_object('requestId', r.id, 'spentByEntry', r.spent_by_entry)::text;
      END IF;
      RETURN;
    END IF;
    RAISE EXCEPTION 'a payout of % % (external id %) needs % approval(s) by % before it is sent', p_amount, p_currency, v_external_id, need.approvals, need.approver_role
      USING ERRCODE = 'PD001', DETAIL = json_build_object('subject', 'payout', 'externalId', v_external_id, 'environment', p_environment,
        'currency', p_currency, 'amount', p_amount, 'rows', 1, 'approvals', need.approvals, 'approverRole', need.approver_role)::text;
  END $$;

  -- A payout's approved request is held FOR UPDATE (one entry spends it: two sends of it take turns,
  -- the second sees it spent); a batch's in share mode (its rows go in parallel).
  CREATE OR REPLACE FUNCTION paydesk_hold_approval(p_batch_id text, p_environment text, p_external_id text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF p_batch_id IS NOT NULL THEN
      PERFORM FROM approval_requests WHERE state = 'approved' AND batch_id = p_batch_id FOR SHARE;
    ELSE
      PERFORM FROM approval_requests WHERE state = 'approved' AND subject = 'payout' AND environment = p_environment AND external_id = p_external_id FOR UPDATE;
    END IF;
  END $$;

  -- Migration 41's entry gate; a batch's entry names its batch's profile; a payout's gate is given
  -- the entry's profile, request and id.
  CREATE OR REPLACE FUNCTION paydesk_gate_entry() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    req jsonb := coalesce(NEW.request::jsonb, '{}'::jsonb);
    bound record;
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = 'pending'
       AND (NEW.request, NEW.amount, NEW.currency, NEW.phone_number, NEW.external_id, NEW.environment, NEW.batch_id, NEW.batch_row, NEW.profile_id)
         IS NOT DISTINCT FROM (OLD.request, OLD.amount, OLD.currency, OLD.phone_number, OLD.external_id, OLD.environment, OLD.batch_id, OLD.batch_row, OLD.profile_id) THEN
      RETURN NEW;
    END IF;
    IF (req ? 'amount' AND (req->>'amount')::bigint <> NEW.amount) OR (req ? 'phone_number' AND req->>'phone_number' <> NEW.phone_number)
       OR (req->>'external_id' IS DISTINCT FROM NEW.external_id AND NEW.request IS NOT NULL) THEN
      RAISE EXCEPTION 'payout entry %: its columns and its request disagree', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.batch_id IS NOT NULL THEN
      SELECT b.seq, b.environment, b.profile_id, br.request, br.external_id, br.journal_id, br.claim_holder, br.claimed_by, br.lease_until INTO bound
        FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row;
      IF NOT FOUND OR bound.environment <> NEW.environment OR bound.request IS NULL OR NEW.request IS NULL OR bound.request::jsonb <> req
         OR bound.external_id IS DISTINCT FROM NEW.external_id THEN
        RAISE EXCEPTION 'payout entry % is not the entry of row % of batch %: a batch''s entry is one of its rows, as the row says', NEW.id, NEW.batch_row, NEW.batch_id
          USING ERRCODE = 'check_violation';
      END IF;
      IF bound.profile_id IS DISTINCT FROM NEW.profile_id THEN
        RAISE EXCEPTION 'payout entry % names profile %, batch % sends with %: a batch''s entry is sent with its batch''s profile', NEW.id, NEW.profile_id, NEW.batch_id, bound.profile_id
          USING ERRCODE = 'check_violation';
      END IF;
      IF bound.journal_id IS DISTINCT FROM NEW.id AND bound.journal_id IS NOT NULL THEN
        RAISE EXCEPTION 'batch % row % already has its journal entry or is held by another desktop: it is not sent again', NEW.batch_id, NEW.batch_row
          USING ERRCODE = 'check_violation', DETAIL = 'its entry is ' || bound.journal_id;
      END IF;
      IF bound.claim_holder IS NOT NULL AND bound.claimed_by IS DISTINCT FROM session_user AND bound.lease_until > paydesk_now_ms() THEN
        RAISE EXCEPTION 'batch % row % already has its journal entry or is held by another desktop: it is not sent again', NEW.batch_id, NEW.batch_row
          USING ERRCODE = 'insufficient_privilege', DETAIL = 'held by ' || coalesce(bound.claimed_by, 'another login') || '''s live claim';
      END IF;
      IF NOT EXISTS (SELECT FROM approval_requests WHERE batch_id = NEW.batch_id AND state IN ('awaiting', 'approved'))
         AND NOT EXISTS (SELECT FROM approval_tiers t WHERE t.environment = bound.environment AND t.approvals > 0) THEN
        RETURN NEW;
      END IF;
      PERFORM paydesk_hold_approval(NEW.batch_id, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_batch_send(bound.seq, NEW.currency);
    ELSE
      PERFORM paydesk_hold_approval(NULL, NEW.environment, NEW.external_id);
      PERFORM paydesk_assert_payout_send(NEW.environment, NEW.profile_id, NEW.currency, NEW.amount, req, NEW.id);
    END IF;
    RETURN NEW;
  END $$;
  DROP TRIGGER entries_approval_gate ON entries;
  CREATE TRIGGER entries_approval_gate BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment, batch_id, batch_row, profile_id ON entries
    FOR EACH ROW WHEN (NEW.kind = 'payout' AND NEW.state = 'pending') EXECUTE FUNCTION paydesk_gate_entry();

  -- The entry an approved payout request covers spends it, once. A trigger function: no one calls
  -- it but the entry's write, after the gate let that write through.
  CREATE FUNCTION paydesk_spend_payout_approval() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    UPDATE approval_requests a SET spent_by_entry = NEW.id, spent_at = clock_timestamp()
    WHERE a.subject = 'payout' AND a.state = 'approved' AND a.environment = NEW.environment AND a.external_id = NEW.external_id AND a.spent_by_entry IS NULL
      AND a.digest = paydesk_payout_digest(NEW.environment, NEW.kind, NEW.profile_id, paydesk_profile_account(NEW.profile_id), NEW.currency, NEW.request::jsonb);
    RETURN NULL;
  END $$;
  CREATE TRIGGER entries_spend_approval AFTER INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment, profile_id ON entries
    FOR EACH ROW WHEN (NEW.kind = 'payout' AND NEW.state = 'pending' AND NEW.batch_id IS NULL) EXECUTE FUNCTION paydesk_spend_payout_approval();

  CREATE OR REPLACE FUNCTION paydesk_assert_batch_send(p_batch_seq bigint, p_currency text) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    b batches;
    r approval_requests;
    w approval_requests;
    t record;
    need record;
  BEGIN
    SELECT * INTO b FROM batches WHERE seq = p_batch_seq;
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
      -- The digest covers the batch's profile, its account and environment, and every row's request.
      IF r.digest <> paydesk_batch_digest(p_batch_seq, r.currency) THEN
        RAISE EXCEPTION 'batch % changed after it was approved (its rows, profile, account or environment): nothing is sent until it is approved again', b.id
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

  -- A batch moved to another profile or environment is not what was approved.
  CREATE FUNCTION paydesk_void_moved_batch_approval() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    voided approval_requests;
  BEGIN
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'the batch''s profile or environment changed after it was asked'
      WHERE batch_id = NEW.id AND state IN ('awaiting', 'approved') RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id, jsonb_build_object('digest', voided.digest, 'profile', OLD.profile_id, 'environment', OLD.environment),
        jsonb_build_object('profile', NEW.profile_id, 'environment', NEW.environment), voided.remark);
    END LOOP;
    RETURN NULL;
  END $$;
  CREATE TRIGGER batches_void_moved_approval AFTER UPDATE OF profile_id, environment ON batches FOR EACH ROW
    WHEN ((OLD.profile_id, OLD.environment) IS DISTINCT FROM (NEW.profile_id, NEW.environment)) EXECUTE FUNCTION paydesk_void_moved_batch_approval();

  -- Has the money of this request begun to leave? A payout: spent, or an entry holds its external id.
  CREATE OR REPLACE FUNCTION paydesk_request_sent(r approval_requests) RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT CASE r.subject
      WHEN 'payout' THEN r.spent_by_entry IS NOT NULL
        OR EXISTS (SELECT FROM entries e WHERE e.kind = 'payout' AND e.environment = r.environment AND e.external_id = r.external_id)
      ELSE EXISTS (SELECT FROM batches b WHERE b.id = r.batch_id AND b.state IN ('cancelled', 'done'))
        OR NOT EXISTS (SELECT FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
                       WHERE b.id = r.batch_id AND br.request IS NOT NULL AND br.journal_id IS NULL)
    END
  $$;

  -- Migration 30's rules; what a request binds (profile, account, request) never changes either,
  -- and it is spent once, by one entry, while approved.
  CREATE OR REPLACE FUNCTION paydesk_request_rules() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    reopened boolean;
  BEGIN
    IF TG_OP = 'DELETE' THEN RAISE EXCEPTION 'an approval request is never deleted' USING ERRCODE = 'insufficient_privilege'; END IF;
    IF TG_OP = 'INSERT' THEN
      NEW.requested_by := session_user;
      NEW.state := 'awaiting';
      NEW.approvals_given := 0;
      NEW.spent_by_entry := NULL;
      NEW.spent_at := NULL;
      RETURN NEW;
    END IF;
    IF (NEW.subject, NEW.batch_id, NEW.environment, NEW.currency, NEW.external_id, NEW.phone_number, NEW.amount, NEW.digest, NEW.requested_by,
        NEW.kind, NEW.profile_id, NEW.account, NEW.request)
       IS DISTINCT FROM (OLD.subject, OLD.batch_id, OLD.environment, OLD.currency, OLD.external_id, OLD.phone_number, OLD.amount, OLD.digest, OLD.requested_by,
        OLD.kind, OLD.profile_id, OLD.account, OLD.request) THEN
      RAISE EXCEPTION 'what an approval request is for never changes: ask again' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF (NEW.spent_by_entry, NEW.spent_at) IS DISTINCT FROM (OLD.spent_by_entry, OLD.spent_at)
       AND (OLD.spent_by_entry IS NOT NULL OR OLD.state <> 'approved' OR NEW.spent_by_entry IS NULL) THEN
      RAISE EXCEPTION 'approval request % is spent once, by the entry it approved, and stays spent', OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
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
      IF NEW.state = 'withdrawn' AND OLD.state = 'approved' AND paydesk_request_sent(OLD) THEN
        RAISE EXCEPTION 'approval request % was already sent: it can no longer be withdrawn', OLD.id USING ERRCODE = 'PD014';
      END IF;
      IF reopened THEN
        NEW.decided_by := NULL;
        NEW.decided_at := NULL;
      ELSE
        NEW.decided_by := session_user;
        NEW.decided_at := clock_timestamp();
      END IF;
    END IF;
    RETURN NEW;
  END $$;

  -- Asked before this migration, a request binds less than an approval now does: ask again.
  DO $void$
  DECLARE
    voided approval_requests;
  BEGIN
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'asked before approvals bound the profile, the account and the whole request: ask again'
      WHERE state IN ('awaiting', 'approved') AND NOT paydesk_request_sent(approval_requests) RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id, jsonb_build_object('digest', voided.digest), NULL, voided.remark);
    END LOOP;
  END $void$;

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
