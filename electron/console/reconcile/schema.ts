/**
 * Journal migration 3: reconciliations and their rows, kept so a report can be reopened and an
 * interrupted run resumed from the rows not yet checked (`category IS NULL`).
 */
export const RECONCILE_MIGRATION = {
  version: 3,
  name: 'reconciliations',
  sql: `
    CREATE TABLE reconciliations (
      id TEXT PRIMARY KEY,
      file_name TEXT NOT NULL,
      profile_id TEXT NOT NULL,
      profile_name TEXT NOT NULL,
      environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'live')),
      -- 'importing' while the rows are written in chunks: never shown, removed at the next start.
      status TEXT NOT NULL CHECK (status IN ('importing', 'running', 'done', 'cancelled', 'interrupted')),
      phase TEXT NOT NULL CHECK (phase IN ('matching', 'verifying')),
      total_rows INTEGER NOT NULL,
      processing_minutes INTEGER NOT NULL,
      period_from INTEGER,
      period_to INTEGER,
      period_source TEXT CHECK (period_source IN ('file', 'picked')),
      -- Set once the journal has been searched for entries the file does not have.
      unknown_done INTEGER NOT NULL DEFAULT 0,
      rate_limit_waits INTEGER NOT NULL DEFAULT 0,
      currency TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      finished_at INTEGER
    );
    CREATE INDEX reconciliations_by_created ON reconciliations (created_at);

    CREATE TABLE reconciliation_rows (
      reconciliation_id TEXT NOT NULL REFERENCES reconciliations (id) ON DELETE CASCADE,
      -- File rows: the spreadsheet row (header = 1). Journal entries missing from the file come after.
      row_number INTEGER NOT NULL,
      source TEXT NOT NULL CHECK (source IN ('file', 'journal')),
      external_id TEXT,
      kind TEXT NOT NULL CHECK (kind IN ('payment', 'payout')),
      amount INTEGER,
      expected_raw TEXT,
      expected TEXT CHECK (expected IN ('completed', 'failed', 'cancelled', 'processing', 'not_completed')),
      row_date TEXT,
      category TEXT,
      journal_id TEXT,
      transaction_id TEXT,
      service_status TEXT,
      service_amount INTEGER,
      service_created_at INTEGER,
      currency TEXT,
      detail TEXT,
      verified INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (reconciliation_id, row_number)
    ) WITHOUT ROWID;
    CREATE INDEX reconciliation_rows_by_category ON reconciliation_rows (reconciliation_id, category, row_number);
  `,
} as const;
