/**
 * The storage port on a team workspace (PostgreSQL): journal, batches and claims, reconcile runs,
 * the sweeper's work and team settings, each write one transaction, who did what stamped by the
 * database from the login (migration 7). The connecting desktop checks the schema first.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ReconcileStatus } from '../../../../shared/api/reconcile';
import { RECONCILE_STATE_TABLE } from '../../states/tables';
import { FIRST_OPEN_PAGE, readIgnoredColumns, type ReconcilePort, type StoragePort, type SweeperPort, type TeamSettingsPort } from '../port';
import { inTransaction, openWorkspacePool, type WorkspacePool } from './db';
import { workspaceApprovals } from './approvals';
import { workspacePeople } from './people';
import { workspaceTeamSandbox } from './team-sandbox';
import { workspaceAudit } from './audit';
import { workspaceTeamProfiles } from './team-profiles';
import { askSender, readAsk } from './send-asks';
import { workspaceBatchDrafts } from './batch-drafts';
import { workspaceBatches } from './batches';
import { LOCAL_SANDBOX_OWNED, workspaceFollowUps } from './follow-ups';
import { workspaceGroupCommit, writePerTransaction } from './group-commit';
import { workspaceJournal } from './journal';
import { workspaceChanges } from './live-changes';
import { workspaceLoginRights } from './login-rights';
import { workspaceReads } from './reads';
import { workspaceReconcileRows } from './reconcile-rows';
import { OPEN_STATUS_SQL } from '../../journal/rows';
import { checkWorkspaceSchema } from './migrate';

/** Rows per INSERT while a reconciliation file is saved. */
const INSERT_CHUNK = 1000;

