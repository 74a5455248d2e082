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
import type { EntryRow } from '../../journal/rows';
import { LEASE_LOST_MESSAGE, type BatchPort } from '../port';
import { inTransaction, type WorkspacePool } from './db';
import { applyInitiateOutcome } from './journal';
import { ROW_COLUMNS_SQL, ROW_STATE_SQL, toRow, type RowDbRow } from './batch-rows';

type Claims = Pick<BatchPort, 'claimRows' | 'renewClaims' | 'releaseClaims' | 'expireClaims'>;

/** A claim looks first at the next NEAR claims' worth of rows after its cursor (claimRows). */
const NEAR = 4;
/** Past every row number (an integer column). */
const LAST_ROW = 2 ** 31 - 1;

/**
 * A claim in ONE statement (no BEGIN/COMMIT around it: one round trip, not four): the rows picked
 * from `$5` up to before `$6` in row order, skipping what another sender has locked, leased, and
 * read back with their sending state. Every worker waits for a claim, so its round trips were a
 * whole run's.
 */
const CLAIM = {
  name: 'paydesk_claim_rows',
  text: `WITH picked AS (
       SELECT br.batch_seq, br.row_number FROM batch_rows br
         JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id
       WHERE b.id = $1 AND b.state = 'sending' AND br.request IS NOT NULL AND br.moved_to IS NULL AND br.row_number >= $5 AND br.row_number < $6
         AND (br.lease_until IS NULL OR br.lease_until <= paydesk_now_ms())
         AND ${ROW_STATE_SQL} = 'not_sent'
       ORDER BY br.row_number LIMIT $3
       FOR UPDATE OF br SKIP LOCKED),
     claimed AS (
       UPDATE batch_rows br SET claim_holder = $2, lease_until = paydesk_now_ms() + $4
       FROM picked WHERE br.batch_seq = picked.batch_seq AND br.row_number = picked.row_number
       RETURNING br.*)
     SELECT ${ROW_COLUMNS_SQL} FROM claimed br JOIN batches b ON b.seq = br.batch_seq LEFT JOIN entries e ON e.id = br.journal_id ORDER BY br.row_number`,
};

/**
 * Renewal of the rows named: each row is its own statement's only lock. Renewing a whole claim
 * in one UPDATE held its rows one after another while the journal's group commit, linking rows
 * of several claims in one transaction, waited on them and they on it: with a few workers the
 * server found deadlocks (bench/storage.ts through the runner's claims, 2026-11-25).
 */
const RENEW_ROWS = {
  name: 'paydesk_renew_rows',
  text: `UPDATE batch_rows SET lease_until = paydesk_now_ms() + $3
   WHERE claim_holder = $2 AND batch_seq = (SELECT seq FROM batches WHERE id = $1) AND row_number = ANY($4) AND claimed_by = session_user
     AND lease_until > paydesk_now_ms()`,
};

export function workspaceClaims(pool: WorkspacePool): Claims {
  /**
   * batch id -> the row this desktop's next claim reads from (past the rows its last claim took),
   * as the SQLite store does: a claim reads a few rows, not every row sent before it. Lowered when
   * rows are released or expire; a claim that finds too few from there reads from the first row
   * (rows another desktop let go behind it).
   */
  const cursors = new Map<string, number>();
  const lower = (batchId: string, rowNumbers: Iterable<number>) => {
    for (const rowNumber of rowNumbers) if (rowNumber < (cursors.get(batchId) ?? 0)) cursors.set(batchId, rowNumber);
  };
  const claimFrom = async (batchId: string, holder: string, limit: number, leaseMs: number, from: number, before: number) =>
    (await pool.query<RowDbRow & { lease_until: number }>({ ...CLAIM, values: [batchId, holder, limit, leaseMs, from, before] })).rows;
  return {
    /**
     * Rows from the cursor, first among the next few (NEAR claims' worth): a fresh batch has no
     * statistics, so the server sorted every row left after the cursor (~900 of a 1,000-row batch)
     * to take ten, a millisecond a claim (bench/storage-profile.ts). Then past them, then from the
     * first row: the same rows in the same order as one claim from the cursor, then from the start.
     */
    async claimRows(batchId, holder, limit, leaseMs) {
      const from = cursors.get(batchId) ?? 0;
      const near = from + limit * NEAR;
      let claimed = await claimFrom(batchId, holder, limit, leaseMs, from, near);
      if (claimed.length < limit) claimed = [...claimed, ...(await claimFrom(batchId, holder, limit - claimed.length, leaseMs, near, LAST_ROW))];
      if (claimed.length < limit && from > 0) claimed = [...claimed, ...(await claimFrom(batchId, holder, limit - claimed.length, leaseMs, 0, LAST_ROW))];
      claimed.sort((a, b) => a.row_number - b.row_number);
      if (claimed.length > 0) cursors.set(batchId, Math.max(...claimed.map((row) => row.row_number)) + 1);
      const until = claimed.length > 0 ? Math.max(...claimed.map((row) => row.lease_until)) : 0;
      return { batchId, holder, until, rows: claimed.map(toRow) };
    },
    /**
     * Without row numbers (the runner's heartbeat): never waits for a row lock: the desktop's own
     * group commit may hold some of the claim's rows (linking their entries) while it waits for
     * another of them, and a renewal that waited would deadlock with it. A row locked now is
     * counted as held (its live lease says so) and renewed by the next renewal. With row numbers
     * (before a POST): those rows only, each its statement's only lock (RENEW_ROWS).
     */
    async renewClaims(batchId, holder, leaseMs, _at, rowNumbers) {
      if (!rowNumbers) {
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
      }
      const result = await pool.query({ ...RENEW_ROWS, values: [batchId, holder, leaseMs, rowNumbers] });
      return result.rowCount ?? 0;
    },
    async releaseClaims(batchId, holder, rowNumbers) {
      lower(batchId, rowNumbers);
      await pool.query({
        name: 'paydesk_release_rows',
        // A row whose answer is not written yet (the runner releases a claim once its rows' POSTs
        // have ended, their answers still on their way) keeps its lease: should the answer never
        // come (a connection lost, a desktop killed), the lease running out makes the row outcome
        // unknown (expireClaims), never a pending row that nobody holds and nothing expires.
        text: `UPDATE batch_rows br SET claim_holder = NULL
         WHERE br.claim_holder = $2 AND br.batch_seq = (SELECT seq FROM batches WHERE id = $1) AND br.claimed_by = session_user AND br.row_number = ANY($3)
           AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = br.journal_id AND e.state = 'pending')`,
        values: [batchId, holder, rowNumbers],
      });
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
          lower(row.batch_id, [row.row_number]);
        }
        return lost;
      }),
  };
}
