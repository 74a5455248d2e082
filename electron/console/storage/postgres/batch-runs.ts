/**
 * A run's sign of life in a team workspace (../batch-runs-port.ts, migration 27): `alive_until` on
 * the database's clock, so every desktop measures it on one clock. Migration 29 makes each run its
 * login's (row-level security).
 */
import type { EntryRow } from '../../journal/rows';
import { CONSOLE_STOPPED_MESSAGE, type BatchRunsPort } from '../batch-runs-port';
import { inTransaction, type WorkspacePool } from './db';
import { applyInitiateOutcome } from './journal';

/** A batch whose run showed life less than a lease ago (SQL on `b`, the batches row). */
export const RUN_ALIVE_SQL = `EXISTS (SELECT 1 FROM batch_runs r WHERE r.batch_seq = b.seq AND r.alive_until > paydesk_now_ms())`;

/** `id` (a run's or a claim's) belongs to one of the consoles in `$1` (ids are `<holder>/…`; compared exactly, no LIKE patterns). */
const OF_HOLDERS = (id: string) => `EXISTS (SELECT 1 FROM unnest($1::text[]) h WHERE left(${id}, length(h) + 1) = h || '/')`;

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
    endStoppedConsoles: (holders, at) =>
      inTransaction(pool, async (c) => {
        if (holders.length === 0) return [];
        // Their runs show no life from now on: a start interrupts their batches unless another desktop sends them.
        await c.query(`DELETE FROM batch_runs WHERE login = session_user AND ${OF_HOLDERS('run')}`, [holders]);
        // Their claims, locked (a stopped console's transaction was rolled back with its connection).
        const { rows: held } = await c.query<{ batch_seq: number; row_number: number; batch_id: string; journal_id: string | null }>(
          `SELECT br.batch_seq, br.row_number, b.id AS batch_id, br.journal_id FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq
           WHERE br.claim_holder IS NOT NULL AND br.claimed_by = session_user AND ${OF_HOLDERS('br.claim_holder')}
           ORDER BY br.batch_seq, br.row_number FOR UPDATE OF br`,
          [holders],
        );
        const lost: { batchId: string; rowNumber: number; journalId: string }[] = [];
        for (const row of held) {
          if (row.journal_id) {
            // In flight when its console stopped: the POST may have reached the service.
            const entry = (await c.query<EntryRow>(`SELECT * FROM entries WHERE id = $1 AND state = 'pending' FOR UPDATE`, [row.journal_id])).rows[0];
            if (entry) {
              await applyInitiateOutcome(c, entry, { kind: 'may-exist', cause: 'no-answer', message: CONSOLE_STOPPED_MESSAGE, error: null, retryAfterSeconds: null }, at);
              lost.push({ batchId: row.batch_id, rowNumber: row.row_number, journalId: row.journal_id });
            }
          }
          await c.query('UPDATE batch_rows SET claim_holder = NULL WHERE batch_seq = $1 AND row_number = $2', [row.batch_seq, row.row_number]);
        }
        return lost;
      }),
  };
}