function workspaceReconcile(pool: WorkspacePool): ReconcilePort {
  const setStatus: ReconcilePort['setStatus'] = (id, status, at, phase) =>
    inTransaction(pool, async (c) => {
      const { rows } = await c.query<{ status: ReconcileStatus | 'importing' }>('SELECT status FROM reconciliations WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) throw new Error(`reconciliation ${id} does not exist`);
      RECONCILE_STATE_TABLE.assertMove(rows[0].status, status, id);
      await c.query(
        `UPDATE reconciliations SET status = $1, phase = COALESCE($2, phase), updated_at = $3::bigint,
           finished_at = CASE WHEN $1 = 'done' THEN $3::bigint ELSE NULL END WHERE id = $4`,
        [status, phase ?? null, at, id],
      );
    });
  return {
    ...workspaceReconcileRows(pool),
    /** One transaction for the run and its rows: PostgreSQL needs no hidden `importing` run. */
    create: (input, alive = () => true) =>
      inTransaction(pool, async (c) => {
        const id = randomUUID();
        await c.query(
          `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes,
             period_from, period_to, period_source, currency, created_at, updated_at, ignored_columns)
           VALUES ($1, $2, $3, $4, $5, 'running', 'matching', $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
          [
            id, input.fileName, input.profile.id, input.profile.name, input.profile.environment, input.rows.length, input.processingMinutes,
            input.period?.from ?? null, input.period?.to ?? null, input.period?.source ?? null, input.currency, input.at,
            // As the journal writes it (reconcile/store.ts): always the array, empty when none.
            JSON.stringify(input.ignoredColumns ?? []),
          ],
        );
        for (let start = 0; start < input.rows.length; start += INSERT_CHUNK) {
          // The console is closing: rolled back, nothing of the file saved.
          if (!alive()) throw new Error('the reconciliation was not saved');
          const chunk = input.rows.slice(start, start + INSERT_CHUNK);
          await c.query(
            `INSERT INTO reconciliation_rows (reconciliation_id, row_number, source, external_id, kind, amount, expected_raw, expected, row_date)
             SELECT $1, r, 'file', x, k, a, er, ex, d FROM unnest($2::int[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[]) AS t(r, x, k, a, er, ex, d)`,
            [id, chunk.map((r) => r.row), chunk.map((r) => r.externalId), chunk.map((r) => r.kind), chunk.map((r) => r.amount), chunk.map((r) => r.expectedRaw), chunk.map((r) => r.expected), chunk.map((r) => r.dateRaw)],
          );
        }
        return id;
      }),
    async run(id) {
      const { rows } = await pool.query<{ id: string; status: ReconcileStatus; phase: 'matching' | 'verifying'; total_rows: number; file_name: string; unchecked: number; ignored_columns: string | null }>(
        `SELECT r.id, r.status, r.phase, r.total_rows, r.file_name, r.ignored_columns,
           (SELECT count(*) FROM reconciliation_rows x WHERE x.reconciliation_id = r.id AND x.source = 'file' AND x.category IS NULL) AS unchecked
         FROM reconciliations r WHERE r.id = $1 AND r.status != 'importing'`,
        [id],
      );
      const run = rows[0];
      return run
        ? { id: run.id, status: run.status, phase: run.phase, totalRows: run.total_rows, fileName: run.file_name, unchecked: Number(run.unchecked), ignoredColumns: readIgnoredColumns(run.ignored_columns) }
        : null;
    },
    setStatus,
    /** In a workspace, only this login's own running runs (another desktop's may be running now). */
    async markInterrupted(at) {
      const { rows } = await pool.query<{ id: string }>(`SELECT id FROM reconciliations WHERE status = 'running' AND updated_by = session_user`);
      for (const { id } of rows) await setStatus(id, 'interrupted', at);
      return rows.length;
    },
  };
}

/**
 * The follow-up sweeper's open entries: known without a final status, or outcome unknown and
 * not yet looked up. Read from entries_by_status (its NULLs too) and entries_by_state
 * (test/storage/entry-indexes.test.ts): a scan of the journal at every sweep otherwise.
 */
export const OPEN_ENTRIES_SQL = `SELECT id, kind, state, status, transaction_id, external_id, profile_id, environment, batch_id, updated_at FROM entries
  WHERE ((state = 'known' AND ${OPEN_STATUS_SQL})
     OR (state = 'outcome_unknown' AND resolution IS NULL AND external_id IS NOT NULL AND (batch_id IS NOT NULL OR updated_at < $1)))
  AND ${LOCAL_SANDBOX_OWNED}
  AND (updated_at, id) > ($3::bigint, $4::text)
  ORDER BY updated_at, id LIMIT $2`;

function workspaceSweeper(pool: WorkspacePool): SweeperPort {
  return {
    async openEntries(singleSendsBefore, limit, after = FIRST_OPEN_PAGE) {
      const { rows } = await pool.query<{ id: string; kind: 'payment' | 'payout'; state: 'known' | 'outcome_unknown'; status: null; transaction_id: string | null; external_id: string | null; profile_id: string; environment: 'sandbox' | 'live'; batch_id: string | null; updated_at: string }>(
        OPEN_ENTRIES_SQL,
        [singleSendsBefore, limit, after.updatedAtMs, after.id],
      );
      return rows.map((row) => ({ id: row.id, kind: row.kind, state: row.state, status: row.status, transactionId: row.transaction_id, externalId: row.external_id, profileId: row.profile_id, environment: row.environment, batchId: row.batch_id, updatedAtMs: Number(row.updated_at) }));
    },
  };
}

function workspaceSettings(pool: WorkspacePool): TeamSettingsPort {
  return {
    async get(key) {
      const { rows } = await pool.query<{ value: unknown }>('SELECT value FROM team_settings WHERE key = $1', [key]);
      return rows[0]?.value ?? null;
    },
    async set(key, value, at) {
      await pool.query(
        `INSERT INTO team_settings (key, value, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [key, JSON.stringify(value), at],
      );
    },
  };
}

/** Connects to a workspace (checking its schema) and returns the port over it. */
export async function openWorkspaceStore(config: pg.PoolConfig): Promise<StoragePort> {
  const pool = openWorkspacePool(config);
  try {
    const client = await pool.connect();
    try {
      await checkWorkspaceSchema(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return workspaceStore(pool);
}

export interface WorkspaceStoreOptions {
  /** `per-transaction` only for bench/storage.ts's comparison: a flush per journal write. */
  journalWrites?: 'grouped' | 'per-transaction';
}

export function workspaceStore(pool: WorkspacePool, options: WorkspaceStoreOptions = {}): StoragePort {
  // pg-pool keeps the password out of its options' enumerable keys (never in a log): passed on by name.
  const groupConfig = { ...pool.options, password: pool.options.password };
  const writes = options.journalWrites === 'per-transaction' ? writePerTransaction(pool) : workspaceGroupCommit(groupConfig);
  const journal = workspaceJournal(pool, writes);
  // Every desktop's commits, heard on one more connection once someone subscribes (./live-changes.ts).
  const changes = workspaceChanges(groupConfig);
  return {
    kind: 'postgres',
    journal: { ...journal, ...workspaceFollowUps(pool, journal.recordObserved), ...workspaceReads(pool) },
    batches: { ...workspaceBatches(pool), ...workspaceBatchDrafts(pool) },
    reconcile: workspaceReconcile(pool),
    sweeper: workspaceSweeper(pool),
    settings: workspaceSettings(pool),
    changes: { subscribe: changes.subscribe, ready: changes.ready },
    approvals: workspaceApprovals(pool),
    people: workspacePeople(pool),
    audit: workspaceAudit(pool),
    teamProfiles: workspaceTeamProfiles(pool),
    teamSandbox: workspaceTeamSandbox(pool),
    sendAsks: { ask: (input) => askSender(pool, input), read: (id) => readAsk(pool, id) },
    loginRights: () => workspaceLoginRights(pool),
    async close() {
      await changes.close();
      // Writes still queued are committed (or refused) before the connections close.
      await writes.close();
      await pool.end();
    },
  };
}
