-- Migration 46: a change to the policy, roles or people is asked by one admin and applied when another approves it

  CREATE TABLE admin_changes (
    id bigserial PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('policy', 'role', 'add_person', 'reset_password', 'disable_login')),
    -- What is applied and shown: never a password (that is the verifier column, read by no role).
    change jsonb NOT NULL,
    verifier text,
    state text NOT NULL DEFAULT 'awaiting' CHECK (state IN ('awaiting', 'applied', 'rejected', 'withdrawn')),
    requested_by text NOT NULL DEFAULT session_user,
    requested_by_person text NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    decided_by text,
    decided_at timestamptz,
    remark text
  );
  CREATE INDEX admin_changes_waiting ON admin_changes (id) WHERE state = 'awaiting';
  REVOKE ALL ON admin_changes FROM PUBLIC;
  GRANT SELECT (id, kind, change, state, requested_by, requested_at, decided_by, decided_at, remark) ON admin_changes TO paydesk_admin;

  -- Admins no longer write the policy themselves: a change is asked, then approved by another.
  REVOKE INSERT, UPDATE, DELETE ON approval_tiers FROM paydesk_admin;

  CREATE FUNCTION paydesk_assert_admin() RETURNS void LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')
       OR EXISTS (SELECT FROM person_logins WHERE login = session_user AND disabled) THEN
      RAISE EXCEPTION 'only a workspace admin changes the policy, roles or people; % is not one', session_user USING ERRCODE = 'PD030';
    END IF;
  END $$;

  -- The admins the workspace has, as people (two logins of one person are one admin).
  CREATE FUNCTION paydesk_admin_people() RETURNS integer LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT count(DISTINCT paydesk_person_of(r.rolname))::int FROM pg_catalog.pg_roles r
    WHERE r.rolcanlogin AND NOT r.rolsuper AND pg_catalog.pg_has_role(r.oid, 'paydesk_admin', 'MEMBER')
      AND NOT EXISTS (SELECT FROM person_logins l WHERE l.login = r.rolname AND l.disabled)
  $$;
  REVOKE ALL ON FUNCTION paydesk_admin_people() FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_admin_people() TO paydesk_finance, paydesk_support, paydesk_admin;

  CREATE FUNCTION paydesk_ask_change(p_kind text, p_change jsonb, p_verifier text, p_remark text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    id bigint;
  BEGIN
    INSERT INTO admin_changes (kind, change, verifier, requested_by_person, remark)
      VALUES (p_kind, p_change, p_verifier, paydesk_person_of(session_user), p_remark) RETURNING admin_changes.id INTO id;
    PERFORM paydesk_audit_write('change_request', 'change:' || id, NULL, jsonb_build_object('kind', p_kind, 'change', p_change), p_remark);
    RETURN id;
  END $$;
  REVOKE ALL ON FUNCTION paydesk_ask_change(text, jsonb, text, text) FROM PUBLIC;

  -- The whole tier set of one environment and currency, as the policy screen saves it.
  CREATE FUNCTION paydesk_ask_policy(p_environment text, p_currency text, p_tiers jsonb, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    tiers jsonb;
  BEGIN
    PERFORM paydesk_assert_admin();
    IF p_environment IS NULL OR p_environment NOT IN ('sandbox', 'live') OR p_currency IS NULL OR p_currency !~ '^[A-Z]{3}$' THEN
      RAISE EXCEPTION 'a policy is for sandbox or live and a three-letter currency' USING ERRCODE = 'PD032';
    END IF;
    IF p_tiers IS NULL OR jsonb_typeof(p_tiers) <> 'array' THEN RAISE EXCEPTION 'the tiers are a list' USING ERRCODE = 'PD032'; END IF;
    BEGIN
      SELECT coalesce(jsonb_agg(jsonb_build_object('minAmount', t.min_amount, 'approvals', t.approvals, 'approverRole', t.approver_role) ORDER BY t.min_amount), '[]')
        INTO tiers FROM jsonb_to_recordset(p_tiers) AS t(min_amount bigint, approvals smallint, approver_role text);
    EXCEPTION WHEN OTHERS THEN
      RAISE EXCEPTION 'a tier is {min_amount, approvals, approver_role}: %', SQLERRM USING ERRCODE = 'PD032';
    END;
    IF EXISTS (SELECT FROM jsonb_array_elements(tiers) t WHERE (t->>'minAmount') IS NULL OR (t->>'minAmount')::bigint < 0
                 OR (t->>'approvals') IS NULL OR (t->>'approvals')::int NOT BETWEEN 0 AND 2
                 OR coalesce(t->>'approverRole', '') NOT IN ('paydesk_finance', 'paydesk_admin'))
       OR (SELECT count(DISTINCT t->>'minAmount') FROM jsonb_array_elements(tiers) t) <> jsonb_array_length(tiers) THEN
      RAISE EXCEPTION 'a tier starts at an amount of 0 or more (once), needs 0 to 2 approvals, by paydesk_finance or paydesk_admin' USING ERRCODE = 'PD032';
    END IF;
    RETURN paydesk_ask_change('policy', jsonb_build_object('environment', p_environment, 'currency', p_currency, 'tiers', tiers), NULL, p_remark);
  END $$;

  CREATE FUNCTION paydesk_ask_role(p_login text, p_role text, p_member boolean, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_check_person_input(NULL, p_role, NULL, NULL);
    IF p_role IS NULL OR p_member IS NULL THEN RAISE EXCEPTION 'a role change names the role and whether the login holds it' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('role', jsonb_build_object('login', p_login, 'role', p_role, 'member', p_member), NULL, p_remark);
  END $$;

  CREATE FUNCTION paydesk_ask_add_person(p_login text, p_role text, p_display_name text, p_verifier text, p_same_person_as text DEFAULT NULL, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_check_person_input(p_login, p_role, CASE WHEN p_same_person_as IS NULL THEN coalesce(p_display_name, '') END, p_verifier);
    IF p_login IS NULL OR p_role IS NULL OR p_verifier IS NULL THEN
      RAISE EXCEPTION 'a person needs a login, a role and an initial password' USING ERRCODE = 'PD032';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = p_login)
       OR EXISTS (SELECT FROM admin_changes WHERE state = 'awaiting' AND kind = 'add_person' AND change->>'login' = p_login) THEN
      RAISE EXCEPTION 'login % exists already or waits to be added', p_login USING ERRCODE = 'PD032', DETAIL = '{"field":"login"}';
    END IF;
    IF p_same_person_as IS NOT NULL THEN PERFORM paydesk_assert_member_login(p_same_person_as); END IF;
    RETURN paydesk_ask_change('add_person', jsonb_build_object('login', p_login, 'role', p_role,
      'displayName', CASE WHEN p_same_person_as IS NULL THEN btrim(p_display_name)
                          ELSE coalesce((SELECT p.display_name FROM people p JOIN person_logins l ON l.person_id = p.id WHERE l.login = p_same_person_as), p_same_person_as) END,
      'samePersonAs', p_same_person_as), p_verifier, p_remark);
  END $$;

  CREATE FUNCTION paydesk_ask_reset_password(p_login text, p_verifier text, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_check_person_input(NULL, NULL, NULL, p_verifier);
    IF p_verifier IS NULL THEN RAISE EXCEPTION 'a new password is needed' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('reset_password', jsonb_build_object('login', p_login), p_verifier, p_remark);
  END $$;

  CREATE FUNCTION paydesk_ask_disable_login(p_login text, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('disable_login', jsonb_build_object('login', p_login), NULL, p_remark);
  END $$;

  -- Applies the policy as asked: the tier set of that environment and currency becomes the asked one.
  CREATE FUNCTION paydesk_do_set_policy(p_change jsonb) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    DELETE FROM approval_tiers WHERE environment = p_change->>'environment' AND currency = p_change->>'currency'
      AND NOT (min_amount = ANY (ARRAY(SELECT (t->>'minAmount')::bigint FROM jsonb_array_elements(p_change->'tiers') t)));
    -- Unchanged tiers are not written: the audit log holds only what changed.
    INSERT INTO approval_tiers (environment, currency, min_amount, approvals, approver_role)
      SELECT p_change->>'environment', p_change->>'currency', (t->>'minAmount')::bigint, (t->>'approvals')::smallint, t->>'approverRole'
      FROM jsonb_array_elements(p_change->'tiers') t
      ON CONFLICT (environment, currency, min_amount) DO UPDATE SET approvals = EXCLUDED.approvals, approver_role = EXCLUDED.approver_role
      WHERE (approval_tiers.approvals, approval_tiers.approver_role) IS DISTINCT FROM (EXCLUDED.approvals, EXCLUDED.approver_role);
  END $$;
  REVOKE ALL ON FUNCTION paydesk_do_set_policy(jsonb) FROM PUBLIC;

  -- Another admin, another person, approves: the change takes effect now, in this transaction.
  CREATE FUNCTION paydesk_approve_change(p_id bigint, p_remark text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    c admin_changes;
  BEGIN
    PERFORM paydesk_assert_admin();
    SELECT * INTO c FROM admin_changes WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no change %', p_id USING ERRCODE = 'no_data_found'; END IF;
    IF c.state <> 'awaiting' THEN
      RAISE EXCEPTION 'change % is already %: nothing more can be decided', p_id, c.state USING ERRCODE = 'PD033', DETAIL = json_build_object('state', c.state)::text;
    END IF;
    IF paydesk_person_of(session_user) = c.requested_by_person THEN
      RAISE EXCEPTION 'change % was asked by % : a second admin, another person, approves it', p_id, c.requested_by USING ERRCODE = 'PD031';
    END IF;
    CASE c.kind
      WHEN 'policy' THEN PERFORM paydesk_do_set_policy(c.change);
      WHEN 'role' THEN PERFORM paydesk_do_set_role(c.change->>'login', c.change->>'role', (c.change->>'member')::boolean);
      WHEN 'add_person' THEN PERFORM paydesk_do_add_person(c.change->>'login', c.change->>'role', c.change->>'displayName', c.verifier, c.change->>'samePersonAs');
      WHEN 'reset_password' THEN PERFORM paydesk_do_reset_password(c.change->>'login', c.verifier);
      WHEN 'disable_login' THEN PERFORM paydesk_do_disable_login(c.change->>'login');
    END CASE;
    -- A password's verifier is kept no longer than it is needed.
    UPDATE admin_changes SET state = 'applied', decided_by = session_user, decided_at = clock_timestamp(), verifier = NULL WHERE id = p_id;
    PERFORM paydesk_audit_write('change_approve', 'change:' || p_id, jsonb_build_object('state', 'awaiting', 'requestedBy', c.requested_by),
      jsonb_build_object('state', 'applied', 'kind', c.kind, 'change', c.change), p_remark);
    RETURN 'applied';
  END $$;

  -- Another admin rejects; the one who asked (any of their logins) withdraws.
  CREATE FUNCTION paydesk_reject_change(p_id bigint, p_remark text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    c admin_changes;
    ends text;
  BEGIN
    PERFORM paydesk_assert_admin();
    SELECT * INTO c FROM admin_changes WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no change %', p_id USING ERRCODE = 'no_data_found'; END IF;
    IF c.state <> 'awaiting' THEN
      RAISE EXCEPTION 'change % is already %: nothing more can be decided', p_id, c.state USING ERRCODE = 'PD033', DETAIL = json_build_object('state', c.state)::text;
    END IF;
    ends := CASE WHEN paydesk_person_of(session_user) = c.requested_by_person THEN 'withdrawn' ELSE 'rejected' END;
    UPDATE admin_changes SET state = ends, decided_by = session_user, decided_at = clock_timestamp(), verifier = NULL WHERE id = p_id;
    PERFORM paydesk_audit_write(CASE ends WHEN 'withdrawn' THEN 'change_withdraw' ELSE 'change_reject' END, 'change:' || p_id,
      jsonb_build_object('state', 'awaiting', 'requestedBy', c.requested_by), jsonb_build_object('state', ends, 'kind', c.kind), p_remark);
    RETURN ends;
  END $$;

  REVOKE ALL ON FUNCTION paydesk_ask_policy(text, text, jsonb, text), paydesk_ask_role(text, text, boolean, text),
    paydesk_ask_add_person(text, text, text, text, text, text), paydesk_ask_reset_password(text, text, text), paydesk_ask_disable_login(text, text),
    paydesk_approve_change(bigint, text), paydesk_reject_change(bigint, text) FROM PUBLIC;
  -- Everyone may call them and be told plainly; only an admin gets past the first line.
  GRANT EXECUTE ON FUNCTION paydesk_ask_policy(text, text, jsonb, text), paydesk_ask_role(text, text, boolean, text),
    paydesk_ask_add_person(text, text, text, text, text, text), paydesk_ask_reset_password(text, text, text), paydesk_ask_disable_login(text, text),
    paydesk_approve_change(bigint, text), paydesk_reject_change(bigint, text) TO paydesk_finance, paydesk_support, paydesk_admin;

  -- The role change of migration 20 at once, by one admin: refused, with the way to ask.
  CREATE OR REPLACE FUNCTION paydesk_set_role(p_login text, p_role text, p_member boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_assert_admin();
    RAISE EXCEPTION 'a role change needs a second admin: ask it with paydesk_ask_role(login, role, member), another admin approves it'
      USING ERRCODE = 'PD035';
  END $$;

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
