-- Migration 34: every action of a person in the audit log; an entry keeps its money identity
--
-- Workspace migration 34: the audit log holds every action of issue 25 item 5, written by the
-- database on the rows that change (a modified client cannot skip them), `session_user` as who
-- (audit_log's own trigger, migration 20). Until now only approvals, policy and role changes were
-- written; the desktops' hooks (`paydesk_audit`) were never called. Now:
-- - `import`: a batch inserted (a file, or a retry draft of failed rows), at commit (a deferred
--   trigger: its rows are inserted after it in the same transaction), with its row count;
-- - `confirm`: a draft's confirmation, the only write that sets a draft's state to draft again
--   (`batches:prepare` binds it to the profile it is confirmed under; draft edits never set `state`);
-- - `send`, `pause`, `cancel`: a batch moved into `sending` (start, resume, remaining rows),
--   `paused` or `cancelled`, with its state before and after; a single payment or payout written
--   `pending` (first sent, or sent again with the same external id); a batch's rows are its batch's
--   `send` (one line per batch, not per row: ten thousand rows would bury the people's actions);
-- - `sign_in` is the console's (nothing in the database sees a desktop open it before PostgreSQL 17's
--   login event triggers): `recordSignIn` of the audit port, at start (electron/console/storage/audit-port.ts).
-- And an entry's money identity never changes once written, whoever asks (below).
--
-- An entry's money identity, by any login, raw SQL included (a finance login may UPDATE entries:
-- the console's own writes need it). Never: its environment, kind or profile, nor its external id
-- once it has one (a payment may get the service's); its transaction id is never removed (the
-- service's answer is read again as it comes, so it is not frozen). Its amount and currency
-- only while it is being sent with no answer yet (`pending`, no transaction id: a payout that
-- created nothing continued with the request as it is sent now) or with the service's first
-- answer (the transaction id arriving with them); once the service answered, never again. The
-- WHEN keeps the console's every status write (which lists amount and currency, unchanged) from
-- calling the function.

  CREATE FUNCTION paydesk_audit_batch_import() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_audit_write('import', 'batch:' || NEW.id, NULL,
      jsonb_build_object('file', NEW.file_name, 'rows', (SELECT count(*) FROM batch_rows WHERE batch_seq = NEW.seq),
        'profile', NEW.profile_name, 'environment', NEW.environment, 'retryOf', NEW.retry_of), NULL);
    RETURN NULL;
  END $$;
  CREATE CONSTRAINT TRIGGER batches_import_audited AFTER INSERT ON batches DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION paydesk_audit_batch_import();

  CREATE FUNCTION paydesk_audit_batch_state() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
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
  END $$;
  CREATE TRIGGER batches_state_audited AFTER UPDATE OF state ON batches
    FOR EACH ROW WHEN (OLD.state = 'draft' AND NEW.state = 'draft' OR NEW.state IS DISTINCT FROM OLD.state AND NEW.state IN ('sending', 'paused', 'cancelled'))
    EXECUTE FUNCTION paydesk_audit_batch_state();

  CREATE FUNCTION paydesk_audit_entry_sent() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  BEGIN
    PERFORM paydesk_audit_write('send', 'entry:' || NEW.id,
      CASE WHEN TG_OP = 'UPDATE' THEN jsonb_build_object('state', OLD.state, 'resolution', OLD.resolution) END,
      jsonb_build_object('state', NEW.state, 'kind', NEW.kind, 'amount', NEW.amount, 'currency', NEW.currency,
        'externalId', NEW.external_id, 'environment', NEW.environment, 'profile', NEW.profile_name), NULL);
    RETURN NULL;
  END $$;
  -- A batch's rows are left out by the WHEN (evaluated without calling the function: the batch path stays as fast).
  CREATE TRIGGER entries_sent_audited AFTER INSERT ON entries
    FOR EACH ROW WHEN (NEW.batch_id IS NULL AND NEW.state = 'pending') EXECUTE FUNCTION paydesk_audit_entry_sent();
  CREATE TRIGGER entries_sent_again_audited AFTER UPDATE OF state ON entries
    FOR EACH ROW WHEN (NEW.batch_id IS NULL AND NEW.state = 'pending' AND OLD.state IS DISTINCT FROM 'pending') EXECUTE FUNCTION paydesk_audit_entry_sent();

  CREATE FUNCTION paydesk_entry_identity() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.environment IS DISTINCT FROM OLD.environment OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.profile_id IS DISTINCT FROM OLD.profile_id
       OR (OLD.external_id IS NOT NULL AND NEW.external_id IS DISTINCT FROM OLD.external_id)
       OR (OLD.transaction_id IS NOT NULL AND NEW.transaction_id IS NULL) THEN
      RAISE EXCEPTION 'entry %: its environment, kind, profile and external id never change once written, nor is its transaction id removed', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency)
       AND NOT (OLD.transaction_id IS NULL AND (OLD.state = 'pending' OR NEW.transaction_id IS NOT NULL)) THEN
      RAISE EXCEPTION 'entry %: its amount and currency change only while it is being sent, or with the service''s first answer', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_identity_kept BEFORE UPDATE OF amount, currency, external_id, transaction_id, environment, kind, profile_id ON entries
    FOR EACH ROW WHEN (NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency OR NEW.external_id IS DISTINCT FROM OLD.external_id
      OR NEW.transaction_id IS DISTINCT FROM OLD.transaction_id OR NEW.environment IS DISTINCT FROM OLD.environment OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.profile_id IS DISTINCT FROM OLD.profile_id)
    EXECUTE FUNCTION paydesk_entry_identity();
