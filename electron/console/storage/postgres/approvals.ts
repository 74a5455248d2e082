/**
 * The approvals port on a team workspace: every decision is one of migration 21's SECURITY
 * DEFINER functions (the rules are the tables' triggers), reads are plain SELECTs, and every
 * refusal the rules raise is mapped by its SQLSTATE (migration 28, ./migrations/0028-approval-refusals-with-their-own-sqlstates.sql),
 * never by its English words, to a code the screens translate.
 */
import type { ApprovalNeed, ApprovalOutcome, ApprovalRequest, ApprovalState, ApprovalTier, ApprovalVote, ApproverRole } from '../../../../shared/api/approvals';
import { ApprovalRefusal, type ApprovalsPort } from '../approvals-port';
import { APPROVAL_SQLSTATE } from './schema-names';
import { describeWorkspaceError } from './connection';
import { inTransaction, type Queryable, type WorkspacePool } from './db';

const ROLE_OF: Record<string, ApproverRole> = { paydesk_finance: 'finance', paydesk_admin: 'admin' };
const DB_ROLE: Record<ApproverRole, string> = { finance: 'paydesk_finance', admin: 'paydesk_admin' };

interface RequestRow {
  id: number;
  subject: 'payout' | 'batch';
  batch_id: string | null;
  environment: 'sandbox' | 'live';
  currency: string;
  external_id: string | null;
  phone_number: string | null;
  amount: number;
  row_count: number;
  digest: string;
  approvals_required: number;
  approvals_given: number;
  approver_role: string;
  state: ApprovalState;
  requested_by: string;
  requested_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  remark: string | null;
  sent: boolean;
}

type PgError = Error & { code?: string; detail?: string };

