/**
 * A run's sign of life in a team workspace (../batch-runs-port.ts, migration 27): `alive_until` on
 * the database's clock, so every desktop measures it on one clock.
 */
import type { BatchRunsPort } from '../batch-runs-port';
import { inTransaction, type WorkspacePool } from './db';

/** A batch whose run showed life less than a lease ago (SQL on `b`, the batches row). */
export const RUN_ALIVE_SQL = `EXISTS (SELECT 1 FROM batch_runs r WHERE r.batch_seq = b.seq AND r.alive_until > paydesk_now_ms())`;

export function workspaceBatchRuns(pool: WorkspacePool): Required<BatchRunsPort> {
  return {
    async keepRunAlive(batchId, run, leaseMs) {
      await pool.query({
        name: 'paydesk_keep_run_alive',
        text: `INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT seq, $2, paydesk_now_ms() + $3 FROM batches WHERE id = $1
         ON CONFLICT (batch_seq, run) DO UPDATE SET alive_until = EXCLUDED.alive_until`,
        values: [batchId, run, leaseMs],
      });
    },
    leaveRun: (batchId, run) =>
      // Under the batch's row lock: of two runs leaving at once, the second sees the first gone
      // (and so writes the batch's end), never both seeing the other alive.
      inTransaction(pool, async (c) => {
        const { rows } = await c.query<{ seq: number }>('SELECT seq FROM batches b WHERE id = $1 FOR UPDATE', [batchId]);
        if (!rows[0]) return false;
        await c.query('DELETE FROM batch_runs WHERE batch_seq = $1 AND (run = $2 OR alive_until <= paydesk_now_ms())', [rows[0].seq, run]);
        const others = await c.query<{ alive: boolean }>(`SELECT ${RUN_ALIVE_SQL} AS alive FROM batches b WHERE b.seq = $1`, [rows[0].seq]);
        return others.rows[0]?.alive === true;
      }),
  };
}
