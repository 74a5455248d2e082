/**
 * Following entries up in a team workspace: the reads and writes of Look up, Verify, a resend and
 * the watcher, the same as the SQLite journal's (../../journal/reads.ts, ../../journal/answers.ts),
 * each write one transaction with its entry locked (FOR UPDATE) like ./journal.ts.
 */
import { firstKnown } from '../../journal/payout-identity';
import { entriesHolding } from './journal';
import { randomUUID } from 'node:crypto';
import type { TransactionRequest } from '../../../../shared/contract';
import type { JournalTransaction } from '../../../../shared/api';
import { LOCAL_SANDBOX_PROFILE_ID } from '../../../../shared/api/types';
import { ENTRY_STATES } from '../../states/tables';
import { toJournalTransaction, type EntryRow } from '../../journal/rows';
import type { FollowUpJournal, JournalPort } from '../port';
import { inTransaction, type Queryable, type WorkspacePool } from './db';
import { addEvent, applyTransaction, entryColumns, lockEntry } from './journal';
import { DESKTOP_SETTING } from './schema-names';

/** This connection's desktop (../../desktop-id.ts), NULL when it named none. */
const THIS_DESKTOP = `NULLIF(current_setting('${DESKTOP_SETTING}', true), '')`;

/**
 * An entry this desktop may follow up: any but a `local-sandbox` one written on another desktop
 * (each desktop runs its own local engine; docs/decisions/local-sandbox-follow-ups.md). The desktop
 * the entry was written on decides (migration 36), so the same login on two desktops does not
 * follow up the other's; an entry written before migration 36, or a connection naming no desktop,
 * falls back to the login that wrote it. SQL, on `entries`.
 */
export const LOCAL_SANDBOX_OWNED = `(profile_id <> '${LOCAL_SANDBOX_PROFILE_ID}' OR CASE
  WHEN desktop_id IS NOT NULL AND ${THIS_DESKTOP} IS NOT NULL THEN desktop_id = ${THIS_DESKTOP}
  ELSE created_by = session_user END)`;

async function entryOf(c: Queryable, id: string): Promise<JournalTransaction> {
  const { rows } = await c.query<EntryRow>('SELECT * FROM entries WHERE id = $1', [id]);
  return toJournalTransaction(rows[0]!);
}

