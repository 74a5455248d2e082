/**
 * Several desktops, one batch, each row sent once: a desktop claims a few rows at a time with
 * `SELECT … FOR UPDATE SKIP LOCKED` (two desktops claiming at once never wait for each other nor
 * get the same row) and holds them under a lease on the database's clock, renewed while it sends.
 *
 * Only rows not sent are claimed, and only while the batch is `sending` (a Pause or Cancel written
 * by any desktop stops every desktop's next claim). A lease that runs out frees its rows; a row
 * whose entry is still `pending` (its desktop may have sent it, then died) becomes outcome
 * unknown: it is looked up by external id before anything is sent again, never resent blindly.
 * Row-level security (migration 7) keeps a live claim its login's alone.
 */
import type { BatchRow } from '../../../../shared/api';
import type { EntryRow } from '../../journal/rows';
import { LEASE_LOST_MESSAGE, type BatchPort } from '../port';
import { inTransaction, type WorkspacePool } from './db';
import { applyInitiateOutcome } from './journal';
import { ROW_STATE_SQL, ROWS_SQL, toRow } from './batch-rows';

type Claims = Pick<BatchPort, 'claimRows' | 'renewClaims' | 'releaseClaims' | 'expireClaims'>;

export function workspaceClaims(pool: WorkspacePool): Claims {
  return {
    claimRows: (batchId, holder, limit, leaseMs) =>
      inTransaction(pool, async (c) => {
        const { rows: claimed } = await c.query<{ row_number: number; lease_until: number }>(
          `WITH picked AS (
             SELECT br.batch_seq, br.row_number FROM batch_rows br
               JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id
             WHERE b.id = $1 AND b.state = 'sending' AND br.request IS NOT NULL
               AND (br.lease_until IS NULL OR br.lease_until <= paydesk_now_ms())
               AND ${ROW_STATE_SQL} = 'not_sent'
             ORDER BY br.row_number LIMIT $3
             FOR UPDATE OF br SKIP LOCKED)
           UPDATE batch_rows br SET claim_holder = $2, lease_until = paydesk_now_ms() + $4
           FROM picked WHERE br.batch_seq = picked.batch_seq AND br.row_number = picked.row_number
           RETURNING br.row_number, br.lease_until`,
          [batchId, holder, limit, leaseMs],
        );
        const numbers = claimed.map((row) => row.row_number);
        let rows: BatchRow[] = [];
        if (numbers.length > 0) {
          const result = await c.query(`${ROWS_SQL} WHERE b.id = $1 AND br.row_number = ANY($2) ORDER BY br.row_number`, [batchId, numbers]);
          rows = result.rows.map(toRow);
        }
        const until = claimed.length > 0 ? Math.max(...claimed.map((row) => row.lease_until)) : 0;
        return { batchId, holder, until, rows };
      }),
    /**
     * Never waits for a row lock: the desktop's own group commit may hold some of the claim's rows
     * (linking their entries) while it waits for another of them, and a renewal that waited would
     * deadlock with it. A row locked now is counted as held (its live lease says so) and renewed
     * by the next renewal.
     */
    async renewClaims(batchId, holder, leaseMs) {
      const result = await pool.query<{ held: number }>(
        `WITH held AS (
           SELECT br.batch_seq, br.row_number FROM batch_rows br
           WHERE br.batch_seq = (SELECT seq FROM batches WHERE id = $1) AND br.claim_holder = $2 AND br.claimed_by = session_user
             AND br.lease_until > paydesk_now_ms()),
         free AS (
           SELECT br.batch_seq, br.row_number FROM batch_rows br JOIN held USING (batch_seq, row_number)
           FOR UPDATE OF br SKIP LOCKED),
         renewed AS (
           UPDATE batch_rows br SET lease_until = paydesk_now_ms() + $3
           FROM free WHERE br.batch_seq = free.batch_seq AND br.row_number = free.row_number RETURNING 1)
         SELECT (SELECT count(*) FROM held)::int AS held, (SELECT count(*) FROM renewed)::int AS renewed`,
        [batchId, holder, leaseMs],
      );
      return result.rows[0]?.held ?? 0;
    },
    async releaseClaims(batchId, holder, rowNumbers) {
      await pool.query(
        `UPDATE batch_rows SET claim_holder = NULL
         WHERE batch_seq = (SELECT seq FROM batches WHERE id = $1) AND claim_holder = $2 AND claimed_by = session_user AND row_number = ANY($3)`,
        [batchId, holder, rowNumbers],
      );
    },
    expireClaims: (at) =>
      inTransaction(pool, async (c) => {
        const { rows: expired } = await c.query<{ batch_seq: number; row_number: number; batch_id: string; journal_id: string | null }>(
          `SELECT br.batch_seq, br.row_number, b.id AS batch_id, br.journal_id FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
           WHERE br.lease_until <= paydesk_now_ms() ORDER BY br.batch_seq, br.row_number FOR UPDATE OF br SKIP LOCKED`,
        );
        const lost: { batchId: string; rowNumber: number; journalId: string }[] = [];
        for (const row of expired) {
          if (row.journal_id) {
            const entry = (await c.query<EntryRow>(`SELECT * FROM entries WHERE id = $1 AND state = 'pending' FOR UPDATE`, [row.journal_id])).rows[0];
            if (entry) {
              await applyInitiateOutcome(c, entry, { kind: 'may-exist', cause: 'no-answer', message: LEASE_LOST_MESSAGE, error: null, retryAfterSeconds: null }, at);
              lost.push({ batchId: row.batch_id, rowNumber: row.row_number, journalId: row.journal_id });
            }
          }
          await c.query('UPDATE batch_rows SET claim_holder = NULL WHERE batch_seq = $1 AND row_number = $2', [row.batch_seq, row.row_number]);
        }
        return lost;
      }),
  };
}
