/**
 * What desktops ask the team sender, and how the sender takes it (workspace migration 48;
 * docs/team-sender.md). A desktop on a profile whose keys are with the sender never signs for it:
 * it writes an ask and follows the entries live. The sender takes a payout or resend ask with
 * `FOR UPDATE SKIP LOCKED` and a lease on the database's clock (two senders never take one ask;
 * a killed sender's ask comes back once its lease has run out); a batch ask stays open while any
 * sender sends the batch (their row claims share it) and is answered once the batch is final.
 */
import type { TransactionRequest } from '../../../../shared/contract';
import type { Queryable } from './db';

export type SendAskKind = 'payout' | 'batch' | 'resend';
export type SendAskState = 'waiting' | 'taken' | 'done' | 'refused';

export interface SendAsk {
  id: number;
  kind: SendAskKind;
  profileId: string;
  batchId: string | null;
  entryId: string | null;
  request: TransactionRequest | null;
  askedBy: string;
  state: SendAskState;
  takenBy: string | null;
  entryResult: string | null;
  answer: unknown;
}

interface SendAskRow {
  id: number;
  kind: SendAskKind;
  profile_id: string;
  batch_id: string | null;
  entry_id: string | null;
  request: TransactionRequest | null;
  asked_by: string;
  state: SendAskState;
  taken_by: string | null;
  entry_result: string | null;
  answer: unknown;
}

const COLUMNS = 'id, kind, profile_id, batch_id, entry_id, request, asked_by, state, taken_by, entry_result, answer';

function fromRow(row: SendAskRow): SendAsk {
  return {
    id: Number(row.id), kind: row.kind, profileId: row.profile_id, batchId: row.batch_id, entryId: row.entry_id, request: row.request,
    askedBy: row.asked_by, state: row.state, takenBy: row.taken_by, entryResult: row.entry_result, answer: row.answer,
  };
}

/** Whether a team profile's keys are with the team sender (false for a profile the workspace does not know). */
export async function senderHolds(db: Queryable, profileId: string): Promise<boolean> {
  const { rows } = await db.query<{ held: boolean }>('SELECT paydesk_sender_holds($1) AS held', [profileId]);
  return rows[0]?.held === true;
}

/** A desktop asks the sender: one payout (its whole request), a confirmed batch, or a resend of an entry found missing. */
export type AskInput =
  | { kind: 'payout'; profileId: string; request: TransactionRequest }
  | { kind: 'batch'; profileId: string; batchId: string }
  | { kind: 'resend'; profileId: string; entryId: string };

export async function askSender(db: Queryable, ask: AskInput): Promise<SendAsk> {
  const { rows } = await db.query<SendAskRow>(
    `INSERT INTO send_asks (kind, profile_id, batch_id, entry_id, request) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [ask.kind, ask.profileId, ask.kind === 'batch' ? ask.batchId : null, ask.kind === 'resend' ? ask.entryId : null, ask.kind === 'payout' ? JSON.stringify(ask.request) : null],
  );
  return fromRow(rows[0]!);
}

export async function readAsk(db: Queryable, id: number): Promise<SendAsk | null> {
  const { rows } = await db.query<SendAskRow>(`SELECT ${COLUMNS} FROM send_asks WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * The sender takes the oldest payout or resend ask nobody holds (waiting, or taken under a lease
 * that has run out) of a profile this sender holds keys for: one statement, SKIP LOCKED, so two
 * senders never take the same ask.
 */
export async function takeAsk(db: Queryable, holder: string, leaseMs: number, profileIds: readonly string[] | null = null): Promise<SendAsk | null> {
  const { rows } = await db.query<SendAskRow>(
    `UPDATE send_asks SET state = 'taken', taken_holder = $1, lease_until = paydesk_now_ms() + $2
     WHERE id = (SELECT id FROM send_asks WHERE kind <> 'batch' AND (state = 'waiting' OR (state = 'taken' AND lease_until <= paydesk_now_ms()))
                   AND ($3::text[] IS NULL OR profile_id = ANY ($3::text[]))
                 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [holder, leaseMs, profileIds],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Batch asks not answered yet (every sender helps send them; the batch's row claims share the work). */
export async function openBatchAsks(db: Queryable): Promise<SendAsk[]> {
  const { rows } = await db.query<SendAskRow>(`SELECT ${COLUMNS} FROM send_asks WHERE kind = 'batch' AND state IN ('waiting', 'taken') ORDER BY id`);
  return rows.map(fromRow);
}

/** Marks a batch ask taken by this sender (for the screens: who sends it); the batch's claims do the sharing. */
export async function markBatchTaken(db: Queryable, id: number, holder: string): Promise<void> {
  await db.query(`UPDATE send_asks SET state = 'taken', taken_holder = $2 WHERE id = $1 AND state IN ('waiting', 'taken')`, [id, holder]);
}

/**
 * The sender's answer: `done` with the entry it wrote (or found), or `refused` with why. A payout
 * ask is answered only by the holder whose lease is still live (a sender that lost it answers nothing).
 */
export async function answerAsk(db: Queryable, id: number, holder: string | null, outcome: { state: 'done' | 'refused'; entryId: string | null; answer: unknown }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE send_asks SET state = $3, entry_result = $4, answer = $5, finished_at = paydesk_now_ms()
     WHERE id = $1 AND state IN ('waiting', 'taken') AND ($2::text IS NULL OR (taken_holder = $2 AND lease_until > paydesk_now_ms()))`,
    [id, holder, outcome.state, outcome.entryId, JSON.stringify(outcome.answer ?? null)],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The sender still works on a payout or resend ask it holds: its lease runs `leaseMs` from now.
 * False when the lease was lost (run out and taken by another sender) or the ask is answered.
 */
export async function renewAsk(db: Queryable, id: number, holder: string, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE send_asks SET lease_until = paydesk_now_ms() + $3 WHERE id = $1 AND state = 'taken' AND taken_holder = $2 AND lease_until > paydesk_now_ms()`,
    [id, holder, leaseMs],
  );
  return (rowCount ?? 0) > 0;
}