function detailOf(error: PgError): Record<string, unknown> {
  try {
    return error.detail ? (JSON.parse(error.detail) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What the gate's DETAIL says is needed (PD001), as the screens read it. */
function needOf(detail: Record<string, unknown>): ApprovalNeed {
  return {
    subject: detail.subject === 'batch' ? 'batch' : 'payout',
    environment: detail.environment === 'live' ? 'live' : 'sandbox',
    amount: Number(detail.amount ?? 0),
    rows: Number(detail.rows ?? 1),
    approvals: Number(detail.approvals ?? 1),
    approverRole: ROLE_OF[String(detail.approverRole)] ?? 'finance',
    ...(typeof detail.currency === 'string' ? { currency: detail.currency } : {}),
    ...(detail.externalId !== undefined ? { externalId: detail.externalId as string | null } : {}),
    ...(typeof detail.batchId === 'string' ? { batchId: detail.batchId } : {}),
    // A request that still waits refused the send (migration 30), whatever the policy says now.
    ...(typeof detail.requestId === 'number' ? { request: { id: detail.requestId, state: 'awaiting' as const } } : {}),
  };
}

/**
 * An approval rule's refusal as a code, or null when the error is something else (connection
 * lost, a bug): those keep their own handling. `during` tells apart the one SQLSTATE two rules
 * share: 42501 is "only the maker withdraws" in a withdraw, "your role may not" elsewhere.
 */
export function approvalRefusalOf(error: unknown, during: 'withdraw' | 'other' = 'other'): ApprovalRefusal | null {
  if (!(error instanceof Error)) return null;
  const { code, message } = error as PgError;
  switch (code) {
    case APPROVAL_SQLSTATE.approvalRequired:
      return new ApprovalRefusal('APPROVAL_REQUIRED', message, needOf(detailOf(error as PgError)));
    case APPROVAL_SQLSTATE.changedSinceApproval:
      return new ApprovalRefusal('APPROVAL_STALE', message);
    case APPROVAL_SQLSTATE.ownRequest:
      return new ApprovalRefusal('APPROVAL_OWN_REQUEST', message);
    case APPROVAL_SQLSTATE.notWaiting:
      return new ApprovalRefusal('APPROVAL_NOT_WAITING', message);
    case APPROVAL_SQLSTATE.notApprover:
      return new ApprovalRefusal('APPROVAL_NOT_APPROVER', message);
    case APPROVAL_SQLSTATE.notWhatWasSeen:
      return new ApprovalRefusal('APPROVAL_CHANGED', message);
    case APPROVAL_SQLSTATE.alreadySent:
      return new ApprovalRefusal('APPROVAL_ALREADY_SENT', message);
    case '23505': {
      // An open request for the same batch or payout (its unique index), or a second vote by one person (the votes' key).
      const constraint = (error as PgError & { constraint?: string }).constraint ?? '';
      if (/approval_requests_open/.test(constraint)) return new ApprovalRefusal('APPROVAL_ALREADY_ASKED', 'An approval request for it is already open: withdraw it first, or wait for its answer.');
      if (constraint === 'approval_votes_pkey') return new ApprovalRefusal('APPROVAL_ALREADY_VOTED', 'You have already voted on this request: one person counts once.');
      return null;
    }
    case '23514': // a move the request's rules refuse (withdraw a rejected one, reject with no remark)
      return /approval request|rejection/.test(message) ? new ApprovalRefusal('APPROVAL_NOT_WAITING', message) : null;
    case '42501':
      return new ApprovalRefusal(during === 'withdraw' && /who asked/.test(message) ? 'APPROVAL_NOT_MAKER' : 'APPROVAL_NOT_ALLOWED', message);
    default:
      return null;
  }
}

/**
 * The sending gate's refusal only (PD001, PD002), for the send paths: there a `42501` is a role's
 * refusal of the write itself (a support login sending), the workspace's fault, never an approval's.
 */
export function gateRefusalOf(error: unknown): ApprovalRefusal | null {
  const code = error instanceof Error ? (error as PgError).code : undefined;
  return code === APPROVAL_SQLSTATE.approvalRequired || code === APPROVAL_SQLSTATE.changedSinceApproval ? approvalRefusalOf(error) : null;
}

async function refusing<T>(work: () => Promise<T>, during: 'withdraw' | 'other' = 'other'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw approvalRefusalOf(error, during) ?? error;
  }
}

type Decision = 'approve' | 'reject' | 'withdraw';

const outcomeOf = (request: ApprovalRequest): ApprovalOutcome => ({ id: request.id, state: request.state, decidedBy: request.decidedBy, requestedBy: request.requestedBy });

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

async function withVotes(db: Queryable, rows: RequestRow[]): Promise<ApprovalRequest[]> {
  if (rows.length === 0) return [];
  const { rows: votes } = await db.query<{ request_id: number; voter: string; vote: 'approve' | 'reject'; remark: string | null; at: Date }>(
    'SELECT request_id, voter, vote, remark, at FROM approval_votes WHERE request_id = ANY($1::bigint[]) ORDER BY at, voter',
    [rows.map((row) => row.id)],
  );
  const byRequest = new Map<number, ApprovalVote[]>();
  for (const v of votes) byRequest.set(v.request_id, [...(byRequest.get(v.request_id) ?? []), { voter: v.voter, vote: v.vote, remark: v.remark, at: v.at.toISOString() }]);
  return rows.map((row) => ({
    id: row.id,
    subject: row.subject,
    batchId: row.batch_id,
    environment: row.environment,
    currency: row.currency,
    externalId: row.external_id,
    phoneNumber: row.phone_number,
    amount: row.amount,
    rows: row.row_count,
    digest: row.digest,
    approvalsRequired: row.approvals_required,
    approvalsGiven: row.approvals_given,
    approverRole: ROLE_OF[row.approver_role] ?? 'finance',
    state: row.state,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at.toISOString(),
    decidedBy: row.decided_by,
    decidedAt: iso(row.decided_at),
    remark: row.remark,
    votes: byRequest.get(row.id) ?? [],
    sent: row.sent,
  }));
}

export function workspaceApprovals(pool: WorkspacePool): ApprovalsPort {
  async function select(where: string, params: unknown[], tail = 'ORDER BY id DESC'): Promise<ApprovalRequest[]> {
    // `sent` by the rule that refuses a withdraw (migration 30's paydesk_request_sent), asked only of approved requests.
    const { rows } = await pool.query<RequestRow>(
      `SELECT r.*, r.state = 'approved' AND paydesk_request_sent(r) AS sent FROM approval_requests r WHERE ${where} ${tail}`,
      params,
    );
    return withVotes(pool, rows);
  }

  async function get(id: number): Promise<ApprovalRequest | null> {
    return (await select('id = $1', [id]))[0] ?? null;
  }

  async function existing(id: number): Promise<ApprovalRequest> {
    const found = await get(id);
    if (!found) throw new ApprovalRefusal('APPROVAL_NOT_FOUND', `No approval request ${id}.`);
    return found;
  }

  /**
   * One decision (one statement, its own COMMIT). Refused because the request no longer waits: read
   * again, so the refusal says who decided it. The connection lost on the way: the COMMIT may or
   * may not have happened, so read again on a fresh connection and answer what is there; the
   * decision is never sent a second time (docs/decisions/approval-races.md).
   */
  async function decided(kind: Decision, sql: string, params: unknown[]): Promise<ApprovalRequest> {
    const id = params[0] as number;
    await existing(id);
    try {
      await pool.query(sql, params);
    } catch (error) {
      const refusal = approvalRefusalOf(error, kind === 'withdraw' ? 'withdraw' : 'other');
      if (refusal) {
        if (refusal.code === 'APPROVAL_NOT_WAITING') refusal.decision = outcomeOf(await existing(id));
        throw refusal;
      }
      if (describeWorkspaceError(error).code !== 'CONNECTION_LOST') throw error;
      return readAgain(kind, id);
    }
    return existing(id);
  }

  async function readAgain(kind: Decision, id: number): Promise<ApprovalRequest> {
    let now: ApprovalRequest;
    let login: string;
    try {
      login = (await pool.query<{ login: string }>('SELECT session_user AS login')).rows[0]!.login;
      now = await existing(id);
    } catch {
      throw new ApprovalRefusal(
        'APPROVAL_UNCONFIRMED',
        `The connection to the workspace was lost while your ${kind} of request ${id} was on its way, and the workspace cannot be read to check it. Nothing is decided twice: refresh the Approvals screen once the workspace is back.`,
      );
    }
    const recorded = kind === 'withdraw' ? now.state === 'withdrawn' && now.decidedBy === login : now.votes.some((v) => v.voter === login && v.vote === kind);
    if (recorded) return now;
    throw new ApprovalRefusal(
      'APPROVAL_NOT_RECORDED',
      `The connection to the workspace was lost before your ${kind} of request ${id} was recorded: nothing was recorded. It is ${now.state} now.`,
      null,
      outcomeOf(now),
    );
  }

  /** The gate's refusal with the request already open for it, if any (the screen offers that one rather than a new ask). */
  async function gate(sql: string, params: unknown[], open: () => Promise<ApprovalRequest[]>): Promise<ApprovalRefusal | null> {
    try {
      await pool.query(sql, params);
      return null;
    } catch (error) {
      const refusal = approvalRefusalOf(error);
      if (!refusal || (refusal.code !== 'APPROVAL_REQUIRED' && refusal.code !== 'APPROVAL_STALE')) throw error;
      const request = (await open())[0];
      if (refusal.need && request) refusal.need.request = { id: request.id, state: request.state };
      return refusal;
    }
  }

  async function policy(db: Queryable = pool): Promise<ApprovalTier[]> {
    const { rows } = await db.query<{ environment: 'sandbox' | 'live'; currency: string; min_amount: number; approvals: 0 | 1 | 2; approver_role: string; updated_by: string | null }>(
      'SELECT environment, currency, min_amount, approvals, approver_role, updated_by FROM approval_tiers ORDER BY environment, currency, min_amount',
    );
    return rows.map((t) => ({ environment: t.environment, currency: t.currency, minAmount: t.min_amount, approvals: t.approvals, approverRole: ROLE_OF[t.approver_role] ?? 'finance', updatedBy: t.updated_by }));
  }

  return {
    async whoAmI() {
      const { rows } = await pool.query<{ login: string; roles: string[] }>(
        `SELECT session_user AS login, ARRAY(SELECT r FROM unnest(ARRAY['paydesk_finance', 'paydesk_support', 'paydesk_admin']) r WHERE pg_has_role(session_user, r, 'MEMBER')) AS roles`,
      );
      return { login: rows[0]!.login, roles: rows[0]!.roles.map((role) => role.replace(/^paydesk_/, '')) };
    },
    policy: () => policy(),
    setPolicy: (environment, currency, tiers) =>
      refusing(() =>
        inTransaction(pool, async (c) => {
          await c.query('DELETE FROM approval_tiers WHERE environment = $1 AND currency = $2 AND NOT (min_amount = ANY($3::bigint[]))', [environment, currency, tiers.map((t) => t.minAmount)]);
          for (const t of tiers) {
            // Unchanged tiers are not written: the audit log holds only what changed.
            await c.query(
              `INSERT INTO approval_tiers (environment, currency, min_amount, approvals, approver_role) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (environment, currency, min_amount) DO UPDATE SET approvals = EXCLUDED.approvals, approver_role = EXCLUDED.approver_role
               WHERE (approval_tiers.approvals, approval_tiers.approver_role) IS DISTINCT FROM (EXCLUDED.approvals, EXCLUDED.approver_role)`,
              [environment, currency, t.minAmount, t.approvals, DB_ROLE[t.approverRole]],
            );
          }
          return policy(c);
        }),
      ),
    async askPayout(environment, currency, request, remark) {
      const { rows } = await refusing(() =>
        pool.query<{ id: number | null }>('SELECT paydesk_request_payout_approval($1, $2, $3::jsonb, $4) AS id', [environment, currency, JSON.stringify(request), remark ?? null]),
      );
      return rows[0]!.id === null ? null : existing(rows[0]!.id);
    },
    async askBatch(batchId, currency, remark) {
      const { rows } = await refusing(() => pool.query<{ id: number | null }>('SELECT paydesk_request_batch_approval($1, $2, $3) AS id', [batchId, currency, remark ?? null]));
      return rows[0]!.id === null ? null : existing(rows[0]!.id);
    },
    approve: (id, digest, remark) => decided('approve', 'SELECT paydesk_approve($1, $2, $3)', [id, digest, remark ?? null]),
    reject: (id, remark) => decided('reject', 'SELECT paydesk_reject($1, $2)', [id, remark]),
    withdraw: (id, remark) => decided('withdraw', 'SELECT paydesk_withdraw($1, $2)', [id, remark ?? null]),
    waiting: (scope, limit = 200) =>
      scope === 'forMe'
        ? select(
            `state = 'awaiting' AND requested_by <> session_user AND pg_has_role(session_user, approver_role, 'MEMBER')
             AND NOT EXISTS (SELECT FROM approval_votes v WHERE v.request_id = r.id AND v.voter = session_user)`,
            [limit],
            'ORDER BY requested_at, id LIMIT $1',
          )
        : select('requested_by = session_user', [limit], 'ORDER BY id DESC LIMIT $1'),
    get,
    about: (subject) => ('batchId' in subject ? select('batch_id = $1', [subject.batchId]) : select(`subject = 'payout' AND environment = $1 AND external_id = $2`, [subject.environment, subject.externalId])),
    async batchGate(batchId) {
      const { rows } = await pool.query<{ seq: number }>('SELECT seq FROM batches WHERE id = $1', [batchId]);
      // A batch the workspace does not hold is sent by no one from it: nothing to gate here.
      if (!rows[0]) return null;
      return gate('SELECT paydesk_assert_batch_send($1, NULL)', [rows[0].seq], () => select(`batch_id = $1 AND state IN ('awaiting', 'approved')`, [batchId]));
    },
    payoutGate(environment, currency, request) {
      const externalId = request.external_id ?? null;
      return gate('SELECT paydesk_assert_payout_send($1, $2, $3, $4, $5)', [environment, currency, request.phone_number, request.amount, externalId], () =>
        externalId === null ? Promise.resolve([]) : select(`subject = 'payout' AND environment = $1 AND external_id = $2 AND state IN ('awaiting', 'approved')`, [environment, externalId]),
      );
    },
  };
}

