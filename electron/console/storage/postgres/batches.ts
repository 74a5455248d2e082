/**
 * Batches, their rows and runs in a team workspace: the same reading as the SQLite store
 * (../../batch/store.ts): a row's sending state is its journal entry's phase, so the batch,
 * History and every desktop see one truth. Row claims are in ./claims.ts.
 */
import type { BatchCounts, BatchRowState, BatchState, BatchSummary } from '../../../../shared/api';
import { BATCH_STATE_TABLE } from '../../states/tables';
import type { BatchPort } from '../port';
import { BatchStateChanged, type BatchDraftsPort } from '../batch-drafts-port';
import { inTransaction, type Queryable, type WorkspacePool } from './db';
import { workspaceClaims } from './claims';
import { insertRows, ROW_STATE_SQL, rowsInState } from './batch-rows';
import { RUN_ALIVE_SQL, workspaceBatchRuns } from './batch-runs';

interface BatchDbRow {
  id: string;
  file_name: string;
  file_hash: string;
  state: BatchState;
  state_reason: string | null;
  profile_id: string;
  profile_name: string;
  environment: 'sandbox' | 'live';
  payment_method: string | null;
  concurrency: number;
  retry_of: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const EMPTY_COUNTS = (): BatchCounts => ({ rows: 0, valid: 0, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 0, rejected: 0, unknown: 0, completed: 0, failed: 0, cancelled: 0, processing: 0, elsewhere: 0 });

/** The same counters as ../../batch/store.ts countRows, from one grouped read. */
/**
 * The batch's counters (and its total amount unless `withAmount` is false: reading each row's
 * request as JSON was most of a progress event's count, and progress events do not show it; the
 * SQLite store's countRows, ../../batch/store.ts, does the same).
 */
export async function countRows(c: Queryable, id: string, withAmount = true): Promise<{ counts: BatchCounts; totalAmount: number }> {
  const { rows } = await c.query<{ row_state: BatchRowState; status: string | null; valid: boolean; duplicate: boolean; elsewhere: boolean | null; n: number; amount: number }>(
    `SELECT ${ROW_STATE_SQL} AS row_state, e.status AS status, br.request IS NOT NULL AS valid, br.duplicates != '[]' AS duplicate, (br.journal_id IS NOT NULL AND e.batch_id IS DISTINCT FROM b.id) AS elsewhere,
       count(*) AS n, ${withAmount ? `coalesce(sum((br.request::jsonb ->> 'amount')::bigint), 0)::bigint` : '0'} AS amount
     FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id
     WHERE b.id = $1 GROUP BY 1, 2, 3, 4, 5`,
    [id],
  );
  const counts = EMPTY_COUNTS();
  let totalAmount = 0;
  for (const group of rows) {
    counts.rows += group.n;
    if (group.duplicate) counts.duplicates += group.n;
    if (!group.valid) {
      counts.invalid += group.n;
      continue;
    }
    counts.valid += group.n;
    totalAmount += group.amount;
    if (group.elsewhere) {
      counts.elsewhere += group.n;
      continue;
    }
    switch (group.row_state) {
      case 'not_sent':
        counts.notSent += group.n;
        break;
      case 'pending':
        counts.pending += group.n;
        break;
      case 'unknown':
        counts.unknown += group.n;
        break;
      case 'rejected':
        counts.rejected += group.n;
        break;
      case 'accepted':
        counts.accepted += group.n;
        if (group.status === 'completed') counts.completed += group.n;
        else if (group.status === 'failed') counts.failed += group.n;
        else if (group.status === 'cancelled') counts.cancelled += group.n;
        else counts.processing += group.n;
        break;
      default: {
        const never: never = group.row_state;
        throw new Error(`unknown row state ${String(never)}`);
      }
    }
  }
  return { counts, totalAmount };
}

async function toSummary(c: Queryable, row: BatchDbRow): Promise<BatchSummary> {
  const { counts, totalAmount } = await countRows(c, row.id);
  return {
    id: row.id,
    fileName: row.file_name,
    state: row.state,
    stateReason: row.state_reason,
    profileId: row.profile_id,
    profileName: row.profile_name,
    environment: row.environment,
    paymentMethod: row.payment_method,
    concurrency: row.concurrency,
    totalAmount,
    counts,
    fileHash: row.file_hash,
    retryOf: row.retry_of,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

/** The batch port less its drafts' part (./batch-drafts.ts, which reads counts from here): joined in ./store.ts. */
export function workspaceBatches(pool: WorkspacePool): Omit<BatchPort, keyof BatchDraftsPort> {
  const setState: BatchPort['setState'] = (id, state, at, extra = {}) =>
    inTransaction(pool, async (c) => {
      const { rows } = await c.query<{ state: BatchState }>('SELECT state FROM batches WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) throw new Error(`batch ${id} does not exist`);
      // Under the row lock: of two starts of one draft (two desktops), the second finds it sending.
      if (extra.onlyFrom !== undefined && rows[0].state !== extra.onlyFrom) throw new BatchStateChanged(id, rows[0].state);
      BATCH_STATE_TABLE.assertMove(rows[0].state, state, id);
      await c.query(
        `UPDATE batches SET state = $1, state_reason = $2, updated_at = $3,
           started_at = CASE WHEN $4 THEN COALESCE(started_at, $3) ELSE started_at END,
           finished_at = CASE WHEN $5 THEN $3 ELSE finished_at END,
           concurrency = COALESCE($6, concurrency),
           profile_id = COALESCE($7, profile_id), profile_name = COALESCE($8, profile_name), environment = COALESCE($9, environment)
         WHERE id = $10`,
        [state, extra.reason ?? null, at, extra.started === true, extra.finished === true, extra.concurrency ?? null, extra.profile?.id ?? null, extra.profile?.name ?? null, extra.profile?.environment ?? null, id],
      );
    });
  return {
    create: (input) =>
      inTransaction(pool, async (c) => {
        const { rows } = await c.query<{ seq: number }>(
          `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, payment_method, concurrency, retry_of, created_at, updated_at)
           VALUES ($1, $2, $3, 'draft', $4, $5, $6, $7, $8, $9, $10, $10) RETURNING seq`,
          [input.id, input.fileName, input.fileHash, input.profile.id, input.profile.name, input.profile.environment, input.paymentMethod, input.concurrency, input.retryOf, input.at],
        );
        const seq = rows[0]!.seq;
        // One INSERT for the whole file, each row with the payout it retries (a retry draft's).
        await insertRows(c, seq, input.rows);
      }),
    async summary(id) {
      const { rows } = await pool.query<BatchDbRow>('SELECT * FROM batches WHERE id = $1', [id]);
      return rows[0] ? toSummary(pool, rows[0]) : null;
    },
    async list(limit = 200) {
      const { rows } = await pool.query<BatchDbRow>('SELECT * FROM batches ORDER BY created_at DESC, seq DESC LIMIT $1', [limit]);
      return Promise.all(rows.map((row) => toSummary(pool, row)));
    },
    async earlierImports(fileHash, exceptId) {
      const { rows } = await pool.query<{ id: string; file_name: string; state: BatchState; created_at: number }>(
        'SELECT id, file_name, state, created_at FROM batches WHERE file_hash = $1 AND id != $2 ORDER BY created_at',
        [fileHash, exceptId],
      );
      return rows.map((row) => ({ batchId: row.id, fileName: row.file_name, state: row.state, createdAt: iso(row.created_at)! }));
    },
    setState,
    rowsInState: (id, states) => rowsInState(pool, id, states),
    counts: (id) => countRows(pool, id),
    /**
     * In a workspace, a `sending` batch is interrupted only when no desktop has shown life on it
     * for a lease: no run's heartbeat (migration 27: a run holds no row between claims or while
     * looking rows up) and no live claim on any of its rows (another desktop may be sending it now).
     */
    async markInterrupted(at) {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT b.id FROM batches b WHERE b.state = 'sending'
           AND NOT EXISTS (SELECT 1 FROM batch_rows br WHERE br.batch_seq = b.seq AND br.lease_until > paydesk_now_ms())
           AND NOT ${RUN_ALIVE_SQL}`,
      );
      for (const { id } of rows) {
        await setState(id, 'interrupted', at, { reason: 'Paydesk stopped while this batch was being sent: Resume looks up the rows whose outcome is unknown before sending the rest.' });
      }
      return rows.map((row) => row.id);
    },
    ...workspaceClaims(pool),
    ...workspaceBatchRuns(pool),
  };
}
