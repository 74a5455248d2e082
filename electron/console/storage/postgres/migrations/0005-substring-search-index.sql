-- Migration 5: substring search index
--
-- History's "contains" search: SQLite's FTS5 trigram table is pg_trgm's GIN index here, on one
-- column the database keeps folded (lower case, accents removed) by trigger, as FTS5's
-- tokenizer folds (case_sensitive 0, remove_diacritics 1). pg_trgm and unaccent are trusted
-- extensions: the workspace's owner may create them without being a superuser.

      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE EXTENSION IF NOT EXISTS unaccent;
      ALTER TABLE entries ADD COLUMN search_text text NOT NULL DEFAULT '';
      CREATE FUNCTION paydesk_entries_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_text := lower(unaccent(coalesce(NEW.external_id, '') || ' ' || NEW.phone_number || ' '
          || NEW.customer_first_name || ' ' || NEW.customer_last_name));
        RETURN NEW;
      END $$;
      CREATE TRIGGER entries_search_text BEFORE INSERT OR UPDATE OF external_id, phone_number, customer_first_name, customer_last_name
        ON entries FOR EACH ROW EXECUTE FUNCTION paydesk_entries_search_text();
      UPDATE entries SET external_id = external_id;
      CREATE INDEX entries_search ON entries USING gin (search_text gin_trgm_ops);
    