-- Migration 51: only the team sender records the service's answers on the entries of a profile whose keys it holds
--
-- Issue 38 (docs/decisions/sender-records-its-profiles-answers.md): a look-up's "not found" is what lets
-- an entry be sent again (migration 44, and migration 48's resend ask); a failed status what lets a new
-- id follow it. For a profile whose keys are with the team sender, no desktop can read the service, so
-- what the service said of its entries is written by a `paydesk_sender` login only: a finance or
-- support login's raw write of an entry's state, look-up result, status, transaction id, failure or
-- money, or an entry inserted for that profile, is refused with SQLSTATE PD048. A new trigger function
-- beside migration 48's (which is left as it is); named to fire after its pending-entry gate.
  CREATE FUNCTION paydesk_sender_records_answers() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF paydesk_sender_holds(NEW.profile_id) AND NOT pg_has_role(session_user, 'paydesk_sender', 'MEMBER') THEN
      RAISE EXCEPTION 'the keys of profile "%" are with the team sender: only the sender records what the service says of its payouts (look-ups, statuses)', NEW.profile_id
        USING ERRCODE = 'PD048';
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER entries_sender_answers_new BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_sender_records_answers();
  CREATE TRIGGER entries_sender_answers BEFORE UPDATE OF state, resolution, status, transaction_id, failed_code, amount, currency, fee, net_amount, transaction_json ON entries
    FOR EACH ROW WHEN ((NEW.state, NEW.resolution, NEW.status, NEW.transaction_id, NEW.failed_code, NEW.amount, NEW.currency, NEW.fee, NEW.net_amount, NEW.transaction_json)
      IS DISTINCT FROM (OLD.state, OLD.resolution, OLD.status, OLD.transaction_id, OLD.failed_code, OLD.amount, OLD.currency, OLD.fee, OLD.net_amount, OLD.transaction_json))
    EXECUTE FUNCTION paydesk_sender_records_answers();