/** `observe` is the workspace journal's recordObserved (one transaction of its own). */
export function workspaceFollowUps(pool: WorkspacePool, observe: JournalPort['recordObserved']): FollowUpJournal {
  return {
    knownPayout: async (kind, environment, externalId) => firstKnown(await entriesHolding(pool, externalId, kind, environment, false)),
    async getForFollowUp(id) {
      // Another login's local-sandbox entry lives in that desktop's own engine (LOCAL_SANDBOX_OWNED).
      const { rows } = await pool.query<EntryRow & { held_elsewhere_by: string | null }>(
        `SELECT *, CASE WHEN NOT ${LOCAL_SANDBOX_OWNED} THEN created_by END AS held_elsewhere_by FROM entries WHERE id = $1`,
        [id],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        entry: toJournalTransaction(row),
        request: row.request ? (JSON.parse(row.request) as TransactionRequest) : null,
        resolution: row.resolution,
        heldElsewhereBy: row.held_elsewhere_by,
      };
    },
    async findByTransactionId(transactionId, scope) {
      // Prepared: every status push of the local sandbox asks it (planning was most of its cost).
      const { rows } = scope
        ? await pool.query<EntryRow>({
            name: 'paydesk_entries_by_transaction_in_scope',
            text: `SELECT ${entryColumns()} FROM entries WHERE transaction_id = $1 AND profile_id = $2 AND environment = $3 ORDER BY created_at DESC, seq DESC`,
            values: [transactionId, scope.profileId, scope.environment],
          })
        : await pool.query<EntryRow>({
            name: 'paydesk_entries_by_transaction',
            text: `SELECT ${entryColumns()} FROM entries WHERE transaction_id = $1 ORDER BY created_at DESC, seq DESC`,
            values: [transactionId],
          });
      return rows.map(toJournalTransaction);
    },
    async recordLookedUp(input) {
      const { tx, profile } = input;
      // Two desktops looking the same transaction up take turns (the lock ends with the
      // transaction): the second finds the first one's entry instead of adding a second.
      const existing = await inTransaction(pool, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`looked-up:${tx.transaction_id}`]);
        const { rows } = await c.query<{ id: string }>(
          'SELECT id FROM entries WHERE transaction_id = $1 AND profile_id = $2 AND environment = $3 ORDER BY created_at DESC, seq DESC LIMIT 1',
          [tx.transaction_id, profile.id, profile.environment],
        );
        if (rows[0]) return rows[0].id;
        // The payout's own entry (one record per payout): found by its external id when it has no transaction id yet.
        if (tx.external_id) {
          const own = await c.query<{ id: string }>(
            'SELECT id FROM entries WHERE external_id = $1 AND kind = $2 AND profile_id = $3 AND environment = $4 ORDER BY created_at DESC, seq DESC LIMIT 1',
            [tx.external_id, input.kind, profile.id, profile.environment],
          );
          if (own.rows[0]) return own.rows[0].id;
        }
        const id = randomUUID();
        ENTRY_STATES.assertMove(null, 'known', id);
        const inserted = await c.query<{ seq: number }>(
          `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, failed_code, amount, currency,
             phone_number, payment_method, customer_first_name, customer_last_name, customer_email, description, metadata, transaction_json, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'known', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20) RETURNING seq`,
          [
            id,
            profile.id,
            profile.name,
            profile.environment,
            input.kind,
            tx.transaction_id,
            tx.external_id,
            tx.status,
            tx.failed_code,
            tx.amount,
            tx.currency,
            // The service returns the (partly masked) account number, not the phone number typed.
            // Read tolerantly: a field the service left out is written empty (the entry's columns are required).
            tx.account_number ?? '',
            tx.payment_method?.code ?? '',
            tx.customer?.first_name ?? '',
            tx.customer?.last_name ?? '',
            tx.customer?.email ?? '',
            tx.description,
            tx.metadata ? JSON.stringify(tx.metadata) : null,
            JSON.stringify(tx),
            input.at,
          ],
        );
        const seq = inserted.rows[0]!.seq;
        await applyTransaction(c, seq, tx, input.at);
        await addEvent(c, seq, input.at, { type: 'status_seen', status: tx.status, httpStatus: input.httpStatus, message: 'looked up' });
        return { added: await entryOf(c, id) };
      });
      if (typeof existing !== 'string') return existing.added;
      return (await observe(existing, tx, { type: 'status_seen', httpStatus: input.httpStatus, message: 'looked up' }, input.at)).entry;
    },
    recordReadFailure: (id, failure, at) =>
      inTransaction(pool, async (c) => {
        const row = await lockEntry(c, id);
        await c.query('UPDATE entries SET updated_at = $1 WHERE seq = $2', [at, row.seq]);
        if (failure.kind === 'api-error') {
          await addEvent(c, row.seq, at, { type: 'api_error', httpStatus: failure.error.httpStatus, code: failure.error.code, message: failure.error.message });
        } else {
          await addEvent(c, row.seq, at, { type: 'transport_failure', outcome: failure.outcome, message: failure.message });
        }
        return entryOf(c, id);
      }),
    recordStatusEvent: (id, status, message, at) =>
      inTransaction(pool, async (c) => {
        const row = await lockEntry(c, id);
        const changed = row.status !== status;
        await c.query('UPDATE entries SET status = $1, updated_at = $2 WHERE seq = $3', [status, at, row.seq]);
        await addEvent(c, row.seq, at, { type: 'sandbox_status', status, message });
        return { entry: await entryOf(c, id), changed };
      }),
  };
}
