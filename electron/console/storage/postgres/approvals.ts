/**
 * The approvals port on a team workspace: every decision is one of migration 21's SECURITY
 * DEFINER functions (the rules are the tables' triggers), reads are plain SELECTs, and every
 * refusal the rules raise is mapped by its SQLSTATE (migration 28, ./migrations/0028-approval-refusals-with-their-own-sqlstates.sql),
 * never by its English words, to a code the screens translate.
 */
import type { ApprovalNeed, ApprovalOutcome, ApprovalRequest, ApprovalState, ApprovalTier, ApprovalVote, ApproverRole } from '../../../../shared/api/approvals';
import type { TransactionRequest } from '../../../../shared/contract';
import { ApprovalRefusal, type ApprovalsPort, type UnsentFilter } from '../approvals-port';
import { APPROVAL_SQLSTATE } from './schema-names';
import { describeWorkspaceError } from './connection';
import type { Queryable, WorkspacePool } from './db';

const ROLE_OF: Record<string, ApproverRole> = { paydesk_finance: 'finance', paydesk_admin: 'admin' };

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
  profile_id: string | null;
  profile_name: string | null;
  account: { baseUrl?: string } | null;
  request: TransactionRequest | null;
  spent_by_entry: string | null;
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
    case APPROVAL_SQLSTATE.approvalSpent:
      return new ApprovalRefusal('APPROVAL_SPENT', message);
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
 * The sending gate's refusal only (PD001, PD002, PD020), for the send paths: there a `42501` is a role's
 * refusal of the write itself (a support login sending), the workspace's fault, never an approval's.
 */
export function gateRefusalOf(error: unknown): ApprovalRefusal | null {
  const code = error instanceof Error ? (error as PgError).code : undefined;
  return code === APPROVAL_SQLSTATE.approvalRequired || code === APPROVAL_SQLSTATE.changedSinceApproval || code === APPROVAL_SQLSTATE.approvalSpent
    ? approvalRefusalOf(error)
    : null;
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
    profileId: row.profile_id,
    profileName: row.profile_name,
    accountUrl: row.account?.baseUrl ?? null,
    request: row.request,
    spentByEntry: row.spent_by_entry,
  }));
}

