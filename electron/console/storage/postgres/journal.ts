/**
 * Journal entries and their timeline in a team workspace: the same writes as the SQLite journal
 * (../../journal/entries.ts), each one transaction, every phase move checked against ENTRY_STATES
 * (../../journal/phase.ts reads the phase). An entry is locked (FOR UPDATE) while it is read and
 * moved: two desktops answering for one entry take turns instead of overwriting each other.
 */
import { randomUUID } from 'node:crypto';
import { ALREADY_EXISTS_CODE, type JournalTransaction } from '../../../../shared/api';
import { ENTRY_STATES, type EntryPhase } from '../../states/tables';
import { NOT_SENT_CODE, phaseOf, type ErrorRecord } from '../../journal/phase';
import { attemptContinuedMessage, requestColumnValues, requestSentMessage, toJournalTransaction, toTimelineEvent, type EntryRow, type ServiceTransaction, type TimelineRow } from '../../journal/rows';
import type { InitiateOutcome } from '../../outcome';
import { rowTakenMessage, type FollowUpJournal, type JournalPort, type RequestInput } from '../port';
import type { JournalReads } from '../journal-reads-port';
import { inTransaction, type Queryable, type WorkspacePool } from './db';
import { FALL_BACK, type GroupWrite, type WorkspaceGroupCommit } from './group-commit';
import { searchWorkspace } from './search';
import { decideIdentity, ExternalIdKnown, type HeldEntry, type IdentityDecision } from '../../journal/payout-identity';

interface TimelineInput {
  type: string;
  status?: string | null;
  httpStatus?: number | null;
  code?: string | null;
  message?: string | null;
  outcome?: 'not-sent' | 'unknown' | null;
}

/**
 * An entry's columns as EntryRow reads them (../../journal/rows.ts), named: the hot reads are
 * prepared statements, and a prepared `SELECT *` fails ("cached plan must not change result type")
 * once a newer desktop's migration adds a column to `entries` while this one is connected.
 */
const ENTRY_ROW_COLUMNS = [
  'seq', 'id', 'profile_id', 'profile_name', 'environment', 'kind', 'state', 'resolution', 'transaction_id', 'external_id', 'status', 'failed_code',
  'amount', 'currency', 'fee', 'net_amount', 'phone_number', 'payment_method', 'customer_first_name', 'customer_last_name', 'customer_email',
  'description', 'metadata', 'request', 'last_error', 'transaction_json', 'created_at', 'updated_at', 'batch_id', 'batch_row', 'already_sent_at', 'retry_of',
] as const satisfies readonly (keyof EntryRow)[];

/** ENTRY_ROW_COLUMNS for a SELECT list or RETURNING, each prefixed by `alias.` when given. */
export function entryColumns(alias?: string): string {
  return ENTRY_ROW_COLUMNS.map((column) => (alias ? `${alias}.${column}` : column)).join(', ');
}

