-- Migration 48: the team sender: a sender role, profiles whose keys it holds (only it sends them), the asks of desktops
--
-- The team sender (issue 38 items 1 and 2; docs/team-sender.md, docs/decisions/team-sender-holds-the-keys.md):
-- a paydesk_sender role (a member of finance, never an approver); team_profiles.keys_held_by (admin, audited);
-- for a sender-held profile only a sender login writes a pending entry or claims a batch row (PD048);
-- the desktops' asks (send_asks), taken with SKIP LOCKED and a lease, answered by a sender, audited.
-- New trigger functions only: paydesk_gate_entry and paydesk_gate_claims are left as they are. The audit
-- log's allowed actions are extended from what its constraint holds now (another branch's survive).

  DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'paydesk_sender') THEN CREATE ROLE paydesk_sender NOLOGIN; END IF;
  END $$;
  GRANT paydesk_finance TO paydesk_sender;

  -- The audit log's actions: what the constraint allows now, and the sender's.
  DO $$
  DECLARE
    allowed text[];
  BEGIN
    SELECT array_agg(m[1]) INTO allowed
      FROM pg_catalog.regexp_matches(pg_catalog.pg_get_constraintdef((SELECT oid FROM pg_catalog.pg_constraint WHERE conname = 'audit_log_action_check')), '''([a-z_]+)''', 'g') AS m;
    allowed := allowed || ARRAY['keys_holder_change', 'send_ask', 'send_ask_answered', 'sender_start', 'sender_stop'];
    ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
    -- Written as ARRAY['a', …] (each action quoted), the form the next migration reads back.
    EXECUTE pg_catalog.format('ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action = ANY (ARRAY[%s]))',
      (SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a), ', ' ORDER BY a) FROM pg_catalog.unnest(allowed) a));
  END $$;

  ALTER TABLE team_profiles ADD COLUMN keys_held_by text NOT NULL DEFAULT 'desktops' CHECK (keys_held_by IN ('desktops', 'sender'));

  CREATE FUNCTION paydesk_audit_keys_holder() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_audit_write('keys_holder_change', 'team_profile:' || NEW.id,
      jsonb_build_object('keysHeldBy', CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.keys_held_by END), jsonb_build_object('keysHeldBy', NEW.keys_held_by), NULL);
    RETURN NULL;
  END $$;
  CREATE TRIGGER team_profiles_keys_holder_audited AFTER UPDATE OF keys_held_by ON team_profiles
    FOR EACH ROW WHEN (OLD.keys_held_by IS DISTINCT FROM NEW.keys_held_by) EXECUTE FUNCTION paydesk_audit_keys_holder();
  CREATE TRIGGER team_profiles_keys_holder_audited_new AFTER INSERT ON team_profiles
    FOR EACH ROW WHEN (NEW.keys_held_by = 'sender') EXECUTE FUNCTION paydesk_audit_keys_holder();

  -- Whether a profile's keys are with the team sender (read past row-level security: any login asks it).
  CREATE FUNCTION paydesk_sender_holds(p_profile text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT EXISTS (SELECT FROM team_profiles WHERE id = p_profile AND keys_held_by = 'sender')
  $$;
  REVOKE ALL ON FUNCTION paydesk_sender_holds(text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_sender_holds(text) TO paydesk_finance, paydesk_support, paydesk_admin;

  CREATE FUNCTION paydesk_sender_gate_entry() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF paydesk_sender_holds(NEW.profile_id) AND NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the keys of profile "%" are with the team sender: only the sender sends for it (ask it)', NEW.profile_id
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $$;
  -- Named to fire before the request and claim checks (BEFORE triggers run by name): who may send for this profile comes first.
  CREATE TRIGGER entries_keys_with_sender BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, profile_id ON entries
    FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION paydesk_sender_gate_entry();

  CREATE FUNCTION paydesk_sender_gate_claim() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER')
      AND paydesk_sender_holds((SELECT profile_id FROM batches WHERE seq = NEW.batch_seq)) THEN
      RAISE EXCEPTION 'the keys of this batch''s profile are with the team sender: only the sender claims its rows (ask it)'
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $$;
  -- Named to fire before the claim checks of migration 44 (BEFORE triggers run by name): who may claim comes first.
  CREATE TRIGGER batch_rows_by_keys_holder BEFORE UPDATE OF claim_holder, lease_until ON batch_rows
    FOR EACH ROW WHEN (NEW.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_sender_gate_claim();

  -- The machine never decides: a sender login's vote is refused.
  CREATE FUNCTION paydesk_sender_never_votes() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the team sender never approves or rejects' USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER approval_votes_not_by_sender BEFORE INSERT ON approval_votes FOR EACH ROW EXECUTE FUNCTION paydesk_sender_never_votes();

  CREATE TABLE send_asks (
    id bigserial PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('payout', 'batch', 'resend')),
    profile_id text NOT NULL,
    batch_id text,
    entry_id text,
    request jsonb,
    asked_by text NOT NULL DEFAULT session_user,
    asked_at bigint NOT NULL DEFAULT paydesk_now_ms(),
    state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'taken', 'done', 'refused')),
    taken_by text,
    taken_holder text,
    lease_until bigint,
    entry_result text,
    answer jsonb,
    finished_at bigint,
    CHECK (CASE kind WHEN 'payout' THEN request IS NOT NULL AND batch_id IS NULL AND entry_id IS NULL
                     WHEN 'batch' THEN batch_id IS NOT NULL AND request IS NULL AND entry_id IS NULL
                     ELSE entry_id IS NOT NULL AND request IS NULL AND batch_id IS NULL END)
  );
  CREATE INDEX send_asks_open ON send_asks (id) WHERE state IN ('waiting', 'taken');

  -- An ask is its asker's, new and waiting, for a profile the sender holds; a batch ask names a batch of that profile.
  CREATE FUNCTION paydesk_send_ask_stamp() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      NEW.asked_by := session_user;
      NEW.asked_at := paydesk_now_ms();
      NEW.state := 'waiting';
      NEW.taken_by := NULL; NEW.taken_holder := NULL; NEW.lease_until := NULL; NEW.answer := NULL; NEW.finished_at := NULL; NEW.entry_result := NULL;
      IF NOT paydesk_sender_holds(NEW.profile_id) THEN
        RAISE EXCEPTION 'profile "%" is not sent by the team sender: its desktops send it', NEW.profile_id USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.kind = 'batch' AND NOT EXISTS (SELECT FROM batches WHERE id = NEW.batch_id AND profile_id = NEW.profile_id) THEN
        RAISE EXCEPTION 'batch "%" is not a batch of profile "%"', NEW.batch_id, NEW.profile_id USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.kind = 'resend' AND NOT EXISTS (SELECT FROM entries WHERE id = NEW.entry_id AND profile_id = NEW.profile_id AND resolution = 'not_found') THEN
        RAISE EXCEPTION 'entry "%" was not looked up and found missing: nothing to send again', NEW.entry_id USING ERRCODE = 'check_violation';
      END IF;
    ELSE
      NEW.asked_by := OLD.asked_by; NEW.asked_at := OLD.asked_at; NEW.kind := OLD.kind; NEW.profile_id := OLD.profile_id;
      NEW.batch_id := OLD.batch_id; NEW.entry_id := OLD.entry_id; NEW.request := OLD.request;
      IF NEW.taken_holder IS DISTINCT FROM OLD.taken_holder THEN NEW.taken_by := session_user; END IF;
      IF OLD.state IN ('done', 'refused') THEN
        RAISE EXCEPTION 'ask % is answered: it does not change again', OLD.id USING ERRCODE = 'check_violation';
      END IF;
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER send_asks_stamp BEFORE INSERT OR UPDATE ON send_asks FOR EACH ROW EXECUTE FUNCTION paydesk_send_ask_stamp();

  CREATE FUNCTION paydesk_send_ask_audited() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM paydesk_audit_write('send_ask', 'send_ask:' || NEW.id, NULL,
        jsonb_build_object('kind', NEW.kind, 'profileId', NEW.profile_id, 'batchId', NEW.batch_id, 'entryId', NEW.entry_id,
          'externalId', NEW.request->>'external_id', 'amount', NEW.request->'amount'), NULL);
    ELSIF NEW.state IN ('done', 'refused') AND OLD.state IS DISTINCT FROM NEW.state THEN
      PERFORM paydesk_audit_write('send_ask_answered', 'send_ask:' || NEW.id, jsonb_build_object('state', OLD.state),
        jsonb_build_object('state', NEW.state, 'entryId', NEW.entry_result, 'answer', NEW.answer), NULL);
    END IF;
    PERFORM pg_notify('paydesk_changes', json_build_object('table', 'send_asks', 'id', NEW.id::text, 'batchId', NEW.batch_id)::text);
    RETURN NULL;
  END $$;
  CREATE TRIGGER send_asks_audited AFTER INSERT OR UPDATE OF state ON send_asks FOR EACH ROW EXECUTE FUNCTION paydesk_send_ask_audited();

  REVOKE ALL ON send_asks FROM PUBLIC;
  GRANT SELECT ON send_asks TO paydesk_finance, paydesk_support, paydesk_admin;
  GRANT INSERT (kind, profile_id, batch_id, entry_id, request) ON send_asks TO paydesk_finance;
  GRANT USAGE ON SEQUENCE send_asks_id_seq TO paydesk_finance;
  GRANT UPDATE (state, taken_holder, lease_until, entry_result, answer, finished_at) ON send_asks TO paydesk_sender;
  ALTER TABLE send_asks ENABLE ROW LEVEL SECURITY;
  CREATE POLICY send_asks_read ON send_asks FOR SELECT USING (true);
  CREATE POLICY send_asks_ask ON send_asks FOR INSERT WITH CHECK (pg_has_role(session_user, 'paydesk_finance', 'MEMBER'));
  CREATE POLICY send_asks_answer ON send_asks FOR UPDATE USING (pg_has_role(session_user, 'paydesk_sender', 'MEMBER'))
    WITH CHECK (pg_has_role(session_user, 'paydesk_sender', 'MEMBER'));

  -- The sender's start, stop and key changes (its own hooks; the actor is still session_user).
  CREATE FUNCTION paydesk_sender_audit(p_action text, p_after jsonb) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') OR NOT p_action = ANY (ARRAY['sender_start', 'sender_stop']) THEN
      RAISE EXCEPTION 'only the team sender records "%"', p_action USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN paydesk_audit_write(p_action, 'sender:' || session_user, NULL, p_after, NULL);
  END $$;
  REVOKE ALL ON FUNCTION paydesk_sender_audit(text, jsonb) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_sender_audit(text, jsonb) TO paydesk_sender;

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