export function workspaceApprovals(pool: WorkspacePool): ApprovalsPort {
  async function select(where: string, params: unknown[], tail = 'ORDER BY id DESC'): Promise<ApprovalRequest[]> {
    // `sent` by the rule that refuses a withdraw (migration 30's paydesk_request_sent), asked only of approved requests.
    const { rows } = await pool.query<RequestRow>(
      `SELECT r.*, r.state = 'approved' AND paydesk_request_sent(r) AS sent, (SELECT t.name FROM team_profiles t WHERE t.id = r.profile_id) AS profile_name
       FROM approval_requests r WHERE ${where} ${tail}`,
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

  /** History's requests not sent (the port's `unsent`): its filters as one WHERE, every value a parameter. */
  function unsent(filter: UnsentFilter, limit: number): Promise<ApprovalRequest[]> {
    const params: unknown[] = [];
    const at = (value: unknown) => `$${params.push(value)}`;
    const where = [
      // A sent request is its entry in History (marked "Approved (request N), sent"): never a second row.
      'NOT paydesk_request_sent(r)',
      // The last request of its payout or batch: an earlier one asked again is the later one's past.
      `NOT EXISTS (SELECT FROM approval_requests later WHERE later.id > r.id
         AND (later.batch_id = r.batch_id OR (later.subject = 'payout' AND r.subject = 'payout' AND later.environment = r.environment AND later.external_id = r.external_id)))`,
    ];
    const text = filter.text?.trim().toLowerCase() ?? '';
    if (filter.exact) {
      const id = at(filter.exact.externalId);
      where.push(`r.environment = ${at(filter.exact.environment)}`);
      where.push(`(r.external_id = ${id} OR EXISTS (SELECT FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = r.batch_id AND br.external_id = ${id}))`);
    } else if (text === '') where.push(`r.state IN ('awaiting', 'approved')`);
    if (text !== '') {
      // Substrings compared with strpos, not LIKE: a typed % or _ is a character, as in the journal's search.
      const p = at(text);
      where.push(`(r.id::text = ${p} OR strpos(lower(coalesce(r.external_id, '')), ${p}) > 0 OR strpos(lower(coalesce(r.phone_number, '')), ${p}) > 0
        OR strpos(lower(coalesce(r.batch_id, '')), ${p}) > 0
        OR strpos(lower(concat_ws(' ', r.request->'customer'->>'first_name', r.request->'customer'->>'last_name')), ${p}) > 0
        OR EXISTS (SELECT FROM batch_rows br JOIN batches b ON b.seq = br.batch_seq WHERE b.id = r.batch_id AND strpos(lower(br.external_id), ${p}) > 0))`);
    }
    if (filter.from !== undefined) where.push(`r.requested_at >= ${at(filter.from)}::timestamptz`);
    if (filter.to !== undefined) where.push(`r.requested_at <= ${at(filter.to)}::timestamptz`);
    if (filter.minAmount !== undefined) where.push(`r.amount >= ${at(filter.minAmount)}`);
    if (filter.maxAmount !== undefined) where.push(`r.amount <= ${at(filter.maxAmount)}`);
    return select(where.join(' AND '), params, `ORDER BY r.state IN ('awaiting', 'approved') DESC, r.id DESC LIMIT ${at(limit)}`);
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
    async askPayout(profile, currency, request, remark) {
      const { rows } = await refusing(() =>
        pool.query<{ id: number | null }>('SELECT paydesk_request_payout_approval($1, $2, $3, $4::jsonb, $5) AS id', [
          profile.id, profile.environment, currency, JSON.stringify(request), remark ?? null,
        ]),
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
            // By person (migration 45): a request asked from another of this person's logins is theirs too.
            `state = 'awaiting' AND paydesk_person_of(requested_by) <> paydesk_person_of(session_user) AND pg_has_role(session_user, approver_role, 'MEMBER')
             AND NOT EXISTS (SELECT FROM approval_votes v WHERE v.request_id = r.id AND paydesk_person_of(v.voter) = paydesk_person_of(session_user))`,
            [limit],
            'ORDER BY requested_at, id LIMIT $1',
          )
        : scope === 'decided'
          ? // What this login decided: its votes, newest first (a decided request stays in sight).
            select(`EXISTS (SELECT FROM approval_votes v WHERE v.request_id = r.id AND v.voter = session_user)`, [limit], 'ORDER BY coalesce(decided_at, requested_at) DESC, id DESC LIMIT $1')
          : scope === 'everyone'
            ? // An admin's view: everything still waiting, whoever asked and whoever decides it.
              select(`state = 'awaiting' AND pg_has_role(session_user, 'paydesk_admin', 'MEMBER')`, [limit], 'ORDER BY requested_at, id LIMIT $1')
            : select('requested_by = session_user', [limit], 'ORDER BY id DESC LIMIT $1'),
    get,
    unsent: (filter, limit = 200) => unsent(filter, limit),
    about: (subject) => ('batchId' in subject ? select('batch_id = $1', [subject.batchId]) : select(`subject = 'payout' AND environment = $1 AND external_id = $2`, [subject.environment, subject.externalId])),
    async batchGate(batchId) {
      const { rows } = await pool.query<{ seq: number }>('SELECT seq FROM batches WHERE id = $1', [batchId]);
      // A batch the workspace does not hold is sent by no one from it: nothing to gate here.
      if (!rows[0]) return null;
      return gate('SELECT paydesk_assert_batch_send($1, NULL)', [rows[0].seq], () => select(`batch_id = $1 AND state IN ('awaiting', 'approved')`, [batchId]));
    },
    payoutGate(profile, currency, request, entryId = null) {
      const externalId = request.external_id ?? null;
      const environment = profile.environment;
      return gate('SELECT paydesk_assert_payout_send($1, $2, $3, $4, $5::jsonb, $6)', [environment, profile.id, currency, request.amount, JSON.stringify(request), entryId], () =>
        externalId === null ? Promise.resolve([]) : select(`subject = 'payout' AND environment = $1 AND external_id = $2 AND state IN ('awaiting', 'approved')`, [environment, externalId]),
      );
    },
  };
}

