/**
 * Batches, their rows and runs in a team workspace: the same reading as the SQLite store
 * (../../batch/store.ts): a row's sending state is its journal entry's phase, so the batch,
 * History and every desktop see one truth. Row claims are in ./claims.ts.
 */
import type { BatchCounts, BatchRow, BatchRowState, BatchState, BatchSummary } from '../../../../shared/api';
import { BATCH_STATE_TABLE } from '../../states/tables';
import type { BatchPort, NewBatch } from '../port';
import { BatchStateChanged, RowsStillClaimed, type BatchDraftsPort } from '../batch-drafts-port';
import { inTransaction, type Queryable, type WorkspacePool } from './db';
import { workspaceClaims } from './claims';
import { insertRows, ROW_STATE_SQL, ROWS_SQL, rowsInState, toRow, type RowDbRow } from './batch-rows';
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
  /** The login of the desktop whose Local sandbox this batch is on, when it is not this connection's (migration 50). */
  sandbox_elsewhere_by: string | null;
}

/**
 * A batch with whose Local sandbox it is on, when another desktop's: only that desktop sends it
 * (migration 50's paydesk_sandbox_batch_elsewhere, the database's own rule; the console refuses first).
 */
const BATCH_SQL = 'SELECT *, CASE WHEN paydesk_sandbox_batch_elsewhere(profile_id, desktop_id, created_by) THEN created_by END AS sandbox_elsewhere_by FROM batches';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const EMPTY_COUNTS = (): BatchCounts => ({ rows: 0, valid: 0, invalid: 0, duplicates: 0, notSent: 0, pending: 0, accepted: 0, rejected: 0, unknown: 0, completed: 0, failed: 0, cancelled: 0, processing: 0, elsewhere: 0, moved: 0 });

/** The same counters as ../../batch/store.ts countRows, from one grouped read. */
/**
 * The batch's counters (and its total amount unless `withAmount` is false: reading each row's
 * request as JSON was most of a progress event's count, and progress events do not show it; the
 * SQLite store's countRows, ../../batch/store.ts, does the same).
 */
export async function countRows(c: Queryable, id: string, withAmount = true): Promise<{ counts: BatchCounts; totalAmount: number }> {
  const { rows } = await c.query<{ row_state: BatchRowState; status: string | null; valid: boolean; duplicate: boolean; elsewhere: boolean | null; moved: boolean; n: number; amount: number }>(
    `SELECT ${ROW_STATE_SQL} AS row_state, e.status AS status, br.request IS NOT NULL AS valid, br.duplicates != '[]' AS duplicate, (br.journal_id IS NOT NULL AND e.batch_id IS DISTINCT FROM b.id) AS elsewhere,
       br.moved_to IS NOT NULL AS moved, count(*) AS n, ${withAmount ? `coalesce(sum((br.request::jsonb ->> 'amount')::bigint), 0)::bigint` : '0'} AS amount
     FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id
     WHERE b.id = $1 GROUP BY 1, 2, 3, 4, 5, 6`,
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
    // Moved before linked elsewhere: a moved row's earlier attempt now names the batch it moved to.
    if (group.moved) {
      counts.moved += group.n;
      continue;
    }
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
    ...(row.sandbox_elsewhere_by !== null ? { sandboxElsewhereBy: row.sandbox_elsewhere_by } : {}),
  };
}

async function insertBatch(c: Queryable, input: NewBatch): Promise<void> {
  const { rows } = await c.query<{ seq: number }>(
    `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, payment_method, concurrency, retry_of, created_at, updated_at)
     VALUES ($1, $2, $3, 'draft', $4, $5, $6, $7, $8, $9, $10, $10) RETURNING seq`,
    [input.id, input.fileName, input.fileHash, input.profile.id, input.profile.name, input.profile.environment, input.paymentMethod, input.concurrency, input.retryOf, input.at],
  );
  // One INSERT for the whole file, each row with the payout it retries (a retry draft's).
  await insertRows(c, rows[0]!.seq, input.rows);
}

/**
 * BatchPort.moveRemaining inside the caller's transaction. The batch is locked (cancelled is
 * final: no claim starts on it again), then every valid row not moved (FOR UPDATE, before they are
 * read: a desktop writing one's entry holds it FOR SHARE through the entries trigger of migration
 * 47, so its write and the move are one after the other, never both). A row a live lease still
 * holds (a desktop that was sending may still write it) refuses the move whole.
 */
async function moveRemainingRows(c: Queryable, fromId: string, make: (remaining: BatchRow[]) => NewBatch): Promise<NewBatch | null> {
  const { rows: found } = await c.query<{ seq: number; state: BatchState }>('SELECT seq, state FROM batches WHERE id = $1 FOR UPDATE', [fromId]);
  const from = found[0];
  if (!from) throw new Error(`batch ${fromId} does not exist`);
  if (from.state !== 'cancelled') throw new BatchStateChanged(fromId, from.state);
  // Owner's rights are not needed: a row under another login's live lease is refused below, not skipped.
  await c.query('SELECT 1 FROM batch_rows WHERE batch_seq = $1 AND request IS NOT NULL AND moved_to IS NULL ORDER BY row_number FOR UPDATE', [from.seq]);
  // A new statement: its snapshot sees every entry written before the locks were had.
  const remaining = (
    await c.query<RowDbRow & { lease_until: number | null; live: boolean }>(
      `SELECT * FROM (${ROWS_SQL.replace('SELECT ', 'SELECT br.lease_until > paydesk_now_ms() AS live, ')} WHERE b.id = $1 AND br.request IS NOT NULL AND br.moved_to IS NULL) r
       WHERE row_state = 'not_sent' ORDER BY row_number`,
      [fromId],
    )
  ).rows;
  const held = remaining.filter((row) => row.live === true).length;
  if (held > 0) throw new RowsStillClaimed(fromId, held);
  if (remaining.length === 0) return null;
  const made = make(remaining.map(toRow));
  await insertBatch(c, made);
  const numbers = remaining.map((row) => row.row_number);
  const moved = await c.query('UPDATE batch_rows SET moved_to = $1 WHERE batch_seq = $2 AND row_number = ANY($3) AND moved_to IS NULL', [made.id, from.seq, numbers]);
  if (moved.rowCount !== numbers.length) throw new Error(`batch ${fromId}: ${numbers.length - (moved.rowCount ?? 0)} row(s) could not be moved`);
  // A moved row's earlier attempt that created nothing (a 429): the new batch's row continues it.
  const attempts = remaining.flatMap((row) => (row.journal_id ? [row.journal_id] : []));
  if (attempts.length > 0) await c.query('UPDATE entries SET batch_id = $1 WHERE id = ANY($2) AND batch_id = $3', [made.id, attempts, fromId]);
  return made;
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
    create: (input) => inTransaction(pool, async (c) => insertBatch(c, input)),
    moveRemaining: (fromId, _at, make) => inTransaction(pool, async (c) => moveRemainingRows(c, fromId, make)),
    async summary(id) {
      const { rows } = await pool.query<BatchDbRow>(`${BATCH_SQL} WHERE id = $1`, [id]);
      return rows[0] ? toSummary(pool, rows[0]) : null;
    },
    async list(limit = 200) {
      const { rows } = await pool.query<BatchDbRow>(`${BATCH_SQL} ORDER BY created_at DESC, seq DESC LIMIT $1`, [limit]);
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
