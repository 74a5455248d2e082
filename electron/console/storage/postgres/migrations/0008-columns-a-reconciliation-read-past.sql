-- Migration 8: columns a reconciliation read past
--
-- A merchant file's columns Paydesk does not know, named on the report (issue 26): a JSON
-- array of header names as text, NULL for runs saved before (read as none), as in SQLite.
-- The table-wide grants of migration 7 cover the new column.
ALTER TABLE reconciliations ADD COLUMN ignored_columns text;