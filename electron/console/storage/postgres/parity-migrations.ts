/**
 * Journal migrations added after the workspace's own 7 (./team-migrations.ts): the same meaning
 * as the SQLite journal's, under the next free PostgreSQL numbers. `SQLITE_TO_PG` keeps the
 * mapping (test/storage/migrations.test.ts checks the names match version for version):
 *
 *   SQLite 1–6 → PostgreSQL 1–6 · PostgreSQL 7 is the workspace's own · SQLite 7 → 8 · SQLite 8 → 9 · SQLite 9 → 10 · SQLite 10 → 38 · SQLite 11 → 47
 */
import type { PgMigration } from './pg-migration';

/** SQLite journal version → the workspace version with the same meaning. */
export const SQLITE_TO_PG: Readonly<Record<number, number>> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 8: 9, 9: 10, 10: 38, 11: 47 };

export const PARITY_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 8,
    name: 'columns a reconciliation read past',
    // A merchant file's columns Paydesk does not know, named on the report (issue 26): a JSON
    // array of header names as text, NULL for runs saved before (read as none), as in SQLite.
    // The table-wide grants of migration 7 cover the new column.
    sql: `ALTER TABLE reconciliations ADD COLUMN ignored_columns text;`,
  },
  {
    version: 9,
    name: 'attempts that created nothing belong to their payout',
    // The same folding as SQLite journal migration 8 (docs/decisions/attempts-belong-to-their-payout.md):
    // an entry that created nothing at the service (rejected with NOT_SENT: a 429 or a request that
    // never left; outcome unknown resolved not_found) joins the latest entry of its payout (profile,
    // environment, kind, external id). Its timeline events move there (their ids keep the order),
    // batch and Reconcile rows point there, and the empty attempt goes. Run by the workspace's
    // owner, whom row-level security does not restrict.
    sql: `
      CREATE TEMP TABLE attempt_moves ON COMMIT DROP AS
        SELECT e.seq AS from_seq, e.id AS from_id,
          (SELECT l.seq FROM entries l
             WHERE l.external_id = e.external_id AND l.kind = e.kind AND l.profile_id = e.profile_id AND l.environment = e.environment
             ORDER BY l.created_at DESC, l.seq DESC LIMIT 1) AS to_seq
        FROM entries e
        WHERE e.external_id IS NOT NULL
          AND ((e.state = 'rejected' AND e.last_error IS NOT NULL AND (e.last_error::jsonb ->> 'code') = 'NOT_SENT')
            OR (e.state = 'outcome_unknown' AND e.resolution = 'not_found'));
      DELETE FROM attempt_moves WHERE to_seq = from_seq;
      CREATE TEMP TABLE attempt_targets ON COMMIT DROP AS
        SELECT m.from_seq, m.from_id, m.to_seq, t.id AS to_id FROM attempt_moves m JOIN entries t ON t.seq = m.to_seq;
      UPDATE timeline SET entry_seq = a.to_seq FROM attempt_targets a WHERE timeline.entry_seq = a.from_seq;
      UPDATE batch_rows SET journal_id = a.to_id FROM attempt_targets a WHERE batch_rows.journal_id = a.from_id;
      UPDATE reconciliation_rows SET journal_id = a.to_id FROM attempt_targets a WHERE reconciliation_rows.journal_id = a.from_id;
      DELETE FROM entries WHERE seq IN (SELECT from_seq FROM attempt_targets);
    `,
  },
  {
    version: 10,
    name: 'external ids as identity',
    // As the SQLite journal's 9: already_sent_at (the service refused the entry's POST because its
    // external id existed; the entry adopts that transaction), retry_of (the external id a retried
    // row's new id derives from, <id>-r1). Support follows entries up (a look-up adopts), so it may
    // stamp already_sent_at like the other follow-up columns it updates.
    sql: `
      ALTER TABLE entries ADD COLUMN already_sent_at bigint;
      ALTER TABLE entries ADD COLUMN retry_of text;
      ALTER TABLE batch_rows ADD COLUMN retry_of text;
      CREATE INDEX entries_adopted ON entries (profile_id, environment, created_at) WHERE already_sent_at IS NOT NULL;
      GRANT UPDATE (already_sent_at) ON entries TO paydesk_support;
    `,
  },
];
