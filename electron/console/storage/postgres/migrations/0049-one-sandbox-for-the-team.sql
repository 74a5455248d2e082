-- Migration 49: one sandbox for the team
--
-- Issue 38 item 4 (docs/team-sender.md "One sandbox for the team"; docs/decisions/team-sandbox-control-api.md):
-- the team sender runs the sandbox engine as the team's sandbox service and publishes it here.
-- team_sandbox is one row: where the engine answers (base_url, read by every role) and its control
-- API with its token (control_url, control_token: column grants give them to admins only). Nobody
-- writes the table: the sender publishes through paydesk_publish_team_sandbox, which also writes the
-- team profile `team-sandbox` on it with its keys held by the sender (so no desktop sends on it),
-- and records `team_sandbox_publish` in the audit log (never the token).

  -- The audit log's actions: the ones already allowed (whatever migration added them) and this one.
  DO $actions$
  DECLARE
    allowed text[];
  BEGIN
    SELECT array_agg(DISTINCT m[1]) INTO allowed FROM pg_catalog.pg_constraint c, regexp_matches(pg_catalog.pg_get_constraintdef(c.oid), '''([a-z_]+)''', 'g') m
      WHERE c.conrelid = 'public.audit_log'::regclass AND c.conname = 'audit_log_action_check';
    allowed := allowed || ARRAY['team_sandbox_publish'];
    ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
    -- Written as ARRAY['a', …] (each action quoted), the form the next migration reads back.
    EXECUTE pg_catalog.format('ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action = ANY (ARRAY[%s]))',
      (SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a), ', ' ORDER BY a) FROM pg_catalog.unnest(allowed) a));
  END $actions$;

  CREATE TABLE team_sandbox (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    profile_id text NOT NULL CHECK (profile_id = 'team-sandbox'),
    base_url text NOT NULL CHECK (base_url ~ '^https?://' AND length(base_url) <= 500),
    control_url text NOT NULL CHECK (control_url ~ '^https?://' AND length(control_url) <= 500),
    control_token text NOT NULL CHECK (control_token ~ '^[A-Za-z0-9._~+/=-]{16,200}$'),
    published_by text NOT NULL DEFAULT session_user,
    published_at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  REVOKE ALL ON team_sandbox FROM PUBLIC;
  -- Every role reads where the team sandbox is and who published it; only admins read its control API and token.
  GRANT SELECT (id, profile_id, base_url, published_by, published_at) ON team_sandbox TO paydesk_finance, paydesk_support, paydesk_admin;
  GRANT SELECT (control_url, control_token) ON team_sandbox TO paydesk_admin;

  CREATE FUNCTION paydesk_publish_team_sandbox(p_base_url text, p_control_url text, p_control_token text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    before jsonb;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'only the team sender publishes the team sandbox' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT jsonb_build_object('baseUrl', base_url, 'controlUrl', control_url, 'publishedBy', published_by) INTO before FROM team_sandbox;
    INSERT INTO team_sandbox (id, profile_id, base_url, control_url, control_token) VALUES (true, 'team-sandbox', p_base_url, p_control_url, p_control_token)
      ON CONFLICT (id) DO UPDATE SET base_url = EXCLUDED.base_url, control_url = EXCLUDED.control_url, control_token = EXCLUDED.control_token,
        published_by = session_user, published_at = clock_timestamp();
    -- The team's profile on it: a sandbox whose keys the sender holds, so only the sender sends on it (migration 48's gates).
    INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by)
      VALUES ('team-sandbox', 'Team sandbox', 'sandbox', p_base_url, 'SVC', (extract(epoch FROM clock_timestamp()) * 1000)::bigint, 'sender')
      ON CONFLICT (id) DO UPDATE SET environment = 'sandbox', base_url = EXCLUDED.base_url, header_word = 'SVC', updated_at = EXCLUDED.updated_at, keys_held_by = 'sender';
    PERFORM paydesk_audit_write('team_sandbox_publish', 'team_sandbox', before,
      jsonb_build_object('baseUrl', p_base_url, 'controlUrl', p_control_url, 'profileId', 'team-sandbox'), NULL);
  END $$;
  REVOKE ALL ON FUNCTION paydesk_publish_team_sandbox(text, text, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_publish_team_sandbox(text, text, text) TO paydesk_sender;
