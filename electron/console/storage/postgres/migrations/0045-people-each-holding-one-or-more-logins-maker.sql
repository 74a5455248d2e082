-- Migration 45: people, each holding one or more logins; maker and checker are different people

  -- The audit log's actions: the ones already allowed (whatever migration added them) and these.
  DO $actions$
  DECLARE
    allowed text[];
  BEGIN
    SELECT array_agg(DISTINCT m[1]) INTO allowed FROM pg_catalog.pg_constraint c, regexp_matches(pg_catalog.pg_get_constraintdef(c.oid), '''([a-z_]+)''', 'g') m
      WHERE c.conrelid = 'public.audit_log'::regclass AND c.conname = 'audit_log_action_check';
    allowed := allowed || ARRAY['person_change', 'change_request', 'change_approve', 'change_reject', 'change_withdraw'];
    ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
    -- Written as ARRAY['a', …] (each action quoted), the form the next migration reads back.
    EXECUTE pg_catalog.format('ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action = ANY (ARRAY[%s]))',
      (SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a), ', ' ORDER BY a) FROM pg_catalog.unnest(allowed) a));
  END $actions$;

  CREATE TABLE people (
    id bigserial PRIMARY KEY,
    display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 120),
    disabled boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by text NOT NULL DEFAULT session_user
  );
  CREATE TABLE person_logins (
    login text PRIMARY KEY,
    person_id bigint NOT NULL REFERENCES people (id),
    disabled boolean NOT NULL DEFAULT false
  );
  CREATE INDEX person_logins_by_person ON person_logins (person_id);
  REVOKE ALL ON people, person_logins FROM PUBLIC;
  -- Everyone reads who is who (an approval's screen names people); only the owner's functions write.
  GRANT SELECT ON people, person_logins TO paydesk_finance, paydesk_support, paydesk_admin;

  -- The person a login belongs to; a login no row maps is its own person.
  CREATE FUNCTION paydesk_person_of(p_login text) RETURNS text LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT coalesce((SELECT 'person:' || person_id FROM person_logins WHERE login = p_login), 'login:' || p_login)
  $$;
  GRANT EXECUTE ON FUNCTION paydesk_person_of(text) TO paydesk_finance, paydesk_support, paydesk_admin;

  -- Every existing login of the workspace's roles becomes one person, named as the login.
  WITH logins AS (
    SELECT r.rolname FROM pg_catalog.pg_roles r
    WHERE r.rolcanlogin AND EXISTS (SELECT FROM unnest(ARRAY['paydesk_finance', 'paydesk_support', 'paydesk_admin']) g WHERE pg_catalog.pg_has_role(r.oid, g, 'MEMBER'))
  ), made AS (
    INSERT INTO people (display_name) SELECT rolname FROM logins ORDER BY rolname RETURNING id, display_name
  )
  INSERT INTO person_logins (login, person_id) SELECT display_name, id FROM made;

  -- A login the workspace's functions may change: a member of its roles, never a superuser, the
  -- owner of the database or a login that creates roles (an admin must not take over the server).
  CREATE FUNCTION paydesk_assert_member_login(p_login text) RETURNS void LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    r pg_catalog.pg_roles;
  BEGIN
    SELECT * INTO r FROM pg_catalog.pg_roles WHERE rolname = p_login;
    IF NOT FOUND OR NOT (r.rolcanlogin OR EXISTS (SELECT FROM person_logins WHERE login = p_login)) THEN
      RAISE EXCEPTION 'no login named %', p_login USING ERRCODE = 'PD034';
    END IF;
    IF r.rolsuper OR r.rolcreaterole OR r.oid = (SELECT datdba FROM pg_catalog.pg_database WHERE datname = current_database())
       OR NOT (EXISTS (SELECT FROM unnest(ARRAY['paydesk_finance', 'paydesk_support', 'paydesk_admin']) g WHERE pg_catalog.pg_has_role(r.oid, g, 'MEMBER')) OR EXISTS (SELECT FROM person_logins WHERE login = p_login)) THEN
      RAISE EXCEPTION 'login % is not one of the workspace''s people: the workspace does not change it', p_login USING ERRCODE = 'PD034';
    END IF;
  END $$;
  REVOKE ALL ON FUNCTION paydesk_assert_member_login(text) FROM PUBLIC;

  -- A login made in psql gets its person row the first time the workspace changes it.
  CREATE FUNCTION paydesk_ensure_person(p_login text) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    found bigint;
  BEGIN
    SELECT person_id INTO found FROM person_logins WHERE login = p_login;
    IF found IS NULL THEN
      INSERT INTO people (display_name) VALUES (p_login) RETURNING id INTO found;
      INSERT INTO person_logins (login, person_id) VALUES (p_login, found);
    END IF;
    RETURN found;
  END $$;
  REVOKE ALL ON FUNCTION paydesk_ensure_person(text) FROM PUBLIC;

  CREATE FUNCTION paydesk_check_person_input(p_login text, p_role text, p_display_name text, p_verifier text) RETURNS void
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF p_login IS NOT NULL AND p_login !~ '^[a-z][a-z0-9_]{1,62}$' THEN
      RAISE EXCEPTION 'a login is 2 to 63 lower-case letters, digits or underscores, a letter first: % is not one', pg_catalog.quote_literal(p_login)
        USING ERRCODE = 'PD032', DETAIL = '{"field":"login"}';
    END IF;
    IF p_role IS NOT NULL AND NOT p_role = ANY (ARRAY['paydesk_finance', 'paydesk_support', 'paydesk_admin']) THEN
      RAISE EXCEPTION 'unknown role %: a person is paydesk_finance, paydesk_support or paydesk_admin', pg_catalog.quote_literal(p_role)
        USING ERRCODE = 'PD032', DETAIL = '{"field":"role"}';
    END IF;
    IF p_display_name IS NOT NULL AND (length(btrim(p_display_name)) = 0 OR length(p_display_name) > 120) THEN
      RAISE EXCEPTION 'a display name is 1 to 120 characters' USING ERRCODE = 'PD032', DETAIL = '{"field":"displayName"}';
    END IF;
    IF p_verifier IS NOT NULL AND p_verifier !~ '^SCRAM-SHA-256\$[0-9]{4,7}:[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]+={0,2}$' THEN
      RAISE EXCEPTION 'a password reaches the workspace as its SCRAM-SHA-256 verifier, never in clear' USING ERRCODE = 'PD032', DETAIL = '{"field":"password"}';
    END IF;
  END $$;
  GRANT EXECUTE ON FUNCTION paydesk_check_person_input(text, text, text, text) TO paydesk_admin;

  -- A new login of a new person, or (p_same_person_as: one of that person's logins) a second login of an existing one.
  CREATE FUNCTION paydesk_do_add_person(p_login text, p_role text, p_display_name text, p_verifier text, p_same_person_as text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    person bigint;
  BEGIN
    PERFORM paydesk_check_person_input(p_login, p_role, CASE WHEN p_same_person_as IS NULL THEN coalesce(p_display_name, '') END, p_verifier);
    IF p_login IS NULL OR p_role IS NULL OR p_verifier IS NULL THEN
      RAISE EXCEPTION 'a person needs a login, a role and an initial password' USING ERRCODE = 'PD032';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = p_login) THEN
      RAISE EXCEPTION 'login % exists already', p_login USING ERRCODE = 'PD032', DETAIL = '{"field":"login"}';
    END IF;
    IF p_same_person_as IS NULL THEN
      INSERT INTO people (display_name) VALUES (btrim(p_display_name)) RETURNING id INTO person;
    ELSE
      PERFORM paydesk_assert_member_login(p_same_person_as);
      person := paydesk_ensure_person(p_same_person_as);
    END IF;
    EXECUTE pg_catalog.format('CREATE ROLE %I LOGIN PASSWORD %L', p_login, p_verifier);
    EXECUTE pg_catalog.format('GRANT %I TO %I', p_role, p_login);
    INSERT INTO person_logins (login, person_id) VALUES (p_login, person);
    PERFORM paydesk_audit_write('person_change', 'login:' || p_login, NULL,
      jsonb_build_object('login', p_login, 'person', person, 'displayName', (SELECT display_name FROM people WHERE id = person), 'role', p_role), 'added');
    RETURN person;
  END $$;

  CREATE FUNCTION paydesk_do_reset_password(p_login text, p_verifier text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_check_person_input(NULL, NULL, NULL, p_verifier);
    IF p_verifier IS NULL THEN RAISE EXCEPTION 'a new password is needed' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    PERFORM paydesk_ensure_person(p_login);
    EXECUTE pg_catalog.format('ALTER ROLE %I PASSWORD %L', p_login, p_verifier);
    PERFORM paydesk_audit_write('person_change', 'login:' || p_login, NULL, jsonb_build_object('login', p_login), 'password reset');
  END $$;

  CREATE FUNCTION paydesk_do_disable_login(p_login text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    person bigint;
  BEGIN
    PERFORM paydesk_assert_member_login(p_login);
    person := paydesk_ensure_person(p_login);
    EXECUTE pg_catalog.format('ALTER ROLE %I NOLOGIN', p_login);
    UPDATE person_logins SET disabled = true WHERE login = p_login;
    UPDATE people SET disabled = NOT EXISTS (SELECT FROM person_logins WHERE person_id = person AND NOT disabled) WHERE id = person;
    PERFORM paydesk_audit_write('person_change', 'login:' || p_login, jsonb_build_object('disabled', false), jsonb_build_object('disabled', true), 'login disabled');
  END $$;

  CREATE FUNCTION paydesk_do_set_role(p_login text, p_role text, p_member boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    was boolean;
  BEGIN
    PERFORM paydesk_check_person_input(NULL, p_role, NULL, NULL);
    IF p_role IS NULL OR p_member IS NULL THEN RAISE EXCEPTION 'a role change names the role and whether the login holds it' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    PERFORM paydesk_ensure_person(p_login);
    was := pg_catalog.pg_has_role(p_login, p_role, 'MEMBER');
    IF p_member THEN EXECUTE pg_catalog.format('GRANT %I TO %I', p_role, p_login); ELSE EXECUTE pg_catalog.format('REVOKE %I FROM %I', p_role, p_login); END IF;
    PERFORM paydesk_audit_write('role_change', p_login, jsonb_build_object(p_role, was), jsonb_build_object(p_role, p_member), NULL);
  END $$;

  -- Never granted: a second admin's approval (migration 46) or the owner's bootstrap runs them.
  REVOKE ALL ON FUNCTION paydesk_do_add_person(text, text, text, text, text), paydesk_do_reset_password(text, text),
    paydesk_do_disable_login(text), paydesk_do_set_role(text, text, boolean) FROM PUBLIC;

  -- A vote by any login of the person who asked is refused (the rest as migration 28 wrote it).
  CREATE OR REPLACE FUNCTION paydesk_vote_rules() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
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
    IF paydesk_person_of(NEW.voter) = paydesk_person_of(r.requested_by) THEN
      RAISE EXCEPTION 'the person who asked (%) cannot approve or reject their own request, from any of their logins', r.requested_by USING ERRCODE = 'PD010';
    END IF;
    -- One person counts once, whichever of their logins votes.
    IF EXISTS (SELECT FROM approval_votes v WHERE v.request_id = r.id AND paydesk_person_of(v.voter) = paydesk_person_of(NEW.voter)) THEN
      RAISE EXCEPTION 'the person of % has voted on approval request % already', NEW.voter, r.id USING ERRCODE = 'unique_violation', CONSTRAINT = 'approval_votes_pkey';
    END IF;
    IF NOT pg_has_role(NEW.voter, r.approver_role, 'MEMBER') THEN
      RAISE EXCEPTION 'approval request % is decided by %: % is not one', r.id, r.approver_role, NEW.voter
        USING ERRCODE = 'PD012', DETAIL = json_build_object('approverRole', r.approver_role)::text;
    END IF;
    RETURN NEW;
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