export async function addEvent(c: Queryable, seq: number, at: number, event: TimelineInput): Promise<void> {
  await c.query(`INSERT INTO timeline (entry_seq, type, at, status, http_status, code, message, outcome) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
    seq,
    event.type,
    at,
    event.status ?? null,
    event.httpStatus ?? null,
    event.code ?? null,
    event.message ?? null,
    event.outcome ?? null,
  ]);
}

/** The entry, locked until the transaction ends. */
export async function lockEntry(c: Queryable, id: string): Promise<EntryRow> {
  const { rows } = await c.query<EntryRow>('SELECT * FROM entries WHERE id = $1 FOR UPDATE', [id]);
  if (!rows[0]) throw new Error(`journal entry ${id} does not exist`);
  return rows[0];
}

/** The same moves as ../../journal/phase.ts moveEntry, in the same columns. */
export async function moveEntry(c: Queryable, entry: EntryRow, to: Exclude<EntryPhase, 'known'>, at: number, error?: ErrorRecord): Promise<void> {
  ENTRY_STATES.assertMove(phaseOf(entry), to, entry.id);
  const update = (state: string, resolution: string | null, lastError: string | null) =>
    c.query('UPDATE entries SET state = $1, resolution = $2, last_error = $3, updated_at = $4 WHERE seq = $5', [state, resolution, lastError, at, entry.seq]);
  switch (to) {
    case 'pending':
      await update('pending', null, entry.last_error);
      return;
    case 'outcome_unknown':
      await update('outcome_unknown', null, entry.last_error);
      return;
    case 'not_found':
      await update('outcome_unknown', 'not_found', entry.last_error);
      return;
    case 'not_sent':
      await update(
        'rejected',
        null,
        JSON.stringify({ code: NOT_SENT_CODE, message: error?.message ?? 'not sent', httpStatus: error?.httpStatus ?? null, ...(error && error.code !== NOT_SENT_CODE ? { cause: error.code } : {}) }),
      );
      return;
    case 'rejected':
      if (!error) throw new Error(`journal entry ${entry.id}: a refusal needs its error`);
      await update('rejected', null, JSON.stringify(error));
      return;
    default: {
      const never: never = to;
      throw new Error(`unknown phase ${String(never)}`);
    }
  }
}

/**
 * A transaction's columns as applyTransaction writes them, $1–$10: its id, external id, status,
 * failed code, amount, currency, fee, net amount (each kept when the answer has none), the whole
 * object, and the time of the write. The accepted answer and a status seen write the same: the
 * SET list and its values, each written once.
 */
const TRANSACTION_SET = `state = 'known', transaction_id = $1, external_id = COALESCE($2, external_id), status = $3, failed_code = $4,
  amount = $5, currency = $6, fee = COALESCE($7, fee), net_amount = COALESCE($8, net_amount), last_error = NULL,
  transaction_json = $9, updated_at = $10`;

function transactionValues(tx: ServiceTransaction, at: number): unknown[] {
  const full = tx as ServiceTransaction & { fee?: number; net_amount?: number };
  return [tx.transaction_id, tx.external_id, tx.status, tx.failed_code, tx.amount, tx.currency, typeof full.fee === 'number' ? full.fee : null, typeof full.net_amount === 'number' ? full.net_amount : null, JSON.stringify(tx), at];
}

export async function applyTransaction(c: Queryable, seq: number, tx: ServiceTransaction, at: number): Promise<void> {
  await c.query(
    `UPDATE entries SET ${TRANSACTION_SET} WHERE seq = $11`,
    [...transactionValues(tx, at), seq],
  );
}

const ENTRY_COLUMNS = `id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
  customer_first_name, customer_last_name, customer_email, description, metadata, request, batch_id, batch_row, created_at, updated_at, retry_of`;

/** The new entry's values, $1–$20, in ENTRY_COLUMNS' order (state is 'pending', updated_at is created_at). */
function newEntryValues(id: string, input: RequestInput): unknown[] {
  return [id, input.profile.id, input.profile.name, input.profile.environment, input.kind, input.request.external_id ?? null, ...requestColumnValues(input), input.at, input.retryOf ?? null];
}

const NEW_ENTRY_VALUES = `$1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20`;

async function insertRequest(c: Queryable, input: RequestInput): Promise<{ id: string; seq: number }> {
  const id = randomUUID();
  ENTRY_STATES.assertMove(null, 'pending', id);
  const { rows } = await c.query<{ seq: number }>(`INSERT INTO entries (${ENTRY_COLUMNS}) VALUES (${NEW_ENTRY_VALUES}) RETURNING seq`, newEntryValues(id, input));
  return { id, seq: rows[0]!.seq };
}

/**
 * The common request, a payout never attempted before (no entry with its external id), as ONE
 * statement: the entry, its `request_sent` event and its batch row's link. The group commit sends
 * it with the group's other statements without waiting (./group-commit.ts): a round trip per
 * write is what a group costs on a busy machine. When an earlier entry exists it writes nothing
 * and the write falls back to the locking path, which decides whether that entry is continued.
 */
function firstRequest(input: RequestInput): NonNullable<GroupWrite<string>['statement']> {
  const id = randomUUID();
  ENTRY_STATES.assertMove(null, 'pending', id);
  return {
    name: 'paydesk_first_request',
    text: `WITH inserted AS (
       INSERT INTO entries (${ENTRY_COLUMNS}) SELECT ${NEW_ENTRY_VALUES}
       WHERE $6::text IS NULL OR NOT EXISTS (SELECT 1 FROM entries WHERE external_id = $6 AND kind = $5 AND environment = $4)
       RETURNING seq),
     sent AS (INSERT INTO timeline (entry_seq, type, at, message) SELECT seq, 'request_sent', $19, $21 FROM inserted),
     linked AS (
       UPDATE batch_rows SET journal_id = $1
       WHERE EXISTS (SELECT 1 FROM inserted) AND batch_seq = (SELECT seq FROM batches WHERE id = $17) AND row_number = $18 AND journal_id IS NULL AND moved_to IS NULL
       RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM inserted) AS inserted, EXISTS (SELECT 1 FROM linked) AS linked`,
    values: [...newEntryValues(id, input), requestSentMessage(input)],
    read({ rows }) {
      const answer = rows[0] as { inserted: boolean; linked: boolean };
      if (!answer.inserted) return FALL_BACK;
      // The batch row taken: the whole write is undone (its savepoint), its POST never leaves.
      if (input.batch && !answer.linked) throw new Error(rowTakenMessage(input.batch.id, input.batch.row));
      return id;
    },
  };
}

/**
 * Every entry holding this external id in its environment and kind (any profile), newest first;
 * `lock`ed for a write, so two desktops sending one external id take turns: the second reads the
 * entries as the first left them. ../../journal/payout-identity.ts decides (the same rule as the
 * SQLite journal's).
 */
export async function entriesHolding(c: Queryable, externalId: string, kind: string, environment: string, lock = true): Promise<HeldEntry[]> {
  const { rows } = await c.query<HeldEntry & { created_at: string | number; batch_row: string | number | null }>(
    `SELECT id, profile_id, profile_name, kind, external_id, state, resolution, last_error, status, batch_id, batch_row, created_at FROM entries
     WHERE external_id = $1 AND kind = $2 AND environment = $3
     ORDER BY created_at DESC, seq DESC${lock ? ' FOR UPDATE' : ''}`,
    [externalId, kind, environment],
  );
  return rows.map((row) => ({ ...row, created_at: Number(row.created_at), batch_row: row.batch_row === null ? null : Number(row.batch_row) }));
}

/**
 * The earlier entry sent again: `pending` with the request as it is sent now (and its batch row,
 * if any), in one statement as moveEntry would move it: the workspace checks the entry as it is
 * sent (a batch row's under its sender's claim, migration 44), not half-way (the old request under
 * its old batch row).
 */
async function continueAttempt(c: Queryable, row: EntryRow, input: RequestInput): Promise<void> {
  ENTRY_STATES.assertMove(phaseOf(row), 'pending', row.id);
  await c.query(
    `UPDATE entries SET state = 'pending', resolution = NULL, updated_at = $14,
       amount = $1, currency = $2, phone_number = $3, payment_method = $4, customer_first_name = $5, customer_last_name = $6,
       customer_email = $7, description = $8, metadata = $9, request = $10, batch_id = COALESCE($11, batch_id), batch_row = COALESCE($12, batch_row)
     WHERE seq = $13`,
    [...requestColumnValues(input), row.seq, input.at],
  );
  await addEvent(c, row.seq, input.at, { type: 'request_sent', message: attemptContinuedMessage(input) });
}

/** The answer to an initiate (../../outcome.ts), written like ../../journal/entries.ts writeInitiateOutcome. */
export async function applyInitiateOutcome(c: Queryable, row: EntryRow, outcome: InitiateOutcome, at: number): Promise<void> {
  switch (outcome.kind) {
    case 'accepted':
      ENTRY_STATES.assertMove(phaseOf(row), 'known', row.id);
      await applyTransaction(c, row.seq, outcome.tx, at);
      await addEvent(c, row.seq, at, { type: 'response', status: outcome.tx.status, httpStatus: outcome.httpStatus, message: outcome.message ?? `${row.kind} created` });
      return;
    case 'refused':
      await moveEntry(c, row, 'rejected', at, outcome.error);
      await addEvent(c, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.error.message });
      return;
    case 'retry-later':
      await moveEntry(c, row, 'not_sent', at, outcome.error);
      await addEvent(c, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.error.message, outcome: 'not-sent' });
      return;
    case 'not-sent':
      await moveEntry(c, row, 'not_sent', at, { code: NOT_SENT_CODE, message: outcome.message, httpStatus: null });
      await addEvent(c, row.seq, at, { type: 'transport_failure', outcome: 'not-sent', message: outcome.message });
      return;
    case 'exists':
      // The external id is taken at the service: outcome unknown, looked up and adopted, never a new id.
      await moveEntry(c, row, 'outcome_unknown', at);
      await c.query('UPDATE entries SET already_sent_at = COALESCE(already_sent_at, $1) WHERE seq = $2', [at, row.seq]);
      await addEvent(c, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: ALREADY_EXISTS_CODE, message: `${outcome.error.code}: ${outcome.error.message}`, outcome: 'unknown' });
      return;
    case 'may-exist':
      await moveEntry(c, row, 'outcome_unknown', at);
      if (outcome.error) {
        await addEvent(c, row.seq, at, { type: 'api_error', httpStatus: outcome.error.httpStatus, code: outcome.error.code, message: outcome.message, outcome: 'unknown' });
      } else {
        await addEvent(c, row.seq, at, { type: 'transport_failure', outcome: 'unknown', message: outcome.message });
      }
      return;
    default: {
      const never: never = outcome;
      throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The common answer, accepted for an entry `pending` (pending -> known in ENTRY_STATES), in ONE
 * statement: the entry and its `response` event written together, one round trip instead of five
 * (BEGIN, lock, update, event, COMMIT: the round trips, not the disk, were most of a batch row's
 * cost; bench/storage.ts). Falls back when the entry is not pending: the locking path then
 * checks the move against the state table and refuses it or writes it.
 */
function acceptPending(id: string, tx: ServiceTransaction, httpStatus: number | null, message: string | null, at: number): NonNullable<GroupWrite<void>['statement']> {
  return {
    name: 'paydesk_accept_pending',
    text: `WITH moved AS (
       UPDATE entries SET ${TRANSACTION_SET}
       WHERE id = $11 AND state = 'pending' RETURNING seq, kind)
     INSERT INTO timeline (entry_seq, type, at, status, http_status, message)
     SELECT seq, 'response', $10, $3, $12, COALESCE($13, kind || ' created') FROM moved`,
    values: [...transactionValues(tx, at), id, httpStatus, message],
    read: ({ rowCount }) => (rowCount === 1 ? undefined : FALL_BACK),
  };
}

/**
 * The common status seen (a status push, a watch, a Verify) for an entry already `known` (known ->
 * known in ENTRY_STATES), in ONE statement: the entry locked and written as applyTransaction
 * writes it, its event added unless the event is quiet and nothing changed, and the entry as it
 * now stands returned (instead of a lock, an update, an insert and a read again, each a round trip
 * inside the group's transaction). Falls back when the entry is not `known` (or does not exist):
 * the locking path then checks the move against the state table.
 */
function observeKnown(id: string, tx: ServiceTransaction, event: Parameters<JournalPort['recordObserved']>[2], at: number): NonNullable<GroupWrite<{ entry: JournalTransaction; changed: boolean }>['statement']> {
  const quiet = event.type === 'status_seen' || event.quietUnlessChanged === true;
  return {
    name: 'paydesk_observe_known',
    text: `WITH old AS (SELECT seq, status, failed_code FROM entries WHERE id = $11 AND state = 'known' FOR UPDATE),
     moved AS (
       UPDATE entries e SET ${TRANSACTION_SET}
       WHERE e.seq = (SELECT seq FROM old)
       RETURNING ${entryColumns('e')}, ((SELECT status FROM old) IS DISTINCT FROM $3 OR (SELECT failed_code FROM old) IS DISTINCT FROM $4) AS paydesk_changed),
     added AS (
       INSERT INTO timeline (entry_seq, type, at, status, http_status, message)
       SELECT seq, $12, $10, $3, $13, $14 FROM moved WHERE NOT $15::boolean OR paydesk_changed)
     SELECT * FROM moved`,
    values: [...transactionValues(tx, at), id, event.type, event.httpStatus ?? null, event.message ?? null, quiet],
    read({ rows }) {
      const row = rows[0] as (EntryRow & { paydesk_changed: boolean }) | undefined;
      if (!row) return FALL_BACK;
      return { entry: toJournalTransaction(row), changed: row.paydesk_changed };
    },
  };
}

async function entry(c: Queryable, id: string): Promise<JournalTransaction | null> {
  // Prepared: read after every write that returns its entry, and by every status push (planning was most of its cost).
  const { rows } = await c.query<EntryRow>({ name: 'paydesk_entry_by_id', text: `SELECT ${entryColumns()} FROM entries WHERE id = $1`, values: [id] });
  return rows[0] ? toJournalTransaction(rows[0]) : null;
}

/**
 * A request whose external id has an entry already: that entry continued when it created nothing
 * (locked, so two desktops sending one external id take turns), else a new entry.
 */
async function writeRequestAfterEarlier(c: Queryable, input: RequestInput): Promise<string> {
  const externalId = input.request.external_id;
  const decision: IdentityDecision = externalId ? decideIdentity(await entriesHolding(c, externalId, input.kind, input.profile.environment), input.profile.id) : { kind: 'new' };
  if (decision.kind === 'known') throw new ExternalIdKnown(decision.known);
  let id: string;
  if (decision.kind === 'continue') {
    const earlier = await lockEntry(c, decision.entry.id);
    await continueAttempt(c, earlier, input);
    id = earlier.id;
  } else {
    const inserted = await insertRequest(c, input);
    await addEvent(c, inserted.seq, input.at, { type: 'request_sent', message: requestSentMessage(input) });
    id = inserted.id;
  }
  if (input.batch) {
    // A row has one entry, ever (a resend reuses it): a second one would be a second payout.
    // Row-level security also hides a row another login's live claim holds. Either way the
    // whole write is undone (its savepoint), so its POST never leaves.
    const linked = await c.query(
      'UPDATE batch_rows SET journal_id = $1 WHERE batch_seq = (SELECT seq FROM batches WHERE id = $2) AND row_number = $3 AND journal_id IS NULL AND moved_to IS NULL',
      [id, input.batch.id, input.batch.row],
    );
    if (linked.rowCount !== 1) throw new Error(rowTakenMessage(input.batch.id, input.batch.row));
  }
  return id;
}

/**
 * A request's write refused by the unique index on the payout's key (another desktop wrote the
 * same payout at the same moment: its transaction committed first) is the guard's own refusal.
 */
async function asExternalIdKnown(pool: WorkspacePool, error: unknown, input: RequestInput): Promise<unknown> {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  const externalId = input.request.external_id;
  if (code !== '23505' || constraint !== 'entries_one_per_payout' || !externalId) return error;
  const decision = decideIdentity(await entriesHolding(pool, externalId, input.kind, input.profile.environment, false), input.profile.id);
  return decision.kind === 'known' ? new ExternalIdKnown(decision.known) : error;
}

/**
 * The journal on a workspace. Writes of one entry (a request, a resend, an answer, a status seen,
 * a lookup that found nothing) go through the store's group commit (./group-commit.ts): each
 * resolves once the transaction holding it committed, so a pending entry is durable before its
 * POST leaves, and concurrent writes share one disk flush.
 */
/** The follow-ups (FollowUpJournal) are in ./follow-ups.ts; ./store.ts joins both. */
export function workspaceJournal(pool: WorkspacePool, group: WorkspaceGroupCommit): Omit<JournalPort, keyof FollowUpJournal | keyof JournalReads> {
  return {
    // Urgent: the request's POST waits for its pending entry (./group-commit.ts).
    writeRequest: (input) =>
      group.write({ urgent: true, statement: firstRequest(input), work: (c) => writeRequestAfterEarlier(c, input) }).catch(async (error: unknown) => {
        throw await asExternalIdKnown(pool, error, input);
      }),
    writeResend: (id, at) =>
      group.write({
        urgent: true,
        async work(c) {
          const row = await lockEntry(c, id);
          // Another entry holding the same external id as money (another profile's, a look-up's) forbids the POST too.
          if (row.external_id) {
            const others = (await entriesHolding(c, row.external_id, row.kind, row.environment)).filter((held) => held.id !== row.id);
            const decision = decideIdentity(others, row.profile_id);
            if (decision.kind === 'known') throw new ExternalIdKnown(decision.known);
          }
          await moveEntry(c, row, 'pending', at);
          await addEvent(c, row.seq, at, { type: 'request_sent', message: 'sent again with the same external id' });
        },
      }),
    linkRowToPayout: (batch, journalId) =>
      group.write({
        urgent: true,
        async work(c) {
          const linked = await c.query(
            'UPDATE batch_rows SET journal_id = $1 WHERE batch_seq = (SELECT seq FROM batches WHERE id = $2) AND row_number = $3 AND journal_id IS NULL AND moved_to IS NULL',
            [journalId, batch.id, batch.row],
          );
          return linked.rowCount === 1;
        },
      }),
    writeInitiateOutcome: (id, outcome, at) =>
      group.write({
        ...(outcome.kind === 'accepted' ? { statement: acceptPending(id, outcome.tx, outcome.httpStatus, outcome.message ?? null, at) } : {}),
        work: async (c) => applyInitiateOutcome(c, await lockEntry(c, id), outcome, at),
      }),
    recordObserved: (id, tx, event, at) =>
      group.write({
        statement: observeKnown(id, tx, event, at),
        async work(c) {
          const row = await lockEntry(c, id);
          const changed = row.status !== tx.status || row.state !== 'known' || row.failed_code !== tx.failed_code;
          ENTRY_STATES.assertMove(phaseOf(row), 'known', row.id);
          await applyTransaction(c, row.seq, tx, at);
          const quiet = event.type === 'status_seen' || event.quietUnlessChanged === true;
          if (!quiet || changed) await addEvent(c, row.seq, at, { type: event.type, status: tx.status, httpStatus: event.httpStatus ?? null, message: event.message ?? null });
          return { entry: (await entry(c, id))!, changed };
        },
      }),
    recordNotFound: (id, at, message) =>
      group.write({
        async work(c) {
          const row = await lockEntry(c, id);
          if (phaseOf(row) !== 'not_found') {
            await moveEntry(c, row, 'not_found', at);
            await addEvent(c, row.seq, at, { type: 'status_seen', code: 'NOT_FOUND', message });
          }
          return (await entry(c, id))!;
        },
      }),
    /**
     * In a workspace, only this login's own pending entries outside a live row claim: another
     * desktop's entries in flight are that desktop's (a lost claim expires through expireClaims).
     */
    markStalePending: (at) =>
      inTransaction(pool, async (c) => {
        const { rows } = await c.query<EntryRow>(
          `SELECT e.* FROM entries e WHERE e.state = 'pending' AND e.created_by = session_user
             AND NOT EXISTS (SELECT 1 FROM batch_rows br WHERE br.journal_id = e.id AND br.lease_until > paydesk_now_ms())
           ORDER BY e.seq FOR UPDATE OF e`,
        );
        for (const row of rows) {
          await moveEntry(c, row, 'outcome_unknown', at);
          await addEvent(c, row.seq, at, { type: 'transport_failure', outcome: 'unknown', message: 'the console stopped before the answer came: look it up by its external id' });
        }
        return rows.map((row) => row.id);
      }),
    getEntry: (id) => entry(pool, id),
    async getTimeline(id) {
      const { rows } = await pool.query<TimelineRow>(
        `SELECT t.*, e.id AS journal_id FROM timeline t JOIN entries e ON e.seq = t.entry_seq WHERE e.id = $1 ORDER BY t.id DESC`,
        [id],
      );
      return rows.map(toTimelineEvent);
    },
    search: (query, offset, limit) => searchWorkspace(pool, query, offset, limit),
  };
}

