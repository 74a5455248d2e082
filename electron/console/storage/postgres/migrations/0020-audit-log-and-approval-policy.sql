-- Migration 20: audit log and approval policy
--
-- Four eyes on the money, as rules the workspace's database enforces (issue 25), so a modified
-- client, a second desktop or raw SQL as a finance login cannot move a covered sum alone. Not
-- used by the console yet: no screen, no setting (docs/team-workspace.md, "Approvals").
--
-- - 20: the audit log (append-only: no role may change or delete a line; a trigger refuses it
--   even for the owner) and the approval policy (amount tiers per environment and currency →
--   0, 1 or 2 approvals by a role; admin-only, every edit audited with before/after).
-- - 21: approval requests and their votes (migration 21), and the sending gate:
--   claiming a batch's rows or writing a payout's entry is refused, in that same transaction,
--   unless the policy needs nothing or an approval binds the digest of exactly what is sent.
--
-- Numbered from 20 to leave room for the workspace's other migrations (docs/decisions/
-- approvals-in-the-database.md). Who acts is always `session_user` (SECURITY DEFINER functions
-- keep it: only current_user changes), never a name the client sends.
--
-- paydesk_audit: what a desktop may record itself; approve, reject, withdraw, policy and role changes are written by the database alone.

  CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor text NOT NULL DEFAULT session_user,
    action text NOT NULL CHECK (action IN ('sign_in', 'import', 'confirm', 'send', 'pause', 'cancel',
      'request_approval', 'approve', 'reject', 'withdraw', 'void_approval', 'policy_change', 'role_change')),
    subject text,
    before jsonb,
    after jsonb,
    remark text
  );
  CREATE INDEX audit_log_by_actor ON audit_log (actor, at);
  CREATE INDEX audit_log_by_subject ON audit_log (subject, at);

  CREATE FUNCTION paydesk_audit_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    NEW.actor := session_user;
    NEW.at := clock_timestamp();
    RETURN NEW;
  END $$;
  CREATE TRIGGER audit_log_who BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION paydesk_audit_stamp();
  -- Append-only for everyone, the owner and a superuser included (grants alone do not bind them).
  CREATE FUNCTION paydesk_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END $$;
  CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION paydesk_audit_append_only();
  CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION paydesk_audit_append_only();

  -- The database's own writer (triggers and approval functions).
  CREATE FUNCTION paydesk_audit_write(p_action text, p_subject text, p_before jsonb, p_after jsonb, p_remark text) RETURNS bigint
    LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    INSERT INTO audit_log (action, subject, before, after, remark) VALUES (p_action, p_subject, p_before, p_after, p_remark) RETURNING id
  $$;
  REVOKE ALL ON FUNCTION paydesk_audit_write(text, text, jsonb, jsonb, text) FROM PUBLIC;

  -- The desktops' hooks: only the actions a desktop sees happen (never approve, policy, roles).
  CREATE FUNCTION paydesk_audit(p_action text, p_subject text, p_before jsonb DEFAULT NULL, p_after jsonb DEFAULT NULL, p_remark text DEFAULT NULL) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    IF p_action IS NULL OR NOT p_action = ANY (ARRAY['sign_in', 'import', 'confirm', 'send', 'pause', 'cancel']) THEN
      RAISE EXCEPTION 'a desktop cannot record "%" in the audit log: only the database writes it', p_action USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN paydesk_audit_write(p_action, p_subject, p_before, p_after, p_remark);
  END $$;
  REVOKE ALL ON FUNCTION paydesk_audit(text, text, jsonb, jsonb, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_audit(text, text, jsonb, jsonb, text) TO paydesk_finance, paydesk_support, paydesk_admin;
  REVOKE ALL ON audit_log FROM PUBLIC;
  GRANT SELECT ON audit_log TO paydesk_finance, paydesk_support, paydesk_admin;

  -- The policy: from min_amount up (to the next tier), a payout's amount or a batch's total needs
  -- this many approvals from members of approver_role. No tier: no approval needed.
  CREATE TABLE approval_tiers (
    environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    min_amount bigint NOT NULL CHECK (min_amount >= 0),
    approvals smallint NOT NULL CHECK (approvals BETWEEN 0 AND 2),
    approver_role text NOT NULL CHECK (approver_role IN ('paydesk_finance', 'paydesk_admin')),
    updated_by text NOT NULL DEFAULT session_user,
    PRIMARY KEY (environment, currency, min_amount)
  );
  CREATE TRIGGER approval_tiers_who BEFORE INSERT OR UPDATE ON approval_tiers FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();
  CREATE FUNCTION paydesk_audit_policy() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_audit_write('policy_change',
      coalesce(NEW.environment, OLD.environment) || '/' || coalesce(NEW.currency, OLD.currency),
      CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END,
      CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END, NULL);
    RETURN NULL;
  END $$;
  CREATE TRIGGER approval_tiers_audited AFTER INSERT OR UPDATE OR DELETE ON approval_tiers FOR EACH ROW EXECUTE FUNCTION paydesk_audit_policy();
  REVOKE ALL ON approval_tiers FROM PUBLIC;
  GRANT SELECT ON approval_tiers TO paydesk_finance, paydesk_support, paydesk_admin;
  GRANT INSERT, UPDATE, DELETE ON approval_tiers TO paydesk_admin;

  -- What the policy asks for an amount: the tier it falls in; with no currency (a batch's claim,
  -- where the database does not know it), the strictest of every currency's tier.
  CREATE FUNCTION paydesk_approval_need(p_environment text, p_currency text, p_amount bigint, OUT approvals smallint, OUT approver_role text)
    LANGUAGE sql STABLE SET search_path = public, pg_temp AS $$
    SELECT coalesce(max(t.approvals), 0)::smallint, (array_agg(t.approver_role ORDER BY t.approvals DESC))[1]
    FROM (SELECT DISTINCT ON (currency) approvals, approver_role FROM approval_tiers
          WHERE environment = p_environment AND (p_currency IS NULL OR currency = p_currency) AND min_amount <= p_amount
          ORDER BY currency, min_amount DESC) t
  $$;

  -- People's roles, changed by an admin and audited (a superuser's own GRANT is not seen here).
  CREATE FUNCTION paydesk_set_role(p_login text, p_role text, p_member boolean) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    was boolean;
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
      RAISE EXCEPTION 'only an admin changes roles' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_role NOT IN ('paydesk_finance', 'paydesk_support', 'paydesk_admin') THEN RAISE EXCEPTION 'unknown role %', p_role; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = p_login AND rolcanlogin) THEN RAISE EXCEPTION 'no login named %', p_login; END IF;
    was := pg_has_role(p_login, p_role, 'MEMBER');
    IF p_member THEN EXECUTE format('GRANT %I TO %I', p_role, p_login); ELSE EXECUTE format('REVOKE %I FROM %I', p_role, p_login); END IF;
    PERFORM paydesk_audit_write('role_change', p_login, jsonb_build_object(p_role, was), jsonb_build_object(p_role, p_member), NULL);
  END $$;
  REVOKE ALL ON FUNCTION paydesk_set_role(text, text, boolean) FROM PUBLIC;
  -- Everyone may call it and be told plainly; only an admin gets past the first line.
  GRANT EXECUTE ON FUNCTION paydesk_set_role(text, text, boolean) TO paydesk_finance, paydesk_support, paydesk_admin;
