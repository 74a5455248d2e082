-- The team workspace's schema as its migrations build it: the one place to read its security model
-- (who may read and write what, the row-level security, the gates' triggers and functions).
-- Written by `npm run schema:snapshot` from a fresh database migrated with
-- electron/console/storage/postgres/migrations/*.sql; test/storage/schema-snapshot.test.ts fails when
-- it differs. Do not edit it: change the migrations, then run the script again.

-- Schema version 51. `<owner>` is the login that ran the migrations: it owns every table and
-- function, so holds every privilege on them, and a SECURITY DEFINER function runs as it. Each
-- person's login is a member of the roles below; a privilege not granted here is refused.

-- ================================================================================================
-- Roles (the cluster's, shared by its databases)
-- ================================================================================================

CREATE ROLE paydesk_admin NOLOGIN;
CREATE ROLE paydesk_finance NOLOGIN;
CREATE ROLE paydesk_sender NOLOGIN;
GRANT paydesk_finance TO paydesk_sender;
CREATE ROLE paydesk_support NOLOGIN;

-- ================================================================================================
-- Extensions
-- ================================================================================================

CREATE EXTENSION pg_trgm SCHEMA public;
CREATE EXTENSION unaccent SCHEMA public;

-- ================================================================================================
-- Schema public
-- ================================================================================================

GRANT USAGE ON SCHEMA public TO PUBLIC;
GRANT USAGE ON SCHEMA public TO paydesk_admin;
GRANT USAGE ON SCHEMA public TO paydesk_finance;
GRANT USAGE ON SCHEMA public TO paydesk_support;

-- ================================================================================================
-- Tables: columns, constraints, indexes, row-level security, grants, triggers
-- ================================================================================================

-- admin_changes
CREATE TABLE admin_changes (
  id bigint NOT NULL DEFAULT nextval('admin_changes_id_seq'::regclass),
  kind text NOT NULL,
  change jsonb NOT NULL,
  verifier text,
  state text NOT NULL DEFAULT 'awaiting'::text,
  requested_by text NOT NULL DEFAULT SESSION_USER,
  requested_by_person text NOT NULL,
  requested_at timestamp with time zone NOT NULL DEFAULT clock_timestamp(),
  decided_by text,
  decided_at timestamp with time zone,
  remark text
);
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_kind_check CHECK (kind = ANY (ARRAY['policy'::text, 'role'::text, 'add_person'::text, 'reset_password'::text, 'disable_login'::text]));
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_pkey PRIMARY KEY (id);
ALTER TABLE admin_changes ADD CONSTRAINT admin_changes_state_check CHECK (state = ANY (ARRAY['awaiting'::text, 'applied'::text, 'rejected'::text, 'withdrawn'::text]));
CREATE INDEX admin_changes_waiting ON public.admin_changes USING btree (id) WHERE (state = 'awaiting'::text);
GRANT SELECT (id, kind, change, state, requested_by, requested_at, decided_by, decided_at, remark) ON TABLE admin_changes TO paydesk_admin;

-- approval_requests
CREATE TABLE approval_requests (
  id bigint NOT NULL DEFAULT nextval('approval_requests_id_seq'::regclass),
  subject text NOT NULL,
  batch_id text,
  environment text NOT NULL,
  currency text NOT NULL,
  external_id text,
  phone_number text,
  amount bigint NOT NULL,
  row_count integer NOT NULL,
  digest text NOT NULL,
  approvals_required smallint NOT NULL,
  approver_role text NOT NULL,
  approvals_given smallint NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'awaiting'::text,
  requested_by text NOT NULL DEFAULT SESSION_USER,
  requested_at timestamp with time zone NOT NULL DEFAULT clock_timestamp(),
  decided_by text,
  decided_at timestamp with time zone,
  remark text,
  kind text NOT NULL DEFAULT 'payout'::text,
  profile_id text,
  account jsonb,
  request jsonb,
  spent_by_entry text,
  spent_at timestamp with time zone
);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_amount_check CHECK (amount >= 0);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_approvals_required_check CHECK (approvals_required >= 1 AND approvals_required <= 2);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES batches(id);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_check CHECK ((subject = 'batch'::text) = (batch_id IS NOT NULL));
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_kind_check CHECK (kind = 'payout'::text);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_pkey PRIMARY KEY (id);
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_state_check CHECK (state = ANY (ARRAY['awaiting'::text, 'approved'::text, 'rejected'::text, 'withdrawn'::text, 'void'::text]));
ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_subject_check CHECK (subject = ANY (ARRAY['payout'::text, 'batch'::text]));
CREATE UNIQUE INDEX approval_requests_open_batch ON public.approval_requests USING btree (batch_id) WHERE (state = ANY (ARRAY['awaiting'::text, 'approved'::text]));
CREATE UNIQUE INDEX approval_requests_open_payout ON public.approval_requests USING btree (environment, external_id) WHERE ((subject = 'payout'::text) AND (state = ANY (ARRAY['awaiting'::text, 'approved'::text])));
CREATE INDEX approval_requests_waiting ON public.approval_requests USING btree (state, approver_role) WHERE (state = 'awaiting'::text);
GRANT SELECT ON TABLE approval_requests TO paydesk_admin;
GRANT SELECT ON TABLE approval_requests TO paydesk_finance;
GRANT SELECT ON TABLE approval_requests TO paydesk_support;
CREATE TRIGGER approval_requests_changed AFTER INSERT OR UPDATE ON approval_requests FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
CREATE TRIGGER approval_requests_rules BEFORE INSERT OR DELETE OR UPDATE ON approval_requests FOR EACH ROW EXECUTE FUNCTION paydesk_request_rules();

-- approval_tiers
CREATE TABLE approval_tiers (
  environment text NOT NULL,
  currency text NOT NULL,
  min_amount bigint NOT NULL,
  approvals smallint NOT NULL,
  approver_role text NOT NULL,
  updated_by text NOT NULL DEFAULT SESSION_USER
);
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_approvals_check CHECK (approvals >= 0 AND approvals <= 2);
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_approver_role_check CHECK (approver_role = ANY (ARRAY['paydesk_finance'::text, 'paydesk_admin'::text]));
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_currency_check CHECK (currency ~ '^[A-Z]{3}$'::text);
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_min_amount_check CHECK (min_amount >= 0);
ALTER TABLE approval_tiers ADD CONSTRAINT approval_tiers_pkey PRIMARY KEY (environment, currency, min_amount);
GRANT SELECT ON TABLE approval_tiers TO paydesk_admin;
GRANT SELECT ON TABLE approval_tiers TO paydesk_finance;
GRANT SELECT ON TABLE approval_tiers TO paydesk_support;
CREATE TRIGGER approval_tiers_audited AFTER INSERT OR DELETE OR UPDATE ON approval_tiers FOR EACH ROW EXECUTE FUNCTION paydesk_audit_policy();
CREATE TRIGGER approval_tiers_raise_waiting AFTER INSERT OR DELETE OR UPDATE ON approval_tiers FOR EACH STATEMENT EXECUTE FUNCTION paydesk_raise_waiting();
CREATE TRIGGER approval_tiers_who BEFORE INSERT OR UPDATE ON approval_tiers FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();

-- approval_votes
CREATE TABLE approval_votes (
  request_id bigint NOT NULL,
  voter text NOT NULL DEFAULT SESSION_USER,
  vote text NOT NULL,
  remark text,
  at timestamp with time zone NOT NULL DEFAULT clock_timestamp()
);
ALTER TABLE approval_votes ADD CONSTRAINT approval_votes_pkey PRIMARY KEY (request_id, voter);
ALTER TABLE approval_votes ADD CONSTRAINT approval_votes_request_id_fkey FOREIGN KEY (request_id) REFERENCES approval_requests(id);
ALTER TABLE approval_votes ADD CONSTRAINT approval_votes_vote_check CHECK (vote = ANY (ARRAY['approve'::text, 'reject'::text]));
GRANT SELECT ON TABLE approval_votes TO paydesk_admin;
GRANT SELECT ON TABLE approval_votes TO paydesk_finance;
GRANT SELECT ON TABLE approval_votes TO paydesk_support;
CREATE TRIGGER approval_votes_not_by_sender BEFORE INSERT ON approval_votes FOR EACH ROW EXECUTE FUNCTION paydesk_sender_never_votes();
CREATE TRIGGER approval_votes_rules BEFORE INSERT OR DELETE OR UPDATE ON approval_votes FOR EACH ROW EXECUTE FUNCTION paydesk_vote_rules();

-- audit_log
CREATE TABLE audit_log (
  id bigint NOT NULL DEFAULT nextval('audit_log_id_seq'::regclass),
  at timestamp with time zone NOT NULL DEFAULT clock_timestamp(),
  actor text NOT NULL DEFAULT SESSION_USER,
  action text NOT NULL,
  subject text,
  before jsonb,
  after jsonb,
  remark text
);
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action = ANY (ARRAY['approve'::text, 'cancel'::text, 'change_approve'::text, 'change_reject'::text, 'change_request'::text, 'change_withdraw'::text, 'confirm'::text, 'import'::text, 'join_workspace'::text, 'keys_holder_change'::text, 'leave_workspace'::text, 'pause'::text, 'person_change'::text, 'policy_change'::text, 'reject'::text, 'request_approval'::text, 'role_change'::text, 'send'::text, 'send_ask'::text, 'send_ask_answered'::text, 'sender_start'::text, 'sender_stop'::text, 'sign_in'::text, 'team_sandbox_publish'::text, 'void_approval'::text, 'withdraw'::text]));
ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);
CREATE INDEX audit_log_by_actor ON public.audit_log USING btree (actor, at);
CREATE INDEX audit_log_by_subject ON public.audit_log USING btree (subject, at);
GRANT SELECT ON TABLE audit_log TO paydesk_admin;
GRANT SELECT ON TABLE audit_log TO paydesk_finance;
GRANT SELECT ON TABLE audit_log TO paydesk_support;
CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION paydesk_audit_append_only();
CREATE TRIGGER audit_log_changed AFTER INSERT ON audit_log REFERENCING NEW TABLE AS lines_added FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_audit();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION paydesk_audit_append_only();
CREATE TRIGGER audit_log_who BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION paydesk_audit_stamp();

-- batch_rows
CREATE TABLE batch_rows (
  batch_seq bigint NOT NULL,
  row_number integer NOT NULL,
  cells text NOT NULL,
  request text,
  errors text NOT NULL,
  duplicates text NOT NULL,
  external_id text NOT NULL,
  journal_id text,
  rehearsal text,
  claimed_by text,
  claim_holder text,
  lease_until bigint,
  retry_of text,
  moved_to text
);
ALTER TABLE batch_rows ADD CONSTRAINT batch_rows_batch_seq_fkey FOREIGN KEY (batch_seq) REFERENCES batches(seq) ON DELETE CASCADE;
ALTER TABLE batch_rows ADD CONSTRAINT batch_rows_pkey PRIMARY KEY (batch_seq, row_number);
CREATE INDEX batch_rows_by_holder ON public.batch_rows USING btree (claim_holder) WHERE (claim_holder IS NOT NULL);
CREATE INDEX batch_rows_by_journal ON public.batch_rows USING btree (journal_id) WHERE (journal_id IS NOT NULL);
CREATE INDEX batch_rows_leases ON public.batch_rows USING btree (lease_until) WHERE (lease_until IS NOT NULL);
ALTER TABLE batch_rows ENABLE ROW LEVEL SECURITY;
CREATE POLICY batch_rows_add ON batch_rows AS PERMISSIVE FOR INSERT TO PUBLIC
  WITH CHECK (true);
CREATE POLICY batch_rows_change ON batch_rows AS PERMISSIVE FOR UPDATE TO PUBLIC
  USING (((claimed_by IS NULL) OR (claimed_by = SESSION_USER) OR (lease_until <= paydesk_now_ms())))
  WITH CHECK (((claimed_by IS NULL) OR (claimed_by = SESSION_USER)));
CREATE POLICY batch_rows_read ON batch_rows AS PERMISSIVE FOR SELECT TO PUBLIC
  USING (true);
CREATE POLICY batch_rows_remove ON batch_rows AS PERMISSIVE FOR DELETE TO PUBLIC
  USING (((claimed_by IS NULL) OR (lease_until <= paydesk_now_ms())));
GRANT SELECT ON TABLE batch_rows TO paydesk_admin;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE batch_rows TO paydesk_finance;
GRANT SELECT ON TABLE batch_rows TO paydesk_support;
CREATE TRIGGER batch_rows_added AFTER INSERT ON batch_rows REFERENCING NEW TABLE AS rows_added FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
CREATE TRIGGER batch_rows_by_its_sandbox_desktop BEFORE INSERT OR UPDATE OF claim_holder, lease_until ON batch_rows FOR EACH ROW WHEN (new.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_sandbox_claim_on_its_desktop();
CREATE TRIGGER batch_rows_by_keys_holder BEFORE UPDATE OF claim_holder, lease_until ON batch_rows FOR EACH ROW WHEN (new.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_sender_gate_claim();
CREATE TRIGGER batch_rows_claim BEFORE INSERT OR UPDATE ON batch_rows FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_claim();
CREATE TRIGGER batch_rows_claim_gate AFTER UPDATE ON batch_rows REFERENCING OLD TABLE AS held_before NEW TABLE AS claimed FOR EACH STATEMENT EXECUTE FUNCTION paydesk_gate_claims();
CREATE TRIGGER batch_rows_claim_while_sending BEFORE INSERT ON batch_rows FOR EACH ROW WHEN (new.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_claim_only_while_sending();
CREATE TRIGGER batch_rows_claim_while_sending_again BEFORE UPDATE ON batch_rows FOR EACH ROW WHEN (new.claim_holder IS NOT NULL AND (new.claim_holder IS DISTINCT FROM old.claim_holder OR new.claimed_by IS DISTINCT FROM old.claimed_by)) EXECUTE FUNCTION paydesk_claim_only_while_sending();
CREATE TRIGGER batch_rows_edited AFTER UPDATE ON batch_rows REFERENCING OLD TABLE AS rows_before NEW TABLE AS rows_after FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
CREATE TRIGGER batch_rows_removed AFTER DELETE ON batch_rows REFERENCING OLD TABLE AS rows_removed FOR EACH STATEMENT EXECUTE FUNCTION paydesk_notify_batch_rows();
CREATE TRIGGER batch_rows_void_approval AFTER UPDATE OF request, external_id ON batch_rows FOR EACH ROW WHEN (old.request IS DISTINCT FROM new.request OR old.external_id IS DISTINCT FROM new.external_id) EXECUTE FUNCTION paydesk_void_batch_approval();
CREATE TRIGGER batch_rows_void_approval_added AFTER INSERT OR DELETE ON batch_rows FOR EACH ROW EXECUTE FUNCTION paydesk_void_batch_approval();

-- batch_runs
CREATE TABLE batch_runs (
  batch_seq bigint NOT NULL,
  run text NOT NULL,
  login text NOT NULL DEFAULT SESSION_USER,
  alive_until bigint NOT NULL
);
ALTER TABLE batch_runs ADD CONSTRAINT batch_runs_batch_seq_fkey FOREIGN KEY (batch_seq) REFERENCES batches(seq) ON DELETE CASCADE;
ALTER TABLE batch_runs ADD CONSTRAINT batch_runs_pkey PRIMARY KEY (batch_seq, run);
ALTER TABLE batch_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY batch_runs_add ON batch_runs AS PERMISSIVE FOR INSERT TO PUBLIC
  WITH CHECK (((login = SESSION_USER) AND (alive_until <= (paydesk_now_ms() + 600000))));
CREATE POLICY batch_runs_beat ON batch_runs AS PERMISSIVE FOR UPDATE TO PUBLIC
  USING ((login = SESSION_USER))
  WITH CHECK (((login = SESSION_USER) AND (alive_until <= (paydesk_now_ms() + 600000))));
CREATE POLICY batch_runs_leave ON batch_runs AS PERMISSIVE FOR DELETE TO PUBLIC
  USING (((login = SESSION_USER) OR (alive_until <= paydesk_now_ms())));
CREATE POLICY batch_runs_read ON batch_runs AS PERMISSIVE FOR SELECT TO PUBLIC
  USING (true);
GRANT SELECT ON TABLE batch_runs TO paydesk_admin;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE batch_runs TO paydesk_finance;
GRANT SELECT ON TABLE batch_runs TO paydesk_support;

-- batches
CREATE TABLE batches (
  seq bigint NOT NULL DEFAULT nextval('batches_seq_seq'::regclass),
  id text NOT NULL,
  file_name text NOT NULL,
  file_hash text NOT NULL,
  state text NOT NULL,
  state_reason text,
  profile_id text NOT NULL,
  profile_name text NOT NULL,
  environment text NOT NULL,
  payment_method text,
  concurrency integer NOT NULL,
  retry_of text,
  rehearsal text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  created_by text NOT NULL DEFAULT SESSION_USER,
  updated_by text NOT NULL DEFAULT SESSION_USER,
  desktop_id text
);
ALTER TABLE batches ADD CONSTRAINT batches_concurrency_check CHECK (concurrency >= 1 AND concurrency <= 64);
ALTER TABLE batches ADD CONSTRAINT batches_desktop_id_check CHECK (desktop_id IS NULL OR length(desktop_id) <= 100);
ALTER TABLE batches ADD CONSTRAINT batches_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE batches ADD CONSTRAINT batches_id_key UNIQUE (id);
ALTER TABLE batches ADD CONSTRAINT batches_import_audited TRIGGER DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE batches ADD CONSTRAINT batches_pkey PRIMARY KEY (seq);
ALTER TABLE batches ADD CONSTRAINT batches_state_check CHECK (state = ANY (ARRAY['draft'::text, 'sending'::text, 'paused'::text, 'interrupted'::text, 'cancelled'::text, 'done'::text]));
CREATE INDEX batches_by_file_hash ON public.batches USING btree (file_hash);
CREATE INDEX batches_by_state ON public.batches USING btree (state);
GRANT SELECT ON TABLE batches TO paydesk_admin;
GRANT INSERT, SELECT, UPDATE ON TABLE batches TO paydesk_finance;
GRANT SELECT ON TABLE batches TO paydesk_support;
CREATE TRIGGER batches_changed AFTER INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
CREATE CONSTRAINT TRIGGER batches_import_audited AFTER INSERT ON batches DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION paydesk_audit_batch_import();
CREATE TRIGGER batches_local_sandbox_on_its_desktop BEFORE INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_batch_on_its_desktop();
CREATE TRIGGER batches_moved_void_approval AFTER UPDATE OF profile_id, environment ON batches FOR EACH ROW WHEN (new.profile_id IS DISTINCT FROM old.profile_id OR new.environment IS DISTINCT FROM old.environment) EXECUTE FUNCTION paydesk_void_batch_approval_on_move();
CREATE TRIGGER batches_state_audited AFTER UPDATE OF state ON batches FOR EACH ROW WHEN (old.state = 'draft'::text AND new.state = 'draft'::text OR new.state IS DISTINCT FROM old.state AND (new.state = ANY (ARRAY['sending'::text, 'paused'::text, 'cancelled'::text]))) EXECUTE FUNCTION paydesk_audit_batch_state();
CREATE TRIGGER batches_void_moved_approval AFTER UPDATE OF profile_id, environment ON batches FOR EACH ROW WHEN (old.profile_id IS DISTINCT FROM new.profile_id OR old.environment IS DISTINCT FROM new.environment) EXECUTE FUNCTION paydesk_void_moved_batch_approval();
CREATE TRIGGER batches_who BEFORE INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();

-- entries
CREATE TABLE entries (
  seq bigint NOT NULL DEFAULT nextval('entries_seq_seq'::regclass),
  id text NOT NULL,
  profile_id text NOT NULL,
  profile_name text NOT NULL,
  environment text NOT NULL,
  kind text NOT NULL,
  state text NOT NULL,
  resolution text,
  transaction_id text,
  external_id text,
  status text,
  failed_code text,
  amount bigint NOT NULL,
  currency text NOT NULL,
  fee bigint,
  net_amount bigint,
  phone_number text NOT NULL,
  payment_method text NOT NULL,
  customer_first_name text NOT NULL,
  customer_last_name text NOT NULL,
  customer_email text NOT NULL,
  description text,
  metadata text,
  request text,
  last_error text,
  transaction_json text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  batch_id text,
  batch_row integer,
  search_text text NOT NULL DEFAULT ''::text,
  created_by text NOT NULL DEFAULT SESSION_USER,
  updated_by text NOT NULL DEFAULT SESSION_USER,
  already_sent_at bigint,
  retry_of text,
  desktop_id text DEFAULT NULLIF(current_setting('paydesk.desktop'::text, true), ''::text),
  legacy_duplicate boolean
);
ALTER TABLE entries ADD CONSTRAINT entries_amount_check CHECK (amount >= 0);
ALTER TABLE entries ADD CONSTRAINT entries_desktop_id_check CHECK (desktop_id IS NULL OR length(desktop_id) <= 100);
ALTER TABLE entries ADD CONSTRAINT entries_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE entries ADD CONSTRAINT entries_id_key UNIQUE (id);
ALTER TABLE entries ADD CONSTRAINT entries_kind_check CHECK (kind = ANY (ARRAY['payment'::text, 'payout'::text]));
ALTER TABLE entries ADD CONSTRAINT entries_pkey PRIMARY KEY (seq);
ALTER TABLE entries ADD CONSTRAINT entries_resolution_check CHECK (resolution = 'not_found'::text);
ALTER TABLE entries ADD CONSTRAINT entries_state_check CHECK (state = ANY (ARRAY['pending'::text, 'outcome_unknown'::text, 'rejected'::text, 'known'::text]));
CREATE INDEX entries_adopted ON public.entries USING btree (profile_id, environment, created_at) WHERE (already_sent_at IS NOT NULL);
CREATE INDEX entries_by_created ON public.entries USING btree (created_at);
CREATE INDEX entries_by_first_name ON public.entries USING btree (lower(customer_first_name) text_pattern_ops);
CREATE INDEX entries_by_last_name ON public.entries USING btree (lower(customer_last_name) text_pattern_ops);
CREATE INDEX entries_by_payout ON public.entries USING btree (external_id, kind, profile_id, environment, created_at DESC, seq DESC);
CREATE INDEX entries_by_phone ON public.entries USING btree (phone_number, created_at);
CREATE INDEX entries_by_state ON public.entries USING btree (state, created_at) WHERE (state <> 'known'::text);
CREATE INDEX entries_by_status ON public.entries USING btree (status, created_at);
CREATE INDEX entries_by_transaction_id ON public.entries USING btree (transaction_id, created_at) WHERE (transaction_id IS NOT NULL);
CREATE UNIQUE INDEX entries_one_per_payout ON public.entries USING btree (external_id, kind, profile_id, environment) WHERE ((external_id IS NOT NULL) AND (legacy_duplicate IS NULL));
CREATE INDEX entries_overview ON public.entries USING btree (profile_id, environment, created_at, kind, state, status, failed_code, currency, amount);
CREATE INDEX entries_processing ON public.entries USING btree (profile_id, environment, created_at) WHERE ((state = 'known'::text) AND (status = 'processing'::text));
CREATE INDEX entries_search ON public.entries USING gin (search_text gin_trgm_ops);
ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
CREATE POLICY entries_change ON entries AS PERMISSIVE FOR UPDATE TO PUBLIC
  USING (true)
  WITH CHECK (true);
CREATE POLICY entries_looked_up ON entries AS PERMISSIVE FOR INSERT TO paydesk_support
  WITH CHECK (((state = 'known'::text) AND (transaction_id IS NOT NULL) AND (request IS NULL) AND (batch_id IS NULL) AND (batch_row IS NULL) AND (retry_of IS NULL)));
CREATE POLICY entries_read ON entries AS PERMISSIVE FOR SELECT TO PUBLIC
  USING (true);
CREATE POLICY entries_remove ON entries AS PERMISSIVE FOR DELETE TO PUBLIC
  USING (true);
CREATE POLICY entries_sent ON entries AS PERMISSIVE FOR INSERT TO paydesk_finance
  WITH CHECK (true);
GRANT SELECT ON TABLE entries TO paydesk_admin;
GRANT INSERT, SELECT, UPDATE ON TABLE entries TO paydesk_finance;
GRANT SELECT ON TABLE entries TO paydesk_support;
GRANT INSERT (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, failed_code, amount, currency, phone_number, payment_method, customer_first_name, customer_last_name, customer_email, description, metadata, transaction_json, created_at, updated_at) ON TABLE entries TO paydesk_support;
GRANT UPDATE (state, resolution, transaction_id, external_id, status, failed_code, amount, currency, fee, net_amount, last_error, transaction_json, updated_at, already_sent_at) ON TABLE entries TO paydesk_support;
CREATE TRIGGER entries_approval_gate BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment, batch_id, batch_row, profile_id ON entries FOR EACH ROW WHEN (new.kind = 'payout'::text AND new.state = 'pending'::text) EXECUTE FUNCTION paydesk_gate_entry();
CREATE TRIGGER entries_changed AFTER INSERT OR UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_notify_entry_change();
CREATE TRIGGER entries_identity_kept BEFORE UPDATE OF amount, currency, external_id, transaction_id, environment, kind, profile_id ON entries FOR EACH ROW WHEN (new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.external_id IS DISTINCT FROM old.external_id OR new.transaction_id IS DISTINCT FROM old.transaction_id OR new.environment IS DISTINCT FROM old.environment OR new.kind IS DISTINCT FROM old.kind OR new.profile_id IS DISTINCT FROM old.profile_id) EXECUTE FUNCTION paydesk_entry_identity();
CREATE TRIGGER entries_keys_with_sender BEFORE INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, profile_id ON entries FOR EACH ROW WHEN (new.state = 'pending'::text) EXECUTE FUNCTION paydesk_sender_gate_entry();
CREATE TRIGGER entries_local_sandbox_row_on_its_desktop BEFORE INSERT OR UPDATE OF state, batch_id, batch_row, profile_id ON entries FOR EACH ROW WHEN (new.state = 'pending'::text AND new.batch_id IS NOT NULL AND new.profile_id = 'local-sandbox'::text) EXECUTE FUNCTION paydesk_sandbox_row_sent_on_its_desktop();
CREATE TRIGGER entries_moved_row_unsent BEFORE INSERT OR UPDATE OF state, batch_id, batch_row ON entries FOR EACH ROW WHEN (new.state = 'pending'::text AND new.batch_id IS NOT NULL) EXECUTE FUNCTION paydesk_moved_row_unsent();
CREATE TRIGGER entries_pending_is_request BEFORE INSERT ON entries FOR EACH ROW WHEN (new.state = 'pending'::text) EXECUTE FUNCTION paydesk_pending_entry_is_its_request();
CREATE TRIGGER entries_pending_is_request_again BEFORE UPDATE ON entries FOR EACH ROW WHEN (new.state = 'pending'::text AND (old.state <> 'pending'::text OR new.request IS DISTINCT FROM old.request OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.phone_number IS DISTINCT FROM old.phone_number OR new.external_id IS DISTINCT FROM old.external_id OR new.payment_method IS DISTINCT FROM old.payment_method OR new.customer_first_name IS DISTINCT FROM old.customer_first_name OR new.customer_last_name IS DISTINCT FROM old.customer_last_name OR new.customer_email IS DISTINCT FROM old.customer_email)) EXECUTE FUNCTION paydesk_pending_entry_is_its_request();
CREATE TRIGGER entries_row_under_writers_claim BEFORE INSERT ON entries FOR EACH ROW WHEN (new.batch_id IS NOT NULL AND new.state = 'pending'::text) EXECUTE FUNCTION paydesk_claim_is_writers();
CREATE TRIGGER entries_row_under_writers_claim_again BEFORE UPDATE ON entries FOR EACH ROW WHEN (new.batch_id IS NOT NULL AND new.state = 'pending'::text AND (old.state <> 'pending'::text OR new.request IS DISTINCT FROM old.request OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.phone_number IS DISTINCT FROM old.phone_number OR new.external_id IS DISTINCT FROM old.external_id OR new.environment IS DISTINCT FROM old.environment OR new.batch_id IS DISTINCT FROM old.batch_id OR new.batch_row IS DISTINCT FROM old.batch_row)) EXECUTE FUNCTION paydesk_claim_is_writers();
CREATE TRIGGER entries_search_text BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_entries_search_text();
CREATE TRIGGER entries_search_text_changed BEFORE UPDATE OF external_id, phone_number, customer_first_name, customer_last_name ON entries FOR EACH ROW WHEN (old.external_id IS DISTINCT FROM new.external_id OR old.phone_number IS DISTINCT FROM new.phone_number OR old.customer_first_name IS DISTINCT FROM new.customer_first_name OR old.customer_last_name IS DISTINCT FROM new.customer_last_name) EXECUTE FUNCTION paydesk_entries_search_text();
CREATE TRIGGER entries_sender_answers BEFORE UPDATE OF state, resolution, status, transaction_id, failed_code, amount, currency, fee, net_amount, transaction_json ON entries FOR EACH ROW WHEN (new.state IS DISTINCT FROM old.state OR new.resolution IS DISTINCT FROM old.resolution OR new.status IS DISTINCT FROM old.status OR new.transaction_id IS DISTINCT FROM old.transaction_id OR new.failed_code IS DISTINCT FROM old.failed_code OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.fee IS DISTINCT FROM old.fee OR new.net_amount IS DISTINCT FROM old.net_amount OR new.transaction_json IS DISTINCT FROM old.transaction_json) EXECUTE FUNCTION paydesk_sender_records_answers();
CREATE TRIGGER entries_sender_answers_new BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_sender_records_answers();
CREATE TRIGGER entries_sent_again_audited AFTER UPDATE OF state, request, amount, currency, phone_number, batch_id, batch_row ON entries FOR EACH ROW WHEN (new.state = 'pending'::text AND (old.state IS DISTINCT FROM 'pending'::text OR new.request IS DISTINCT FROM old.request OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.phone_number IS DISTINCT FROM old.phone_number OR new.batch_id IS DISTINCT FROM old.batch_id OR new.batch_row IS DISTINCT FROM old.batch_row)) EXECUTE FUNCTION paydesk_audit_entry_sent();
CREATE TRIGGER entries_sent_audited AFTER INSERT ON entries FOR EACH ROW WHEN (new.state = 'pending'::text) EXECUTE FUNCTION paydesk_audit_entry_sent();
CREATE TRIGGER entries_spend_approval AFTER INSERT OR UPDATE OF state, request, amount, phone_number, external_id, currency, environment, profile_id ON entries FOR EACH ROW WHEN (new.kind = 'payout'::text AND new.state = 'pending'::text AND new.batch_id IS NULL) EXECUTE FUNCTION paydesk_spend_payout_approval();
CREATE TRIGGER entries_support_follows_up BEFORE UPDATE OF state, amount, currency, transaction_id ON entries FOR EACH ROW WHEN ((new.state = 'pending'::text AND old.state IS DISTINCT FROM 'pending'::text OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.transaction_id IS DISTINCT FROM old.transaction_id) AND NOT pg_has_role(SESSION_USER, 'paydesk_finance'::name, 'MEMBER'::text)) EXECUTE FUNCTION paydesk_support_follows_up();
CREATE TRIGGER entries_was_sent_kept BEFORE UPDATE ON entries FOR EACH ROW WHEN (((old.state = ANY (ARRAY['outcome_unknown'::text, 'known'::text])) OR old.transaction_id IS NOT NULL) AND (new.request IS DISTINCT FROM old.request OR new.phone_number IS DISTINCT FROM old.phone_number OR new.customer_first_name IS DISTINCT FROM old.customer_first_name OR new.customer_last_name IS DISTINCT FROM old.customer_last_name OR new.customer_email IS DISTINCT FROM old.customer_email OR new.payment_method IS DISTINCT FROM old.payment_method OR new.description IS DISTINCT FROM old.description OR new.metadata IS DISTINCT FROM old.metadata OR new.profile_id IS DISTINCT FROM old.profile_id OR new.profile_name IS DISTINCT FROM old.profile_name OR new.environment IS DISTINCT FROM old.environment OR new.kind IS DISTINCT FROM old.kind OR new.external_id IS DISTINCT FROM old.external_id OR new.batch_id IS DISTINCT FROM old.batch_id OR new.batch_row IS DISTINCT FROM old.batch_row OR new.state = 'pending'::text AND old.state <> 'pending'::text) OR new.amount IS DISTINCT FROM old.amount OR new.currency IS DISTINCT FROM old.currency OR new.fee IS DISTINCT FROM old.fee OR new.net_amount IS DISTINCT FROM old.net_amount OR new.transaction_id IS DISTINCT FROM old.transaction_id) EXECUTE FUNCTION paydesk_sent_entry_frozen();
CREATE TRIGGER entries_who BEFORE INSERT OR UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();

-- paydesk_schema_migrations
CREATE TABLE paydesk_schema_migrations (
  version integer NOT NULL,
  name text NOT NULL,
  applied_at timestamp with time zone NOT NULL DEFAULT now(),
  applied_by text NOT NULL DEFAULT SESSION_USER
);
ALTER TABLE paydesk_schema_migrations ADD CONSTRAINT paydesk_schema_migrations_pkey PRIMARY KEY (version);
GRANT SELECT ON TABLE paydesk_schema_migrations TO paydesk_admin;
GRANT SELECT ON TABLE paydesk_schema_migrations TO paydesk_finance;
GRANT SELECT ON TABLE paydesk_schema_migrations TO paydesk_support;

-- people
CREATE TABLE people (
  id bigint NOT NULL DEFAULT nextval('people_id_seq'::regclass),
  display_name text NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  created_at timestamp with time zone NOT NULL DEFAULT clock_timestamp(),
  created_by text NOT NULL DEFAULT SESSION_USER
);
ALTER TABLE people ADD CONSTRAINT people_display_name_check CHECK (length(display_name) >= 1 AND length(display_name) <= 120);
ALTER TABLE people ADD CONSTRAINT people_pkey PRIMARY KEY (id);
GRANT SELECT ON TABLE people TO paydesk_admin;
GRANT SELECT ON TABLE people TO paydesk_finance;
GRANT SELECT ON TABLE people TO paydesk_support;

-- person_logins
CREATE TABLE person_logins (
  login text NOT NULL,
  person_id bigint NOT NULL,
  disabled boolean NOT NULL DEFAULT false
);
ALTER TABLE person_logins ADD CONSTRAINT person_logins_person_id_fkey FOREIGN KEY (person_id) REFERENCES people(id);
ALTER TABLE person_logins ADD CONSTRAINT person_logins_pkey PRIMARY KEY (login);
CREATE INDEX person_logins_by_person ON public.person_logins USING btree (person_id);
GRANT SELECT ON TABLE person_logins TO paydesk_admin;
GRANT SELECT ON TABLE person_logins TO paydesk_finance;
GRANT SELECT ON TABLE person_logins TO paydesk_support;

-- reconciliation_rows
CREATE TABLE reconciliation_rows (
  reconciliation_id text NOT NULL,
  row_number integer NOT NULL,
  source text NOT NULL,
  external_id text,
  kind text NOT NULL,
  amount bigint,
  expected_raw text,
  expected text,
  row_date text,
  category text,
  journal_id text,
  transaction_id text,
  service_status text,
  service_amount bigint,
  service_created_at bigint,
  currency text,
  detail text,
  verified integer NOT NULL DEFAULT 0
);
ALTER TABLE reconciliation_rows ADD CONSTRAINT reconciliation_rows_expected_check CHECK (expected = ANY (ARRAY['completed'::text, 'failed'::text, 'cancelled'::text, 'processing'::text, 'not_completed'::text]));
ALTER TABLE reconciliation_rows ADD CONSTRAINT reconciliation_rows_kind_check CHECK (kind = ANY (ARRAY['payment'::text, 'payout'::text]));
ALTER TABLE reconciliation_rows ADD CONSTRAINT reconciliation_rows_pkey PRIMARY KEY (reconciliation_id, row_number);
ALTER TABLE reconciliation_rows ADD CONSTRAINT reconciliation_rows_reconciliation_id_fkey FOREIGN KEY (reconciliation_id) REFERENCES reconciliations(id) ON DELETE CASCADE;
ALTER TABLE reconciliation_rows ADD CONSTRAINT reconciliation_rows_source_check CHECK (source = ANY (ARRAY['file'::text, 'journal'::text]));
CREATE INDEX reconciliation_rows_by_category ON public.reconciliation_rows USING btree (reconciliation_id, category, row_number);
GRANT SELECT ON TABLE reconciliation_rows TO paydesk_admin;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE reconciliation_rows TO paydesk_finance;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE reconciliation_rows TO paydesk_support;

-- reconciliations
CREATE TABLE reconciliations (
  id text NOT NULL,
  file_name text NOT NULL,
  profile_id text NOT NULL,
  profile_name text NOT NULL,
  environment text NOT NULL,
  status text NOT NULL,
  phase text NOT NULL,
  total_rows integer NOT NULL,
  processing_minutes integer NOT NULL,
  period_from bigint,
  period_to bigint,
  period_source text,
  unknown_done integer NOT NULL DEFAULT 0,
  rate_limit_waits integer NOT NULL DEFAULT 0,
  currency text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  finished_at bigint,
  created_by text NOT NULL DEFAULT SESSION_USER,
  updated_by text NOT NULL DEFAULT SESSION_USER,
  ignored_columns text
);
ALTER TABLE reconciliations ADD CONSTRAINT reconciliations_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE reconciliations ADD CONSTRAINT reconciliations_period_source_check CHECK (period_source = ANY (ARRAY['file'::text, 'picked'::text]));
ALTER TABLE reconciliations ADD CONSTRAINT reconciliations_phase_check CHECK (phase = ANY (ARRAY['matching'::text, 'verifying'::text]));
ALTER TABLE reconciliations ADD CONSTRAINT reconciliations_pkey PRIMARY KEY (id);
ALTER TABLE reconciliations ADD CONSTRAINT reconciliations_status_check CHECK (status = ANY (ARRAY['importing'::text, 'running'::text, 'done'::text, 'cancelled'::text, 'interrupted'::text]));
CREATE INDEX reconciliations_by_created ON public.reconciliations USING btree (created_at);
GRANT SELECT ON TABLE reconciliations TO paydesk_admin;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE reconciliations TO paydesk_finance;
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE reconciliations TO paydesk_support;
CREATE TRIGGER reconciliations_changed AFTER INSERT OR UPDATE ON reconciliations FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
CREATE TRIGGER reconciliations_who BEFORE INSERT OR UPDATE ON reconciliations FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_who();

-- send_asks
CREATE TABLE send_asks (
  id bigint NOT NULL DEFAULT nextval('send_asks_id_seq'::regclass),
  kind text NOT NULL,
  profile_id text NOT NULL,
  batch_id text,
  entry_id text,
  request jsonb,
  asked_by text NOT NULL DEFAULT SESSION_USER,
  asked_at bigint NOT NULL DEFAULT paydesk_now_ms(),
  state text NOT NULL DEFAULT 'waiting'::text,
  taken_by text,
  taken_holder text,
  lease_until bigint,
  entry_result text,
  answer jsonb,
  finished_at bigint
);
ALTER TABLE send_asks ADD CONSTRAINT send_asks_check CHECK (
CASE kind
    WHEN 'payout'::text THEN request IS NOT NULL AND batch_id IS NULL AND entry_id IS NULL
    WHEN 'batch'::text THEN batch_id IS NOT NULL AND request IS NULL AND entry_id IS NULL
    ELSE entry_id IS NOT NULL AND request IS NULL AND batch_id IS NULL
END);
ALTER TABLE send_asks ADD CONSTRAINT send_asks_kind_check CHECK (kind = ANY (ARRAY['payout'::text, 'batch'::text, 'resend'::text]));
ALTER TABLE send_asks ADD CONSTRAINT send_asks_pkey PRIMARY KEY (id);
ALTER TABLE send_asks ADD CONSTRAINT send_asks_state_check CHECK (state = ANY (ARRAY['waiting'::text, 'taken'::text, 'done'::text, 'refused'::text]));
CREATE INDEX send_asks_open ON public.send_asks USING btree (id) WHERE (state = ANY (ARRAY['waiting'::text, 'taken'::text]));
ALTER TABLE send_asks ENABLE ROW LEVEL SECURITY;
CREATE POLICY send_asks_answer ON send_asks AS PERMISSIVE FOR UPDATE TO PUBLIC
  USING (pg_has_role(SESSION_USER, 'paydesk_sender'::name, 'MEMBER'::text))
  WITH CHECK (pg_has_role(SESSION_USER, 'paydesk_sender'::name, 'MEMBER'::text));
CREATE POLICY send_asks_ask ON send_asks AS PERMISSIVE FOR INSERT TO PUBLIC
  WITH CHECK (pg_has_role(SESSION_USER, 'paydesk_finance'::name, 'MEMBER'::text));
CREATE POLICY send_asks_read ON send_asks AS PERMISSIVE FOR SELECT TO PUBLIC
  USING (true);
GRANT SELECT ON TABLE send_asks TO paydesk_admin;
GRANT SELECT ON TABLE send_asks TO paydesk_finance;
GRANT SELECT ON TABLE send_asks TO paydesk_support;
GRANT INSERT (kind, profile_id, batch_id, entry_id, request) ON TABLE send_asks TO paydesk_finance;
GRANT UPDATE (state, taken_holder, lease_until, entry_result, answer, finished_at) ON TABLE send_asks TO paydesk_sender;
CREATE TRIGGER send_asks_audited AFTER INSERT OR UPDATE OF state ON send_asks FOR EACH ROW EXECUTE FUNCTION paydesk_send_ask_audited();
CREATE TRIGGER send_asks_stamp BEFORE INSERT OR UPDATE ON send_asks FOR EACH ROW EXECUTE FUNCTION paydesk_send_ask_stamp();

-- team_profiles
CREATE TABLE team_profiles (
  id text NOT NULL,
  name text NOT NULL,
  environment text NOT NULL,
  base_url text NOT NULL,
  header_word text NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL DEFAULT SESSION_USER,
  keys_held_by text NOT NULL DEFAULT 'desktops'::text
);
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_base_url_check CHECK (base_url ~ '^https?://'::text AND length(base_url) <= 500);
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_environment_check CHECK (environment = ANY (ARRAY['sandbox'::text, 'live'::text]));
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_header_word_check CHECK (header_word ~ '^[A-Za-z0-9]{1,32}$'::text);
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_id_check CHECK (length(id) >= 1 AND length(id) <= 200);
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_keys_held_by_check CHECK (keys_held_by = ANY (ARRAY['desktops'::text, 'sender'::text]));
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_name_check CHECK (length(name) >= 1 AND length(name) <= 80);
ALTER TABLE team_profiles ADD CONSTRAINT team_profiles_pkey PRIMARY KEY (id);
ALTER TABLE team_profiles ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_profiles_admin_delete ON team_profiles AS PERMISSIVE FOR DELETE TO PUBLIC
  USING (pg_has_role(SESSION_USER, 'paydesk_admin'::name, 'MEMBER'::text));
CREATE POLICY team_profiles_admin_insert ON team_profiles AS PERMISSIVE FOR INSERT TO PUBLIC
  WITH CHECK (pg_has_role(SESSION_USER, 'paydesk_admin'::name, 'MEMBER'::text));
CREATE POLICY team_profiles_admin_update ON team_profiles AS PERMISSIVE FOR UPDATE TO PUBLIC
  USING (pg_has_role(SESSION_USER, 'paydesk_admin'::name, 'MEMBER'::text))
  WITH CHECK (pg_has_role(SESSION_USER, 'paydesk_admin'::name, 'MEMBER'::text));
CREATE POLICY team_profiles_read ON team_profiles AS PERMISSIVE FOR SELECT TO PUBLIC
  USING ((pg_has_role(SESSION_USER, 'paydesk_finance'::name, 'MEMBER'::text) OR pg_has_role(SESSION_USER, 'paydesk_support'::name, 'MEMBER'::text) OR pg_has_role(SESSION_USER, 'paydesk_admin'::name, 'MEMBER'::text)));
GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE team_profiles TO paydesk_admin;
GRANT SELECT ON TABLE team_profiles TO paydesk_finance;
GRANT SELECT ON TABLE team_profiles TO paydesk_support;
CREATE TRIGGER team_profiles_changed AFTER INSERT OR DELETE OR UPDATE ON team_profiles FOR EACH ROW EXECUTE FUNCTION paydesk_notify_team_profile();
CREATE TRIGGER team_profiles_keys_holder_audited AFTER UPDATE OF keys_held_by ON team_profiles FOR EACH ROW WHEN (old.keys_held_by IS DISTINCT FROM new.keys_held_by) EXECUTE FUNCTION paydesk_audit_keys_holder();
CREATE TRIGGER team_profiles_keys_holder_audited_new AFTER INSERT ON team_profiles FOR EACH ROW WHEN (new.keys_held_by = 'sender'::text) EXECUTE FUNCTION paydesk_audit_keys_holder();
CREATE TRIGGER team_profiles_who BEFORE INSERT OR UPDATE ON team_profiles FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();

-- team_sandbox
CREATE TABLE team_sandbox (
  id boolean NOT NULL DEFAULT true,
  profile_id text NOT NULL,
  base_url text NOT NULL,
  control_url text NOT NULL,
  control_token text NOT NULL,
  published_by text NOT NULL DEFAULT SESSION_USER,
  published_at timestamp with time zone NOT NULL DEFAULT clock_timestamp()
);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_base_url_check CHECK (base_url ~ '^https?://'::text AND length(base_url) <= 500);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_control_token_check CHECK (control_token ~ '^[A-Za-z0-9._~+/=-]{16,200}$'::text);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_control_url_check CHECK (control_url ~ '^https?://'::text AND length(control_url) <= 500);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_id_check CHECK (id);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_pkey PRIMARY KEY (id);
ALTER TABLE team_sandbox ADD CONSTRAINT team_sandbox_profile_id_check CHECK (profile_id = 'team-sandbox'::text);
GRANT SELECT (id, profile_id, base_url, control_url, control_token, published_by, published_at) ON TABLE team_sandbox TO paydesk_admin;
GRANT SELECT (id, profile_id, base_url, published_by, published_at) ON TABLE team_sandbox TO paydesk_finance;
GRANT SELECT (id, profile_id, base_url, published_by, published_at) ON TABLE team_sandbox TO paydesk_support;

-- team_settings
CREATE TABLE team_settings (
  key text NOT NULL,
  value jsonb NOT NULL,
  updated_at bigint NOT NULL,
  updated_by text NOT NULL DEFAULT SESSION_USER
);
ALTER TABLE team_settings ADD CONSTRAINT team_settings_pkey PRIMARY KEY (key);
GRANT INSERT, SELECT, UPDATE ON TABLE team_settings TO paydesk_admin;
GRANT SELECT ON TABLE team_settings TO paydesk_finance;
GRANT SELECT ON TABLE team_settings TO paydesk_support;
CREATE TRIGGER team_settings_changed AFTER INSERT OR UPDATE ON team_settings FOR EACH ROW EXECUTE FUNCTION paydesk_notify_change();
CREATE TRIGGER team_settings_who BEFORE INSERT OR UPDATE ON team_settings FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_setting();

-- timeline
CREATE TABLE timeline (
  id bigint NOT NULL DEFAULT nextval('timeline_id_seq'::regclass),
  entry_seq bigint NOT NULL,
  type text NOT NULL,
  at bigint NOT NULL,
  status text,
  http_status integer,
  code text,
  message text,
  outcome text,
  recorded_by text NOT NULL DEFAULT SESSION_USER
);
ALTER TABLE timeline ADD CONSTRAINT timeline_entry_seq_fkey FOREIGN KEY (entry_seq) REFERENCES entries(seq) ON DELETE CASCADE;
ALTER TABLE timeline ADD CONSTRAINT timeline_outcome_check CHECK (outcome = ANY (ARRAY['not-sent'::text, 'unknown'::text]));
ALTER TABLE timeline ADD CONSTRAINT timeline_pkey PRIMARY KEY (id);
CREATE INDEX timeline_by_entry ON public.timeline USING btree (entry_seq, id);
GRANT SELECT ON TABLE timeline TO paydesk_admin;
GRANT INSERT, SELECT ON TABLE timeline TO paydesk_finance;
GRANT INSERT, SELECT ON TABLE timeline TO paydesk_support;
CREATE TRIGGER timeline_append_only BEFORE DELETE OR UPDATE ON timeline FOR EACH ROW EXECUTE FUNCTION paydesk_timeline_append_only();
CREATE TRIGGER timeline_no_truncate BEFORE TRUNCATE ON timeline FOR EACH STATEMENT EXECUTE FUNCTION paydesk_timeline_append_only();
CREATE TRIGGER timeline_who BEFORE INSERT ON timeline FOR EACH ROW EXECUTE FUNCTION paydesk_stamp_recorded();


-- ================================================================================================
-- Sequences (their grants)
-- ================================================================================================

GRANT SELECT, USAGE ON SEQUENCE batches_seq_seq TO paydesk_finance;
GRANT SELECT, USAGE ON SEQUENCE batches_seq_seq TO paydesk_support;
GRANT SELECT, USAGE ON SEQUENCE entries_seq_seq TO paydesk_finance;
GRANT SELECT, USAGE ON SEQUENCE entries_seq_seq TO paydesk_support;
GRANT USAGE ON SEQUENCE send_asks_id_seq TO paydesk_finance;
GRANT SELECT, USAGE ON SEQUENCE timeline_id_seq TO paydesk_finance;
GRANT SELECT, USAGE ON SEQUENCE timeline_id_seq TO paydesk_support;

-- ================================================================================================
-- Functions: settings, body, who may execute
-- ================================================================================================

-- paydesk_admin_people(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_admin_people()
 RETURNS integer
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT count(DISTINCT paydesk_person_of(r.rolname))::int FROM pg_catalog.pg_roles r
    WHERE r.rolcanlogin AND NOT r.rolsuper AND pg_catalog.pg_has_role(r.oid, 'paydesk_admin', 'MEMBER')
      AND NOT EXISTS (SELECT FROM person_logins l WHERE l.login = r.rolname AND l.disabled)
  $function$;
REVOKE EXECUTE ON FUNCTION paydesk_admin_people() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_admin_people() TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_admin_people() TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_admin_people() TO paydesk_support;

-- paydesk_approval_need(text,text,bigint): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_approval_need(p_environment text, p_currency text, p_amount bigint, OUT approvals smallint, OUT approver_role text)
 RETURNS record
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT coalesce(max(t.approvals), 0)::smallint, (array_agg(t.approver_role ORDER BY t.approvals DESC))[1]
    FROM (SELECT DISTINCT ON (currency) approvals, approver_role FROM approval_tiers
          WHERE environment = p_environment AND (p_currency IS NULL OR currency = p_currency) AND min_amount <= p_amount
          ORDER BY currency, min_amount DESC) t
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_approval_need(text,text,bigint) TO PUBLIC;

-- paydesk_approvals_counted(bigint): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_approvals_counted(p_id bigint)
 RETURNS integer
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT count(*)::int FROM approval_votes v JOIN approval_requests r ON r.id = v.request_id
    WHERE v.request_id = p_id AND v.vote = 'approve' AND v.voter <> r.requested_by AND pg_has_role(v.voter, r.approver_role, 'MEMBER')
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_approvals_counted(bigint) TO PUBLIC;

-- paydesk_approve(bigint,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_approve(p_id bigint, p_digest text, p_remark text DEFAULT NULL::text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_approve(bigint,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_approve(bigint,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_approve(bigint,text,text) TO paydesk_finance;

-- paydesk_approve_change(bigint,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_approve_change(p_id bigint, p_remark text DEFAULT NULL::text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_approve_change(bigint,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_approve_change(bigint,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_approve_change(bigint,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_approve_change(bigint,text) TO paydesk_support;

-- paydesk_ask_add_person(text,text,text,text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_add_person(p_login text, p_role text, p_display_name text, p_verifier text, p_same_person_as text DEFAULT NULL::text, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_add_person(text,text,text,text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_ask_add_person(text,text,text,text,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_ask_add_person(text,text,text,text,text,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_ask_add_person(text,text,text,text,text,text) TO paydesk_support;

-- paydesk_ask_change(text,jsonb,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_change(p_kind text, p_change jsonb, p_verifier text, p_remark text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    id bigint;
  BEGIN
    INSERT INTO admin_changes (kind, change, verifier, requested_by_person, remark)
      VALUES (p_kind, p_change, p_verifier, paydesk_person_of(session_user), p_remark) RETURNING admin_changes.id INTO id;
    PERFORM paydesk_audit_write('change_request', 'change:' || id, NULL, jsonb_build_object('kind', p_kind, 'change', p_change), p_remark);
    RETURN id;
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_change(text,jsonb,text,text) FROM PUBLIC;

-- paydesk_ask_disable_login(text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_disable_login(p_login text, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('disable_login', jsonb_build_object('login', p_login), NULL, p_remark);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_disable_login(text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_ask_disable_login(text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_ask_disable_login(text,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_ask_disable_login(text,text) TO paydesk_support;

-- paydesk_ask_policy(text,text,jsonb,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_policy(p_environment text, p_currency text, p_tiers jsonb, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_policy(text,text,jsonb,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_ask_policy(text,text,jsonb,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_ask_policy(text,text,jsonb,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_ask_policy(text,text,jsonb,text) TO paydesk_support;

-- paydesk_ask_reset_password(text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_reset_password(p_login text, p_verifier text, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_check_person_input(NULL, NULL, NULL, p_verifier);
    IF p_verifier IS NULL THEN RAISE EXCEPTION 'a new password is needed' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('reset_password', jsonb_build_object('login', p_login), p_verifier, p_remark);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_reset_password(text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_ask_reset_password(text,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_ask_reset_password(text,text,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_ask_reset_password(text,text,text) TO paydesk_support;

-- paydesk_ask_role(text,text,boolean,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ask_role(p_login text, p_role text, p_member boolean, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_assert_admin();
    PERFORM paydesk_check_person_input(NULL, p_role, NULL, NULL);
    IF p_role IS NULL OR p_member IS NULL THEN RAISE EXCEPTION 'a role change names the role and whether the login holds it' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    RETURN paydesk_ask_change('role', jsonb_build_object('login', p_login, 'role', p_role, 'member', p_member), NULL, p_remark);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ask_role(text,text,boolean,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_ask_role(text,text,boolean,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_ask_role(text,text,boolean,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_ask_role(text,text,boolean,text) TO paydesk_support;

-- paydesk_assert_admin(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_assert_admin()
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')
       OR EXISTS (SELECT FROM person_logins WHERE login = session_user AND disabled) THEN
      RAISE EXCEPTION 'only a workspace admin changes the policy, roles or people; % is not one', session_user USING ERRCODE = 'PD030';
    END IF;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_assert_admin() TO PUBLIC;

-- paydesk_assert_batch_send(bigint,text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_assert_batch_send(p_batch_seq bigint, p_currency text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_assert_batch_send(bigint,text) TO PUBLIC;

-- paydesk_assert_member_login(text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_assert_member_login(p_login text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_assert_member_login(text) FROM PUBLIC;

-- paydesk_assert_payout_send(text,text,text,bigint,jsonb,text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_assert_payout_send(p_environment text, p_profile_id text, p_currency text, p_amount bigint, p_request jsonb, p_entry_id text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_assert_payout_send(text,text,text,bigint,jsonb,text) TO PUBLIC;

-- paydesk_audit(text,text,jsonb,jsonb,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit(p_action text, p_subject text, p_before jsonb DEFAULT NULL::jsonb, p_after jsonb DEFAULT NULL::jsonb, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF p_action IS NULL OR NOT p_action = ANY (ARRAY['sign_in', 'import', 'confirm', 'send', 'pause', 'cancel', 'leave_workspace', 'join_workspace']) THEN
      RAISE EXCEPTION 'a desktop cannot record "%" in the audit log: only the database writes it', p_action USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN paydesk_audit_write(p_action, p_subject, p_before, p_after, p_remark);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_audit(text,text,jsonb,jsonb,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_audit(text,text,jsonb,jsonb,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_audit(text,text,jsonb,jsonb,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_audit(text,text,jsonb,jsonb,text) TO paydesk_support;

-- paydesk_audit_append_only(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_append_only() TO PUBLIC;

-- paydesk_audit_batch_import(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_batch_import()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_audit_write('import', 'batch:' || NEW.id, NULL,
      jsonb_build_object('file', NEW.file_name, 'rows', (SELECT count(*) FROM batch_rows WHERE batch_seq = NEW.seq),
        'profile', NEW.profile_name, 'environment', NEW.environment, 'retryOf', NEW.retry_of), NULL);
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_batch_import() TO PUBLIC;

-- paydesk_audit_batch_state(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_batch_state()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF OLD.state = 'draft' AND NEW.state = 'draft' THEN
      PERFORM paydesk_audit_write('confirm', 'batch:' || NEW.id,
        jsonb_build_object('profile', OLD.profile_name, 'environment', OLD.environment),
        jsonb_build_object('profile', NEW.profile_name, 'environment', NEW.environment,
          'rows', (SELECT count(*) FROM batch_rows WHERE batch_seq = NEW.seq AND request IS NOT NULL)), NULL);
    ELSIF NEW.state IS DISTINCT FROM OLD.state AND NEW.state IN ('sending', 'paused', 'cancelled') THEN
      PERFORM paydesk_audit_write(CASE NEW.state WHEN 'sending' THEN 'send' WHEN 'paused' THEN 'pause' ELSE 'cancel' END, 'batch:' || NEW.id,
        jsonb_build_object('state', OLD.state),
        jsonb_build_object('state', NEW.state, 'environment', NEW.environment, 'reason', NEW.state_reason), NULL);
    END IF;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_batch_state() TO PUBLIC;

-- paydesk_audit_entry_sent(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_entry_sent()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    INSERT INTO audit_log (action, subject, before, after) VALUES ('send', 'entry:' || NEW.id,
      CASE WHEN TG_OP = 'UPDATE' THEN jsonb_build_object('state', OLD.state, 'resolution', OLD.resolution, 'amount', OLD.amount, 'currency', OLD.currency,
        'phone', OLD.phone_number, 'batchId', OLD.batch_id, 'batchRow', OLD.batch_row) END,
      jsonb_build_object('state', NEW.state, 'kind', NEW.kind, 'amount', NEW.amount, 'currency', NEW.currency, 'phone', NEW.phone_number,
        'externalId', NEW.external_id, 'environment', NEW.environment, 'profile', NEW.profile_name, 'batchId', NEW.batch_id, 'batchRow', NEW.batch_row));
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_entry_sent() TO PUBLIC;

-- paydesk_audit_keys_holder(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_keys_holder()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_audit_write('keys_holder_change', 'team_profile:' || NEW.id,
      jsonb_build_object('keysHeldBy', CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.keys_held_by END), jsonb_build_object('keysHeldBy', NEW.keys_held_by), NULL);
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_keys_holder() TO PUBLIC;

-- paydesk_audit_policy(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_policy()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_audit_write('policy_change',
      coalesce(NEW.environment, OLD.environment) || '/' || coalesce(NEW.currency, OLD.currency),
      CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END,
      CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END, NULL);
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_policy() TO PUBLIC;

-- paydesk_audit_stamp(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_stamp()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    NEW.actor := session_user;
    NEW.at := clock_timestamp();
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_audit_stamp() TO PUBLIC;

-- paydesk_audit_write(text,text,jsonb,jsonb,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audit_write(p_action text, p_subject text, p_before jsonb, p_after jsonb, p_remark text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    written bigint;
  BEGIN
    INSERT INTO audit_log (action, subject, before, after, remark) VALUES (p_action, p_subject, p_before, p_after, p_remark) RETURNING id INTO written;
    RETURN written;
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_audit_write(text,text,jsonb,jsonb,text) FROM PUBLIC;

-- paydesk_audited_request(approval_requests): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_audited_request(r approval_requests)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT (to_jsonb(r) - 'request' - 'account') || jsonb_strip_nulls(jsonb_build_object(
      'recipient', nullif(btrim(coalesce(r.request->'customer'->>'first_name', '') || ' ' || coalesce(r.request->'customer'->>'last_name', '')), ''),
      'description', r.request->>'description', 'account', r.account->>'baseUrl'))
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_audited_request(approval_requests) TO PUBLIC;

-- paydesk_batch_digest(bigint,text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_batch_digest(p_batch_seq bigint, p_currency text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT encode(sha256(convert_to(jsonb_build_array('batch/43', b.environment, 'payout', b.profile_id, paydesk_profile_account(b.profile_id), p_currency, coalesce(
      (SELECT jsonb_agg(jsonb_build_array(br.row_number, br.external_id, br.request::jsonb) ORDER BY br.row_number)
       FROM batch_rows br WHERE br.batch_seq = b.seq AND br.request IS NOT NULL), '[]'::jsonb))::text, 'UTF8')), 'hex')
    FROM batches b WHERE b.seq = p_batch_seq
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_batch_digest(bigint,text) TO PUBLIC;

-- paydesk_batch_on_its_desktop(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_batch_on_its_desktop()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF TG_OP = 'INSERT' OR NEW.profile_id IS DISTINCT FROM OLD.profile_id THEN
      NEW.desktop_id := NULLIF(current_setting('paydesk.desktop', true), '');
    ELSE
      NEW.desktop_id := OLD.desktop_id;
    END IF;
    -- OLD.created_by: batches_who, which keeps it, fires after this trigger (an UPDATE naming created_by changes nothing here).
    IF TG_OP = 'UPDATE' AND NEW.state = 'sending' AND OLD.state IS DISTINCT FROM 'sending'
      AND paydesk_sandbox_batch_elsewhere(NEW.profile_id, NEW.desktop_id, OLD.created_by) THEN
      RAISE EXCEPTION 'batch % is on the Local sandbox of another desktop: only that desktop sends it (a batch the team sends together goes on the Team sandbox)', NEW.id
        USING ERRCODE = 'PD050';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_batch_on_its_desktop() TO PUBLIC;

-- paydesk_batch_total(bigint): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_batch_total(p_batch_seq bigint, OUT total bigint, OUT row_count integer)
 RETURNS record
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT coalesce(sum((request::jsonb->>'amount')::bigint), 0)::bigint, count(*)::int FROM batch_rows WHERE batch_seq = p_batch_seq AND request IS NOT NULL
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_batch_total(bigint) TO PUBLIC;

-- paydesk_check_person_input(text,text,text,text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_check_person_input(p_login text, p_role text, p_display_name text, p_verifier text)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_check_person_input(text,text,text,text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_check_person_input(text,text,text,text) TO paydesk_admin;

-- paydesk_claim_is_writers(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_claim_is_writers()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    held record;
  BEGIN
    SELECT br.claim_holder, br.claimed_by, br.lease_until > paydesk_now_ms() AS live INTO held
      FROM batches b JOIN batch_rows br ON br.batch_seq = b.seq WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row;
    IF NOT FOUND OR held.claim_holder IS NULL OR held.claimed_by IS DISTINCT FROM session_user OR held.live IS NOT TRUE THEN
      RAISE EXCEPTION 'batch % row %: its entry is written only under a live claim of that row held by the login writing it (%)', NEW.batch_id, NEW.batch_row, session_user
        USING ERRCODE = 'insufficient_privilege',
          DETAIL = CASE WHEN held.claim_holder IS NULL THEN 'the row is not claimed' WHEN held.live IS NOT TRUE THEN 'its claim has run out' ELSE 'held by ' || held.claimed_by END;
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_claim_is_writers() TO PUBLIC;

-- paydesk_claim_only_while_sending(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_claim_only_while_sending()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    batch_state text := (SELECT state FROM batches WHERE seq = NEW.batch_seq);
  BEGIN
    IF batch_state IS DISTINCT FROM 'sending' THEN
      RAISE EXCEPTION 'batch row %: rows are claimed only while their batch is being sent (it is %)', NEW.row_number, batch_state
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_claim_only_while_sending() TO PUBLIC;

-- paydesk_current_digest(approval_requests): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_current_digest(r approval_requests)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT CASE r.subject
      WHEN 'batch' THEN paydesk_batch_digest((SELECT seq FROM batches WHERE id = r.batch_id), r.currency)
      ELSE paydesk_payout_digest(r.environment, r.kind, r.profile_id, paydesk_profile_account(r.profile_id), r.currency, r.request) END
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_current_digest(approval_requests) TO PUBLIC;

-- paydesk_do_add_person(text,text,text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_do_add_person(p_login text, p_role text, p_display_name text, p_verifier text, p_same_person_as text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_do_add_person(text,text,text,text,text) FROM PUBLIC;

-- paydesk_do_disable_login(text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_do_disable_login(p_login text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    person bigint;
  BEGIN
    PERFORM paydesk_assert_member_login(p_login);
    person := paydesk_ensure_person(p_login);
    EXECUTE pg_catalog.format('ALTER ROLE %I NOLOGIN', p_login);
    UPDATE person_logins SET disabled = true WHERE login = p_login;
    UPDATE people SET disabled = NOT EXISTS (SELECT FROM person_logins WHERE person_id = person AND NOT disabled) WHERE id = person;
    PERFORM paydesk_audit_write('person_change', 'login:' || p_login, jsonb_build_object('disabled', false), jsonb_build_object('disabled', true), 'login disabled');
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_do_disable_login(text) FROM PUBLIC;

-- paydesk_do_reset_password(text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_do_reset_password(p_login text, p_verifier text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_check_person_input(NULL, NULL, NULL, p_verifier);
    IF p_verifier IS NULL THEN RAISE EXCEPTION 'a new password is needed' USING ERRCODE = 'PD032'; END IF;
    PERFORM paydesk_assert_member_login(p_login);
    PERFORM paydesk_ensure_person(p_login);
    EXECUTE pg_catalog.format('ALTER ROLE %I PASSWORD %L', p_login, p_verifier);
    PERFORM paydesk_audit_write('person_change', 'login:' || p_login, NULL, jsonb_build_object('login', p_login), 'password reset');
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_do_reset_password(text,text) FROM PUBLIC;

-- paydesk_do_set_policy(jsonb): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_do_set_policy(p_change jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    DELETE FROM approval_tiers WHERE environment = p_change->>'environment' AND currency = p_change->>'currency'
      AND NOT (min_amount = ANY (ARRAY(SELECT (t->>'minAmount')::bigint FROM jsonb_array_elements(p_change->'tiers') t)));
    -- Unchanged tiers are not written: the audit log holds only what changed.
    INSERT INTO approval_tiers (environment, currency, min_amount, approvals, approver_role)
      SELECT p_change->>'environment', p_change->>'currency', (t->>'minAmount')::bigint, (t->>'approvals')::smallint, t->>'approverRole'
      FROM jsonb_array_elements(p_change->'tiers') t
      ON CONFLICT (environment, currency, min_amount) DO UPDATE SET approvals = EXCLUDED.approvals, approver_role = EXCLUDED.approver_role
      WHERE (approval_tiers.approvals, approval_tiers.approver_role) IS DISTINCT FROM (EXCLUDED.approvals, EXCLUDED.approver_role);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_do_set_policy(jsonb) FROM PUBLIC;

-- paydesk_do_set_role(text,text,boolean): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_do_set_role(p_login text, p_role text, p_member boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_do_set_role(text,text,boolean) FROM PUBLIC;

-- paydesk_ensure_person(text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_ensure_person(p_login text)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    found bigint;
  BEGIN
    SELECT person_id INTO found FROM person_logins WHERE login = p_login;
    IF found IS NULL THEN
      INSERT INTO people (display_name) VALUES (p_login) RETURNING id INTO found;
      INSERT INTO person_logins (login, person_id) VALUES (p_login, found);
    END IF;
    RETURN found;
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_ensure_person(text) FROM PUBLIC;

-- paydesk_entries_search_text(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_entries_search_text()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      BEGIN
        NEW.search_text := lower(unaccent(coalesce(NEW.external_id, '') || ' ' || NEW.phone_number || ' '
          || NEW.customer_first_name || ' ' || NEW.customer_last_name));
        RETURN NEW;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_entries_search_text() TO PUBLIC;

-- paydesk_entry_identity(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_entry_identity()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF NEW.environment IS DISTINCT FROM OLD.environment OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.profile_id IS DISTINCT FROM OLD.profile_id
       OR (OLD.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id)
       OR (OLD.transaction_id IS NOT NULL AND NEW.transaction_id IS NULL) THEN
      RAISE EXCEPTION 'entry %: its environment, kind, profile and external id never change once written, nor is its transaction id removed', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency)
       AND NOT (OLD.transaction_id IS NULL AND (OLD.state = 'pending' OR NEW.state = 'pending' OR NEW.transaction_id IS NOT NULL)) THEN
      RAISE EXCEPTION 'entry %: its amount and currency change only while it is being sent, or with the service''s first answer', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_entry_identity() TO PUBLIC;

-- paydesk_gate_claims(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_gate_claims()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    claimed_seq bigint;
  BEGIN
    FOR claimed_seq IN
      SELECT DISTINCT n.batch_seq FROM claimed n LEFT JOIN held_before o USING (batch_seq, row_number)
      WHERE n.claim_holder IS NOT NULL
        AND (o.batch_seq IS NULL OR (n.claim_holder, n.claimed_by, n.lease_until) IS DISTINCT FROM (o.claim_holder, o.claimed_by, o.lease_until))
    LOOP
      -- Nothing binds the batch (as in paydesk_gate_entry): paydesk_assert_batch_send would pass.
      CONTINUE WHEN NOT EXISTS (SELECT FROM batches b JOIN approval_requests r ON r.batch_id = b.id AND r.state IN ('awaiting', 'approved') WHERE b.seq = claimed_seq)
        AND NOT EXISTS (SELECT FROM batches b JOIN approval_tiers t ON t.environment = b.environment AND t.approvals > 0 WHERE b.seq = claimed_seq);
      PERFORM paydesk_assert_batch_send(claimed_seq, NULL);
    END LOOP;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_gate_claims() TO PUBLIC;

-- paydesk_gate_entry(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_gate_entry()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_gate_entry() TO PUBLIC;

-- paydesk_hold_approval(text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_hold_approval(p_batch_id text, p_environment text, p_external_id text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF p_batch_id IS NOT NULL THEN
      PERFORM FROM approval_requests WHERE state = 'approved' AND batch_id = p_batch_id FOR SHARE;
    ELSE
      PERFORM FROM approval_requests WHERE state = 'approved' AND subject = 'payout' AND environment = p_environment AND external_id = p_external_id FOR UPDATE;
    END IF;
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_hold_approval(text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_hold_approval(text,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_hold_approval(text,text,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_hold_approval(text,text,text) TO paydesk_support;

-- paydesk_moved_row_unsent(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_moved_row_unsent()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    moved text;
  BEGIN
    IF NEW.state <> 'pending' OR NEW.batch_id IS NULL THEN RETURN NEW; END IF;
    -- Locked whatever its moved_to: a move in progress is waited for, then its value read.
    SELECT br.moved_to INTO moved FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
      WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row FOR SHARE OF br;
    IF moved IS NOT NULL THEN
      RAISE EXCEPTION 'batch % row % was moved to batch %: it is never sent by this one', NEW.batch_id, NEW.batch_row, moved USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_moved_row_unsent() TO PUBLIC;

-- paydesk_notify_audit(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_notify_audit()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    DECLARE
      newest bigint;
    BEGIN
      SELECT max(id) INTO newest FROM lines_added;
      IF newest IS NOT NULL THEN
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'audit_log', 'id', newest::text, 'batchId', NULL)::text);
      END IF;
      RETURN NULL;
    END $function$;
GRANT EXECUTE ON FUNCTION paydesk_notify_audit() TO PUBLIC;

-- paydesk_notify_batch_rows(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_notify_batch_rows()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    changed_batch text;
  BEGIN
    IF TG_OP = 'INSERT' THEN
      FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_added) LOOP
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
      END LOOP;
    ELSIF TG_OP = 'DELETE' THEN
      FOR changed_batch IN SELECT b.id FROM batches b WHERE b.seq IN (SELECT batch_seq FROM rows_removed) LOOP
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
      END LOOP;
    ELSE
      FOR changed_batch IN
        SELECT b.id FROM batches b WHERE b.seq IN (
          SELECT n.batch_seq FROM rows_after n JOIN rows_before o USING (batch_seq, row_number)
          WHERE n.journal_id IS DISTINCT FROM o.journal_id
            OR NOT (jsonb_populate_record(o, jsonb_build_object('claimed_by', n.claimed_by, 'claim_holder', n.claim_holder, 'lease_until', n.lease_until)) *= n))
      LOOP
        PERFORM pg_notify('paydesk_changes', json_build_object('table', 'batch_rows', 'id', changed_batch, 'batchId', changed_batch)::text);
      END LOOP;
    END IF;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_notify_batch_rows() TO PUBLIC;

-- paydesk_notify_change(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_notify_change()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      DECLARE
        changed jsonb := to_jsonb(NEW);
      BEGIN
        PERFORM pg_notify('paydesk_changes', json_build_object(
          'table', TG_TABLE_NAME,
          'id', coalesce(changed->>'id', changed->>'key'),
          'batchId', CASE TG_TABLE_NAME WHEN 'batches' THEN changed->>'id' ELSE changed->>'batch_id' END
        )::text);
        RETURN NULL;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_notify_change() TO PUBLIC;

-- paydesk_notify_entry_change(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_notify_entry_change()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    BEGIN
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'entries', 'id', NEW.id, 'batchId', NEW.batch_id)::text);
      RETURN NULL;
    END $function$;
GRANT EXECUTE ON FUNCTION paydesk_notify_entry_change() TO PUBLIC;

-- paydesk_notify_team_profile(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_notify_team_profile()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    DECLARE
      changed text;
    BEGIN
      IF TG_OP = 'DELETE' THEN changed := OLD.id; ELSE changed := NEW.id; END IF;
      PERFORM pg_notify('paydesk_changes', json_build_object('table', 'team_profiles', 'id', changed, 'batchId', NULL)::text);
      RETURN NULL;
    END $function$;
GRANT EXECUTE ON FUNCTION paydesk_notify_team_profile() TO PUBLIC;

-- paydesk_now_ms(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_now_ms()
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_now_ms() TO PUBLIC;

-- paydesk_payout_digest(text,text,text,jsonb,text,jsonb): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_payout_digest(p_environment text, p_kind text, p_profile_id text, p_account jsonb, p_currency text, p_request jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT encode(sha256(convert_to(jsonb_build_array('payout/43', p_environment, p_kind, p_profile_id, p_account, p_currency,
      p_request->>'phone_number', p_request->'customer'->>'first_name', p_request->'customer'->>'last_name',
      (p_request->>'amount')::bigint, coalesce(p_request->>'external_id', ''), p_request)::text, 'UTF8')), 'hex')
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_payout_digest(text,text,text,jsonb,text,jsonb) TO PUBLIC;

-- paydesk_pending_entry_is_its_request(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_pending_entry_is_its_request()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    req jsonb;
  BEGIN
    IF NEW.request IS NULL THEN
      RAISE EXCEPTION 'entry %: a pending entry carries the request it sends', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    req := NEW.request::jsonb;
    -- Every column equal (IS NOT TRUE: a key the request lacks, NULL, is a disagreement, never a pass).
    IF (jsonb_typeof(req) = 'object' AND jsonb_typeof(req->'amount') = 'number' AND (req->>'amount')::numeric = NEW.amount
        AND NEW.currency = 'XAF' AND NOT req ? 'currency'
        AND req->>'phone_number' = NEW.phone_number AND req->>'external_id' = NEW.external_id AND req->>'payment_method' = NEW.payment_method
        AND req->'customer'->>'first_name' = NEW.customer_first_name AND req->'customer'->>'last_name' = NEW.customer_last_name
        AND req->'customer'->>'email' = NEW.customer_email) IS NOT TRUE THEN
      RAISE EXCEPTION 'entry %: a pending entry''s amount, currency (%), recipient and external id are its request''s', NEW.id, 'XAF'
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_pending_entry_is_its_request() TO PUBLIC;

-- paydesk_person_of(text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_person_of(p_login text)
 RETURNS text
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT coalesce((SELECT 'person:' || person_id FROM person_logins WHERE login = p_login), 'login:' || p_login)
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_person_of(text) TO PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_person_of(text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_person_of(text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_person_of(text) TO paydesk_support;

-- paydesk_profile_account(text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_profile_account(p_profile_id text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT coalesce(
      (SELECT jsonb_build_object('profileId', t.id, 'team', true, 'environment', t.environment, 'baseUrl', t.base_url, 'headerWord', t.header_word)
       FROM team_profiles t WHERE t.id = p_profile_id),
      jsonb_build_object('profileId', p_profile_id, 'team', false))
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_profile_account(text) TO PUBLIC;

-- paydesk_publish_team_sandbox(text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_publish_team_sandbox(p_base_url text, p_control_url text, p_control_token text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_publish_team_sandbox(text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_publish_team_sandbox(text,text,text) TO paydesk_sender;

-- paydesk_raise_waiting(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_raise_waiting()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    ap approval_requests;
    asks record;
  BEGIN
    UPDATE approval_requests r SET approvals_required = n.approvals, approver_role = n.approver_role
    FROM approval_requests w CROSS JOIN LATERAL paydesk_approval_need(w.environment, w.currency, w.amount) n
    WHERE r.id = w.id AND w.state = 'awaiting' AND n.approvals > w.approvals_required;
    FOR ap IN SELECT * FROM approval_requests WHERE state = 'approved' ORDER BY id FOR UPDATE LOOP
      asks := paydesk_approval_need(ap.environment, ap.currency, ap.amount);
      CONTINUE WHEN asks.approvals <= ap.approvals_required OR paydesk_request_sent(ap);
      UPDATE approval_requests SET state = 'awaiting', approvals_required = asks.approvals, approver_role = asks.approver_role WHERE id = ap.id;
      -- Who approved still counts if they hold the role the policy now asks for.
      UPDATE approval_requests SET approvals_given = paydesk_approvals_counted(ap.id) WHERE id = ap.id;
      PERFORM paydesk_audit_write('policy_change', 'approval:' || ap.id,
        jsonb_build_object('state', ap.state, 'approvals_required', ap.approvals_required, 'approver_role', ap.approver_role),
        jsonb_build_object('state', 'awaiting', 'approvals_required', asks.approvals, 'approver_role', asks.approver_role),
        'the policy was raised before it was sent: it waits for more approvals');
    END LOOP;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_raise_waiting() TO PUBLIC;

-- paydesk_reject(bigint,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_reject(p_id bigint, p_remark text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_reject(bigint,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_reject(bigint,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_reject(bigint,text) TO paydesk_finance;

-- paydesk_reject_change(bigint,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_reject_change(p_id bigint, p_remark text DEFAULT NULL::text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_reject_change(bigint,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_reject_change(bigint,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_reject_change(bigint,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_reject_change(bigint,text) TO paydesk_support;

-- paydesk_request_batch_approval(text,text,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_request_batch_approval(p_batch_id text, p_currency text, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_request_batch_approval(text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_request_batch_approval(text,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_request_batch_approval(text,text,text) TO paydesk_finance;

-- paydesk_request_payout_approval(text,text,text,jsonb,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_request_payout_approval(p_profile_id text, p_environment text, p_currency text, p_request jsonb, p_remark text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_request_payout_approval(text,text,text,jsonb,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_request_payout_approval(text,text,text,jsonb,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_request_payout_approval(text,text,text,jsonb,text) TO paydesk_finance;

-- paydesk_request_rules(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_request_rules()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_request_rules() TO PUBLIC;

-- paydesk_request_sent(approval_requests): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_request_sent(r approval_requests)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT CASE r.subject
      WHEN 'payout' THEN r.spent_by_entry IS NOT NULL
        OR EXISTS (SELECT FROM entries e WHERE e.kind = 'payout' AND e.environment = r.environment AND e.external_id = r.external_id)
      ELSE EXISTS (SELECT FROM batches b WHERE b.id = r.batch_id AND b.state IN ('cancelled', 'done'))
        OR NOT EXISTS (SELECT FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
                       WHERE b.id = r.batch_id AND br.request IS NOT NULL AND br.journal_id IS NULL)
    END
  $function$;
GRANT EXECUTE ON FUNCTION paydesk_request_sent(approval_requests) TO PUBLIC;

-- paydesk_sandbox_batch_elsewhere(text,text,text): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sandbox_batch_elsewhere(p_profile text, p_desktop text, p_created_by text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT p_profile = 'local-sandbox' AND NOT CASE
      WHEN p_desktop IS NOT NULL AND NULLIF(current_setting('paydesk.desktop', true), '') IS NOT NULL
        THEN p_desktop = NULLIF(current_setting('paydesk.desktop', true), '')
      ELSE p_created_by IS NOT DISTINCT FROM session_user END
  $function$;
REVOKE EXECUTE ON FUNCTION paydesk_sandbox_batch_elsewhere(text,text,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_sandbox_batch_elsewhere(text,text,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_sandbox_batch_elsewhere(text,text,text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_sandbox_batch_elsewhere(text,text,text) TO paydesk_support;

-- paydesk_sandbox_claim_on_its_desktop(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sandbox_claim_on_its_desktop()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF EXISTS (SELECT FROM batches b WHERE b.seq = NEW.batch_seq AND paydesk_sandbox_batch_elsewhere(b.profile_id, b.desktop_id, b.created_by)) THEN
      RAISE EXCEPTION 'batch row %: its batch is on the Local sandbox of another desktop: only that desktop claims its rows', NEW.row_number
        USING ERRCODE = 'PD050';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sandbox_claim_on_its_desktop() TO PUBLIC;

-- paydesk_sandbox_row_sent_on_its_desktop(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sandbox_row_sent_on_its_desktop()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF EXISTS (SELECT FROM batches b WHERE b.id = NEW.batch_id AND paydesk_sandbox_batch_elsewhere(b.profile_id, b.desktop_id, b.created_by)) THEN
      RAISE EXCEPTION 'entry %: batch % is on the Local sandbox of another desktop: only that desktop sends its rows', NEW.id, NEW.batch_id
        USING ERRCODE = 'PD050';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sandbox_row_sent_on_its_desktop() TO PUBLIC;

-- paydesk_send_ask_audited(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_send_ask_audited()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_send_ask_audited() TO PUBLIC;

-- paydesk_send_ask_stamp(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_send_ask_stamp()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_send_ask_stamp() TO PUBLIC;

-- paydesk_sender_audit(text,jsonb): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_audit(p_action text, p_after jsonb)
 RETURNS bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') OR NOT p_action = ANY (ARRAY['sender_start', 'sender_stop']) THEN
      RAISE EXCEPTION 'only the team sender records "%"', p_action USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN paydesk_audit_write(p_action, 'sender:' || session_user, NULL, p_after, NULL);
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_sender_audit(text,jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_sender_audit(text,jsonb) TO paydesk_sender;

-- paydesk_sender_gate_claim(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_gate_claim()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER')
      AND paydesk_sender_holds((SELECT profile_id FROM batches WHERE seq = NEW.batch_seq)) THEN
      RAISE EXCEPTION 'the keys of this batch''s profile are with the team sender: only the sender claims its rows (ask it)'
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sender_gate_claim() TO PUBLIC;

-- paydesk_sender_gate_entry(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_gate_entry()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF paydesk_sender_holds(NEW.profile_id) AND NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the keys of profile "%" are with the team sender: only the sender sends for it (ask it)', NEW.profile_id
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sender_gate_entry() TO PUBLIC;

-- paydesk_sender_holds(text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_holds(p_profile text)
 RETURNS boolean
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT EXISTS (SELECT FROM team_profiles WHERE id = p_profile AND keys_held_by = 'sender')
  $function$;
REVOKE EXECUTE ON FUNCTION paydesk_sender_holds(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_sender_holds(text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_sender_holds(text) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_sender_holds(text) TO paydesk_support;

-- paydesk_sender_never_votes(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_never_votes()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the team sender never approves or rejects' USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sender_never_votes() TO PUBLIC;

-- paydesk_sender_records_answers(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sender_records_answers()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF paydesk_sender_holds(NEW.profile_id) AND NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the keys of profile "%" are with the team sender: only the sender records what the service says of its payouts (look-ups, statuses)', NEW.profile_id
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sender_records_answers() TO PUBLIC;

-- paydesk_sent_entry_frozen(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_sent_entry_frozen()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    answer jsonb;
  BEGIN
    IF (OLD.state IN ('outcome_unknown', 'known') OR OLD.transaction_id IS NOT NULL) THEN
      IF (NEW.request, NEW.phone_number, NEW.customer_first_name, NEW.customer_last_name, NEW.customer_email, NEW.payment_method, NEW.description, NEW.metadata, NEW.profile_id, NEW.profile_name, NEW.environment, NEW.kind) IS DISTINCT FROM (OLD.request, OLD.phone_number, OLD.customer_first_name, OLD.customer_last_name, OLD.customer_email, OLD.payment_method, OLD.description, OLD.metadata, OLD.profile_id, OLD.profile_name, OLD.environment, OLD.kind) OR (OLD.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id) THEN
        RAISE EXCEPTION 'entry % may have reached the service: what it asked (request, recipient, external id, profile, environment, kind) never changes', OLD.id
          USING ERRCODE = 'check_violation';
      END IF;
      -- Its batch row only when a look-up found nothing and another batch's row sends it again, as it was.
      IF (NEW.batch_id, NEW.batch_row) IS DISTINCT FROM (OLD.batch_id, OLD.batch_row) AND NEW.state <> 'pending' THEN
        RAISE EXCEPTION 'entry % may have reached the service: its batch row changes only when it is sent again', OLD.id USING ERRCODE = 'check_violation';
      END IF;
      IF NEW.state = 'pending' AND NOT (OLD.state = 'outcome_unknown' AND OLD.resolution IS NOT DISTINCT FROM 'not_found' AND OLD.transaction_id IS NULL) THEN
        RAISE EXCEPTION 'entry % may have reached the service: it is sent again only after a look-up found nothing under its external id', OLD.id
          USING ERRCODE = 'check_violation';
      END IF;
    END IF;
    IF OLD.transaction_id IS NOT NULL AND NEW.transaction_id IS DISTINCT FROM OLD.transaction_id THEN
      RAISE EXCEPTION 'entry %: its transaction id never changes once the service gave it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.transaction_json IS NOT NULL AND (NEW.amount, NEW.currency, NEW.fee, NEW.net_amount) IS DISTINCT FROM (OLD.amount, OLD.currency, OLD.fee, OLD.net_amount) THEN
      answer := NEW.transaction_json::jsonb;
    END IF;
    -- The money of an answer is the answer's: an amount or currency changes with the first one (or
    -- while pending, as its request: the next trigger), a fee or net amount to what it says.
    -- IS NOT TRUE throughout: a key the answer lacks (NULL) is no answer, never a pass.
    IF (NEW.amount, NEW.currency) IS DISTINCT FROM (OLD.amount, OLD.currency) AND NEW.state <> 'pending'
       AND (OLD.transaction_id IS NULL AND NEW.transaction_id IS NOT NULL AND answer IS NOT NULL
            AND jsonb_typeof(answer->'amount') = 'number' AND (answer->>'amount')::numeric = NEW.amount AND answer->>'currency' = NEW.currency) IS NOT TRUE THEN
      RAISE EXCEPTION 'entry %: its amount and currency change only with the service''s first answer, to that answer''s', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.state = 'pending' AND (OLD.state IN ('outcome_unknown', 'known') OR OLD.transaction_id IS NOT NULL) AND (NEW.amount, NEW.currency) IS DISTINCT FROM (OLD.amount, OLD.currency) THEN
      RAISE EXCEPTION 'entry % may have reached the service: its amount and currency never change', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.fee IS DISTINCT FROM OLD.fee AND (jsonb_typeof(answer->'fee') = 'number' AND (answer->>'fee')::numeric = NEW.fee) IS NOT TRUE)
       OR (NEW.net_amount IS DISTINCT FROM OLD.net_amount AND (jsonb_typeof(answer->'net_amount') = 'number' AND (answer->>'net_amount')::numeric = NEW.net_amount) IS NOT TRUE) THEN
      RAISE EXCEPTION 'entry %: its fee and net amount are the service''s answer''s, written with it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_sent_entry_frozen() TO PUBLIC;

-- paydesk_set_role(text,text,boolean): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_set_role(p_login text, p_role text, p_member boolean)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM paydesk_assert_admin();
    RAISE EXCEPTION 'a role change needs a second admin: ask it with paydesk_ask_role(login, role, member), another admin approves it'
      USING ERRCODE = 'PD035';
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_set_role(text,text,boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_set_role(text,text,boolean) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_set_role(text,text,boolean) TO paydesk_finance;
GRANT EXECUTE ON FUNCTION paydesk_set_role(text,text,boolean) TO paydesk_support;

-- paydesk_spend_payout_approval(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_spend_payout_approval()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    UPDATE approval_requests a SET spent_by_entry = NEW.id, spent_at = clock_timestamp()
    WHERE a.subject = 'payout' AND a.state = 'approved' AND a.environment = NEW.environment AND a.external_id = NEW.external_id AND a.spent_by_entry IS NULL
      AND a.digest = paydesk_payout_digest(NEW.environment, NEW.kind, NEW.profile_id, paydesk_profile_account(NEW.profile_id), NEW.currency, NEW.request::jsonb);
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_spend_payout_approval() TO PUBLIC;

-- paydesk_stamp_claim(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_stamp_claim()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      BEGIN
        IF NEW.claim_holder IS NULL THEN
          NEW.claimed_by := NULL;
          NEW.lease_until := NULL;
        ELSE
          NEW.claimed_by := session_user;
        END IF;
        RETURN NEW;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_stamp_claim() TO PUBLIC;

-- paydesk_stamp_recorded(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_stamp_recorded()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      BEGIN
        NEW.recorded_by := session_user;
        RETURN NEW;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_stamp_recorded() TO PUBLIC;

-- paydesk_stamp_setting(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_stamp_setting()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      BEGIN
        NEW.updated_by := session_user;
        RETURN NEW;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_stamp_setting() TO PUBLIC;

-- paydesk_stamp_who(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_stamp_who()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN NEW.created_by := session_user; ELSE NEW.created_by := OLD.created_by; END IF;
        NEW.updated_by := session_user;
        RETURN NEW;
      END $function$;
GRANT EXECUTE ON FUNCTION paydesk_stamp_who() TO PUBLIC;

-- paydesk_support_follows_up(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_support_follows_up()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF pg_has_role(session_user, 'paydesk_finance', 'MEMBER') THEN RETURN NEW; END IF;
    IF NEW.state = 'pending' AND OLD.state IS DISTINCT FROM 'pending' THEN
      RAISE EXCEPTION 'entry %: only finance sends; % may not move it back to pending', OLD.id, session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency THEN
      RAISE EXCEPTION 'entry %: only finance changes its amount or currency, not %', OLD.id, session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.transaction_id IS DISTINCT FROM OLD.transaction_id AND NEW.state <> 'known' THEN
      RAISE EXCEPTION 'entry %: % records a transaction id only with the service''s answer that makes it known', OLD.id, session_user
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_support_follows_up() TO PUBLIC;

-- paydesk_timeline_append_only(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_timeline_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    RAISE EXCEPTION 'the timeline is append-only: % refused (%)', TG_OP, session_user USING ERRCODE = 'insufficient_privilege';
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_timeline_append_only() TO PUBLIC;

-- paydesk_void_batch_approval(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_void_batch_approval()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_void_batch_approval() TO PUBLIC;

-- paydesk_void_batch_approval_on_move(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_void_batch_approval_on_move()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    voided approval_requests;
  BEGIN
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'the batch''s profile or environment changed after it was asked'
      WHERE batch_id = NEW.id AND state IN ('awaiting', 'approved') RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id,
        jsonb_build_object('digest', voided.digest, 'profileId', OLD.profile_id, 'environment', OLD.environment),
        jsonb_build_object('profileId', NEW.profile_id, 'environment', NEW.environment), voided.remark);
    END LOOP;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_void_batch_approval_on_move() TO PUBLIC;

-- paydesk_void_moved_batch_approval(): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_void_moved_batch_approval()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    voided approval_requests;
  BEGIN
    FOR voided IN UPDATE approval_requests SET state = 'void', remark = 'the batch''s profile or environment changed after it was asked'
      WHERE batch_id = NEW.id AND state IN ('awaiting', 'approved') RETURNING * LOOP
      PERFORM paydesk_audit_write('void_approval', 'approval:' || voided.id, jsonb_build_object('digest', voided.digest, 'profile', OLD.profile_id, 'environment', OLD.environment),
        jsonb_build_object('profile', NEW.profile_id, 'environment', NEW.environment), voided.remark);
    END LOOP;
    RETURN NULL;
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_void_moved_batch_approval() TO PUBLIC;

-- paydesk_vote_rules(): SECURITY INVOKER; search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_vote_rules()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
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
  END $function$;
GRANT EXECUTE ON FUNCTION paydesk_vote_rules() TO PUBLIC;

-- paydesk_withdraw(bigint,text): SECURITY DEFINER (runs as <owner>); search_path=pg_catalog, public, pg_temp
CREATE OR REPLACE FUNCTION public.paydesk_withdraw(p_id bigint, p_remark text DEFAULT NULL::text)
 RETURNS text
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    r approval_requests;
  BEGIN
    SELECT * INTO r FROM approval_requests WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN RAISE EXCEPTION 'no approval request %', p_id; END IF;
    UPDATE approval_requests SET state = 'withdrawn', remark = coalesce(p_remark, remark) WHERE id = p_id;
    PERFORM paydesk_audit_write('withdraw', 'approval:' || p_id, jsonb_build_object('state', r.state), jsonb_build_object('state', 'withdrawn'), p_remark);
    RETURN 'withdrawn';
  END $function$;
REVOKE EXECUTE ON FUNCTION paydesk_withdraw(bigint,text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk_withdraw(bigint,text) TO paydesk_admin;
GRANT EXECUTE ON FUNCTION paydesk_withdraw(bigint,text) TO paydesk_finance;
