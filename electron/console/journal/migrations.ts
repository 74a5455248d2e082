/**
 * The journal's schema as numbered migrations, applied in order inside one transaction each;
 * `PRAGMA user_version` records the last one applied.
 */
import type Database from 'better-sqlite3';
import { RECONCILE_MIGRATION } from '../reconcile/schema';

export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'entries and timeline',
    sql: `
      CREATE TABLE entries (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        profile_id TEXT NOT NULL,
        profile_name TEXT NOT NULL,
        environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
        kind TEXT NOT NULL CHECK (kind IN ('payment', 'payout')),
        state TEXT NOT NULL CHECK (state IN ('pending', 'outcome_unknown', 'rejected', 'known')),
        -- After resolveUnknown: 'not_found' allows one resend with the same external id.
        resolution TEXT CHECK (resolution IN ('not_found')),
        transaction_id TEXT,
        external_id TEXT,
        status TEXT,
        failed_code TEXT,
        amount INTEGER NOT NULL CHECK (amount >= 0),
        currency TEXT NOT NULL,
        fee INTEGER,
        net_amount INTEGER,
        phone_number TEXT NOT NULL,
        payment_method TEXT NOT NULL,
        customer_first_name TEXT NOT NULL COLLATE NOCASE,
        customer_last_name TEXT NOT NULL COLLATE NOCASE,
        customer_email TEXT NOT NULL,
        description TEXT,
        metadata TEXT,
        -- The request body exactly as it was sent (JSON), for a resend with the same external id.
        request TEXT,
        last_error TEXT,
        transaction_json TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX entries_by_external_id ON entries (external_id, created_at);
      CREATE INDEX entries_by_transaction_id ON entries (transaction_id, created_at);
      CREATE INDEX entries_by_phone ON entries (phone_number, created_at);
      CREATE INDEX entries_by_created ON entries (created_at);
      CREATE INDEX entries_by_state ON entries (state, created_at);
      CREATE INDEX entries_by_status ON entries (status, created_at);
      CREATE INDEX entries_by_last_name ON entries (customer_last_name);
      CREATE INDEX entries_by_first_name ON entries (customer_first_name);

      CREATE TABLE timeline (
        id INTEGER PRIMARY KEY,
        entry_seq INTEGER NOT NULL REFERENCES entries (seq) ON DELETE CASCADE,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        status TEXT,
        http_status INTEGER,
        code TEXT,
        message TEXT,
        outcome TEXT CHECK (outcome IN ('not-sent', 'unknown'))
      );
      CREATE INDEX timeline_by_entry ON timeline (entry_seq, id);
    `,
  },
  {
    version: 2,
    name: 'bulk payout batches',
    sql: `
      CREATE TABLE batches (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        file_name TEXT NOT NULL,
        -- sha256 of the rows as imported: the same file imported again is detected.
        file_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('draft', 'sending', 'paused', 'interrupted', 'cancelled', 'done')),
        state_reason TEXT,
        profile_id TEXT NOT NULL,
        profile_name TEXT NOT NULL,
        environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
        payment_method TEXT,
        concurrency INTEGER NOT NULL CHECK (concurrency BETWEEN 1 AND 64),
        retry_of TEXT,
        rehearsal TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX batches_by_file_hash ON batches (file_hash);
      CREATE INDEX batches_by_state ON batches (state);

      -- One row per payout of a batch; its sending state is its journal entry's (journal_id).
      CREATE TABLE batch_rows (
        batch_seq INTEGER NOT NULL REFERENCES batches (seq) ON DELETE CASCADE,
        row_number INTEGER NOT NULL,
        cells TEXT NOT NULL,
        -- The request as it is sent (JSON), null while the row has errors.
        request TEXT,
        errors TEXT NOT NULL,
        duplicates TEXT NOT NULL,
        external_id TEXT NOT NULL,
        journal_id TEXT,
        rehearsal TEXT,
        PRIMARY KEY (batch_seq, row_number)
      ) WITHOUT ROWID;
      CREATE INDEX batch_rows_by_journal ON batch_rows (journal_id) WHERE journal_id IS NOT NULL;

      -- A batch row's payout is an ordinary journal entry, linked to its batch.
      ALTER TABLE entries ADD COLUMN batch_id TEXT;
      ALTER TABLE entries ADD COLUMN batch_row INTEGER;
      CREATE INDEX entries_by_batch ON entries (batch_id, batch_row) WHERE batch_id IS NOT NULL;
    `,
  },
  RECONCILE_MIGRATION,
  {
    version: 4,
    name: 'overview indexes',
    sql: `
      -- Covers the Overview's figures: a profile's range of days read from the index alone
      -- (no table lookups), grouped by kind, status, failed code and currency.
      CREATE INDEX entries_overview ON entries (profile_id, environment, created_at, kind, state, status, failed_code, currency, amount);
      -- The few transactions still processing, oldest first (partial: small, and exact for that query).
      CREATE INDEX entries_processing ON entries (profile_id, environment, created_at) WHERE state = 'known' AND status = 'processing';
    `,
  },
  {
    version: 5,
    name: 'substring search index',
    // History's search box finds any part of an external id, a phone number or a name (issue 17).
    // A trigram FTS5 index answers "contains" in a few index pages where LIKE '%…%' reads every row.
    // Contentless (the text lives in `entries` already) with contentless_delete so triggers can
    // remove a row; case folded and accents removed, so "eloise" finds "Éloïse". Only the
    // searched columns trigger a re-index: an answer that keeps them unchanged costs nothing here.
    sql: `
      CREATE VIRTUAL TABLE entries_search USING fts5(
        external_id, phone_number, customer_name,
        content = '', contentless_delete = 1,
        tokenize = 'trigram case_sensitive 0 remove_diacritics 1'
      );
      INSERT INTO entries_search (rowid, external_id, phone_number, customer_name)
        SELECT seq, external_id, phone_number, customer_first_name || ' ' || customer_last_name FROM entries;
      CREATE TRIGGER entries_search_insert AFTER INSERT ON entries BEGIN
        INSERT INTO entries_search (rowid, external_id, phone_number, customer_name)
          VALUES (new.seq, new.external_id, new.phone_number, new.customer_first_name || ' ' || new.customer_last_name);
      END;
      CREATE TRIGGER entries_search_update AFTER UPDATE OF external_id, phone_number, customer_first_name, customer_last_name ON entries
        WHEN old.external_id IS NOT new.external_id OR old.phone_number IS NOT new.phone_number
          OR old.customer_first_name IS NOT new.customer_first_name OR old.customer_last_name IS NOT new.customer_last_name
      BEGIN
        DELETE FROM entries_search WHERE rowid = old.seq;
        INSERT INTO entries_search (rowid, external_id, phone_number, customer_name)
          VALUES (new.seq, new.external_id, new.phone_number, new.customer_first_name || ' ' || new.customer_last_name);
      END;
      CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entries_search WHERE rowid = old.seq;
      END;
    `,
  },
  {
    version: 6,
    name: 'sandbox status events named for what they are',
    // Earlier versions recorded a local sandbox status push as `webhook_received` (the console has
    // no webhook receiver): those events are what `sandbox_status` is now, the only name left.
    sql: `UPDATE timeline SET type = 'sandbox_status' WHERE type = 'webhook_received';`,
  },
  {
    version: 7,
    name: 'columns a reconciliation read past',
    // A merchant file's columns Paydesk does not know are read past and named on the report
    // (issue 26): a JSON array of header names, NULL for runs saved before.
    sql: `ALTER TABLE reconciliations ADD COLUMN ignored_columns TEXT;`,
  },
  {
    version: 8,
    name: 'attempts that created nothing belong to their payout',
    // Earlier versions wrote a new entry when an external id was sent again after an attempt that
    // created nothing (a 429 or a request that never left: rejected with NOT_SENT; looked up and
    // not found): History showed that attempt as a refused transaction of its own and the Overview
    // counted it (issue 23). Each such entry joins the latest entry of its payout (profile,
    // environment, kind, external id): its timeline events move there (their ids keep the order),
    // batch and Reconcile rows point there, and the empty attempt goes.
    sql: `
      CREATE TEMP TABLE attempt_moves AS
        SELECT e.seq AS from_seq, e.id AS from_id,
          (SELECT l.seq FROM entries l INDEXED BY entries_by_external_id
             WHERE l.external_id = e.external_id AND l.kind = e.kind AND l.profile_id = e.profile_id AND l.environment = e.environment
             ORDER BY l.created_at DESC, l.seq DESC LIMIT 1) AS to_seq
        FROM entries e
        WHERE e.external_id IS NOT NULL
          AND ((e.state = 'rejected' AND json_extract(e.last_error, '$.code') = 'NOT_SENT')
            OR (e.state = 'outcome_unknown' AND e.resolution = 'not_found'));
      DELETE FROM attempt_moves WHERE to_seq = from_seq;
      CREATE TEMP TABLE attempt_targets AS
        SELECT m.from_seq, m.from_id, m.to_seq, t.id AS to_id FROM attempt_moves m JOIN entries t ON t.seq = m.to_seq;
      UPDATE timeline SET entry_seq = (SELECT to_seq FROM attempt_targets WHERE from_seq = timeline.entry_seq)
        WHERE entry_seq IN (SELECT from_seq FROM attempt_targets);
      UPDATE batch_rows SET journal_id = (SELECT to_id FROM attempt_targets WHERE from_id = batch_rows.journal_id)
        WHERE journal_id IN (SELECT from_id FROM attempt_targets);
      UPDATE reconciliation_rows SET journal_id = (SELECT to_id FROM attempt_targets WHERE from_id = reconciliation_rows.journal_id)
        WHERE journal_id IN (SELECT from_id FROM attempt_targets);
      DELETE FROM entries WHERE seq IN (SELECT from_seq FROM attempt_targets);
      DROP TABLE attempt_targets;
      DROP TABLE attempt_moves;
    `,
  },
  {
    version: 9,
    name: 'external ids as identity',
    // already_sent_at: when the service refused this entry's POST because its external id already
    // existed; the entry then adopts the existing transaction ("already sent earlier") instead of
    // failing. retry_of: the external id this entry's row retries (a failed transaction's id, the
    // new one derived from it as <id>-r1), so History and reports link the two.
    sql: `
      ALTER TABLE entries ADD COLUMN already_sent_at INTEGER;
      ALTER TABLE entries ADD COLUMN retry_of TEXT;
      ALTER TABLE batch_rows ADD COLUMN retry_of TEXT;
      CREATE INDEX entries_adopted ON entries (profile_id, environment, created_at) WHERE already_sent_at IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'one entry per payout',
    // The journal is the only guard against paying twice (journal/payout-identity.ts, issue 35):
    // one entry per payout (profile, environment, kind, external id), held by a unique index so no
    // bug, second window or second process can write a second one. Entries an older version wrote
    // twice for one payout (the same file sent again, each row adopting the payout it named) fold
    // into the payout's best entry (known first, then unknown, then pending; the oldest): their
    // timeline events move there (their ids keep the order), batch and Reconcile rows point there.
    // Two entries holding different transactions at the service (a service that accepted the same
    // external id twice) are two payments that happened: the later ones stay, marked
    // legacy_duplicate, outside the index, never merged away.
    sql: `
      ALTER TABLE entries ADD COLUMN legacy_duplicate INTEGER;
      CREATE TEMP TABLE payout_keep AS
        SELECT g.profile_id, g.environment, g.kind, g.external_id,
          (SELECT k.seq FROM entries k INDEXED BY entries_by_external_id
             WHERE k.external_id = g.external_id AND k.kind = g.kind AND k.profile_id = g.profile_id AND k.environment = g.environment
             ORDER BY (k.state = 'known') DESC, (k.state = 'outcome_unknown' AND k.resolution IS NULL) DESC, (k.state = 'pending') DESC, k.created_at, k.seq
             LIMIT 1) AS keep_seq
        FROM entries g WHERE g.external_id IS NOT NULL
        GROUP BY g.profile_id, g.environment, g.kind, g.external_id HAVING COUNT(*) > 1;
      UPDATE entries SET legacy_duplicate = 1 WHERE seq IN (
        SELECT e.seq FROM payout_keep p
          JOIN entries e ON e.external_id = p.external_id AND e.kind = p.kind AND e.profile_id = p.profile_id AND e.environment = p.environment
          JOIN entries k ON k.seq = p.keep_seq
        WHERE e.seq <> p.keep_seq AND e.transaction_id IS NOT NULL AND k.transaction_id IS NOT NULL AND e.transaction_id <> k.transaction_id);
      CREATE TEMP TABLE payout_moves AS
        SELECT e.seq AS from_seq, e.id AS from_id, p.keep_seq AS to_seq, (SELECT id FROM entries WHERE seq = p.keep_seq) AS to_id
        FROM payout_keep p
          JOIN entries e ON e.external_id = p.external_id AND e.kind = p.kind AND e.profile_id = p.profile_id AND e.environment = p.environment
        WHERE e.seq <> p.keep_seq AND e.legacy_duplicate IS NULL;
      UPDATE timeline SET entry_seq = (SELECT to_seq FROM payout_moves WHERE from_seq = timeline.entry_seq)
        WHERE entry_seq IN (SELECT from_seq FROM payout_moves);
      UPDATE batch_rows SET journal_id = (SELECT to_id FROM payout_moves WHERE from_id = batch_rows.journal_id)
        WHERE journal_id IN (SELECT from_id FROM payout_moves);
      UPDATE reconciliation_rows SET journal_id = (SELECT to_id FROM payout_moves WHERE from_id = reconciliation_rows.journal_id)
        WHERE journal_id IN (SELECT from_id FROM payout_moves);
      DELETE FROM entries WHERE seq IN (SELECT from_seq FROM payout_moves);
      DROP TABLE payout_moves;
      DROP TABLE payout_keep;
      CREATE UNIQUE INDEX entries_one_per_payout ON entries (external_id, kind, profile_id, environment)
        WHERE external_id IS NOT NULL AND legacy_duplicate IS NULL;
    `,
  },
  {
    version: 11,
    name: 'a row belongs to one batch',
    // A cancelled batch's remaining rows are moved to the batch made of them (issue 37 item 3;
    // docs/decisions/a-row-belongs-to-one-batch.md): the old row keeps its place and says where it
    // went (moved_to, that batch's id), and is never sent by the old batch again. The triggers hold
    // that whatever path writes the entry: an entry becomes pending (its request about to leave)
    // only for a row that was not moved; the move points a moved row's earlier attempt (a 429) at
    // the new batch, whose row continues it.
    sql: `
      ALTER TABLE batch_rows ADD COLUMN moved_to TEXT;
      CREATE TRIGGER entries_moved_row_insert BEFORE INSERT ON entries
        WHEN NEW.state = 'pending' AND NEW.batch_id IS NOT NULL AND EXISTS (
          SELECT 1 FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
          WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row AND br.moved_to IS NOT NULL)
      BEGIN SELECT RAISE(ABORT, 'this batch row was moved to another batch: it is never sent by this one'); END;
      CREATE TRIGGER entries_moved_row_update BEFORE UPDATE OF state, batch_id, batch_row ON entries
        WHEN NEW.state = 'pending' AND NEW.batch_id IS NOT NULL AND EXISTS (
          SELECT 1 FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
          WHERE b.id = NEW.batch_id AND br.row_number = NEW.batch_row AND br.moved_to IS NOT NULL)
      BEGIN SELECT RAISE(ABORT, 'this batch row was moved to another batch: it is never sent by this one'); END;
    `,
  },
];

export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
