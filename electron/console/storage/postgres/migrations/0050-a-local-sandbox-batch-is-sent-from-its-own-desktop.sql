-- Migration 50: a local sandbox batch is sent from its own desktop
--
-- Issue 38 (docs/decisions/local-sandbox-batch-stays-on-its-desktop.md): each desktop's Local sandbox is an
-- engine of its own, so a batch on the built-in `local-sandbox` profile sent, resumed or helped from two desktops
-- pays its rows on two services. A batch now names the desktop that put it on its profile (`batches.desktop_id`,
-- stamped by the database from the connection's `paydesk.desktop`, as migration 36 does for entries); for a
-- `local-sandbox` batch only that desktop moves it to sending, claims its rows or writes their pending entries
-- (SQLSTATE PD050). A batch or a connection with no desktop falls back to the login that imported it (the rule of
-- docs/decisions/local-sandbox-follow-ups.md). New functions and triggers only; named to fire before the checks
-- already there (BEFORE triggers run by name): whose engine the batch is on comes first.

  ALTER TABLE batches ADD COLUMN desktop_id text CHECK (desktop_id IS NULL OR length(desktop_id) <= 100);

  -- Whether a batch of this profile, put there from this desktop (and imported by this login), is on another
  -- desktop's Local sandbox for this connection. Read by the console too (the batch's screens say so).
  CREATE FUNCTION paydesk_sandbox_batch_elsewhere(p_profile text, p_desktop text, p_created_by text) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT p_profile = 'local-sandbox' AND NOT CASE
      WHEN p_desktop IS NOT NULL AND NULLIF(current_setting('paydesk.desktop', true), '') IS NOT NULL
        THEN p_desktop = NULLIF(current_setting('paydesk.desktop', true), '')
      ELSE p_created_by IS NOT DISTINCT FROM session_user END
  $$;
  REVOKE ALL ON FUNCTION paydesk_sandbox_batch_elsewhere(text, text, text) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_sandbox_batch_elsewhere(text, text, text) TO paydesk_finance, paydesk_support, paydesk_admin;

  -- The desktop is the database's to write: stamped when the batch is made or moved to another profile, kept otherwise.
  -- A move to sending of another desktop's local-sandbox batch (Start, Resume, a raw UPDATE) is refused.
  CREATE FUNCTION paydesk_batch_on_its_desktop() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
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
  END $$;
  CREATE TRIGGER batches_local_sandbox_on_its_desktop BEFORE INSERT OR UPDATE ON batches FOR EACH ROW EXECUTE FUNCTION paydesk_batch_on_its_desktop();

  -- A claim of a row of another desktop's local-sandbox batch (Help send, a resumed run, a raw UPDATE).
  CREATE FUNCTION paydesk_sandbox_claim_on_its_desktop() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF EXISTS (SELECT FROM batches b WHERE b.seq = NEW.batch_seq AND paydesk_sandbox_batch_elsewhere(b.profile_id, b.desktop_id, b.created_by)) THEN
      RAISE EXCEPTION 'batch row %: its batch is on the Local sandbox of another desktop: only that desktop claims its rows', NEW.row_number
        USING ERRCODE = 'PD050';
    END IF;
    RETURN NEW;
  END $$;
  -- Named to fire before the sender's gate and the claim stamp and checks (BEFORE triggers run by name).
  CREATE TRIGGER batch_rows_by_its_sandbox_desktop BEFORE INSERT OR UPDATE OF claim_holder, lease_until ON batch_rows
    FOR EACH ROW WHEN (NEW.claim_holder IS NOT NULL) EXECUTE FUNCTION paydesk_sandbox_claim_on_its_desktop();

  -- A pending entry of a row of another desktop's local-sandbox batch (the same login on two desktops shares a claim).
  CREATE FUNCTION paydesk_sandbox_row_sent_on_its_desktop() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
  BEGIN
    IF EXISTS (SELECT FROM batches b WHERE b.id = NEW.batch_id AND paydesk_sandbox_batch_elsewhere(b.profile_id, b.desktop_id, b.created_by)) THEN
      RAISE EXCEPTION 'entry %: batch % is on the Local sandbox of another desktop: only that desktop sends its rows', NEW.id, NEW.batch_id
        USING ERRCODE = 'PD050';
    END IF;
    RETURN NEW;
  END $$;
  -- Named to fire before the moved-row and claim checks (BEFORE triggers run by name).
  CREATE TRIGGER entries_local_sandbox_row_on_its_desktop BEFORE INSERT OR UPDATE OF state, batch_id, batch_row, profile_id ON entries
    FOR EACH ROW WHEN (NEW.state = 'pending' AND NEW.batch_id IS NOT NULL AND NEW.profile_id = 'local-sandbox')
    EXECUTE FUNCTION paydesk_sandbox_row_sent_on_its_desktop();
