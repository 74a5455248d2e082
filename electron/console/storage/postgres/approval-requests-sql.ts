/**
 * Migration 21 (./approval-migrations.ts): approval requests, their votes, and the sending gate.
 *
 * The rules live in triggers and constraints on the tables, so they hold for every writer, the
 * SECURITY DEFINER functions a desktop calls included (those only sequence the steps):
 * - a vote is stamped with session_user; the maker's vote is refused; one vote per person;
 *   a vote on a request that no longer waits is refused (the request row is locked first, so two
 *   approvers at the same moment take turns and the second sees the first's result);
 * - a request moves only awaiting → approved | rejected | withdrawn | void, approved → withdrawn |
 *   void; approved only with enough approvals from the role; only the maker withdraws; what it
 *   needs never goes down, and a policy raised while it waits raises it;
 * - the digest (sha-256 of a canonical text of what is sent) is computed by the database; a
 *   change to a batch's rows voids its approval, and the gate compares digests again at send.
 */

/** The canonical text of one payout: a JSON array [environment, currency, phone, amount, external id]. */
const PAYOUT_TEXT = `jsonb_build_array(p_environment, p_currency, p_phone, p_amount, coalesce(p_external_id, ''))::text`;

import { APPROVAL_GATE_SQL } from './approval-gate-sql';

export const APPROVAL_REQUESTS_SQL = `
  CREATE FUNCTION paydesk_payout_digest(p_environment text, p_currency text, p_phone text, p_amount bigint, p_external_id text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$ SELECT encode(sha256(convert_to(${PAYOUT_TEXT}, 'UTF8')), 'hex') $$;
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
${APPROVAL_GATE_SQL}`;
