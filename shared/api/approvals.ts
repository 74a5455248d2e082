/**
 * Four eyes on a team workspace (issue 25): what the Approvals screen, the send form and a batch's
 * page exchange with the main process. The rules are the workspace database's (migrations 20-21,
 * 28); a single desktop (the SQLite journal) has no approvals at all.
 */
import { z } from 'zod';
import { ENVIRONMENTS } from '../contract/codes';
import { transactionRequestSchema } from '../contract/schemas';
import type { TransactionRequest } from '../contract';
import type { BatchSummary } from './batch';
import type { JournalTransaction } from './types';
import { APPROVAL_STATES, APPROVER_ROLES, type ApprovalNeed, type ApprovalOutcome, type ApprovalState, type ApproverRole } from './approval-states';

export { APPROVAL_STATES, APPROVER_ROLES, type ApprovalNeed, type ApprovalOutcome, type ApprovalState, type ApproverRole };

/** The Approvals screen's lists: waiting for me, asked by me, decided by me, everything waiting (an admin's). */
export const APPROVAL_SCOPES = ['forMe', 'mine', 'decided', 'everyone'] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

export interface ApprovalVote {
  voter: string;
  vote: 'approve' | 'reject';
  remark: string | null;
  /** ISO 8601. */
  at: string;
}

export interface ApprovalRequest {
  id: number;
  subject: 'payout' | 'batch';
  batchId: string | null;
  environment: 'sandbox' | 'live';
  currency: string;
  externalId: string | null;
  phoneNumber: string | null;
  /** A payout's amount, or a batch's total, in the smallest unit. */
  amount: number;
  rows: number;
  /** What the approver saw (the database's sha-256): approving sends it back, so a change in between is refused. */
  digest: string;
  approvalsRequired: number;
  approvalsGiven: number;
  approverRole: ApproverRole;
  state: ApprovalState;
  requestedBy: string;
  requestedAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  remark: string | null;
  votes: ApprovalVote[];
  /**
   * Approved, and its money has left (the payout has its entry; the batch is done or cancelled, or
   * every row of it has its entry): it can no longer be withdrawn. False in every other state. A
   * batch halfway sent is not `sent`: withdrawing it still stops the rest.
   */
  sent: boolean;
  /** The profile the approval binds (migration 43; null on a request asked before it). */
  profileId: string | null;
  /** That profile's name when it is a team profile. */
  profileName: string | null;
  /** The merchant account's service URL, as the team profile held it when asked (null: a desktop's own profile). */
  accountUrl: string | null;
  /** A payout's whole request as approved: the maker sends exactly this (null for a batch). */
  request: TransactionRequest | null;
  /** The entry whose send spent this payout's approval (one approval, one send), once sent. */
  spentByEntry: string | null;
}

/** One tier of a policy: from `minAmount` up, a payout's amount or a batch's total needs `approvals` from `approverRole`. */
export interface ApprovalTier {
  environment: 'sandbox' | 'live';
  currency: string;
  minAmount: number;
  approvals: 0 | 1 | 2;
  approverRole: ApproverRole;
  updatedBy: string | null;
}



/** Codes of an approval refusal (console side; English in the message, words in the `errors` catalogue). */
export const APPROVAL_ERROR_CODES = [
  'APPROVAL_REQUIRED',
  'APPROVAL_STALE',
  'APPROVAL_OWN_REQUEST',
  'APPROVAL_NOT_WAITING',
  'APPROVAL_NOT_APPROVER',
  'APPROVAL_CHANGED',
  'APPROVAL_NOT_MAKER',
  'APPROVAL_ALREADY_ASKED',
  'APPROVAL_ALREADY_VOTED',
  'APPROVAL_NOT_ALLOWED',
  'APPROVAL_NOT_FOUND',
  'APPROVALS_UNAVAILABLE',
  // A connection lost while a decision was on its way: read again, it was not recorded, or it cannot be read yet.
  'APPROVAL_NOT_RECORDED',
  'APPROVAL_UNCONFIRMED',
  // The maker withdrawing a request whose money has already left.
  'APPROVAL_ALREADY_SENT',
  // An approved payout's approval already spent by another entry (another profile, another send): ask again.
  'APPROVAL_SPENT',
] as const;
export type ApprovalErrorCode = (typeof APPROVAL_ERROR_CODES)[number];

const remark = z.string().trim().max(500);
const requestId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** One tier of the policy as an admin asks it (people:askPolicy, shared/api/people.ts). */
export const approvalTierInputSchema = z.strictObject({
  minAmount: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  approvals: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  approverRole: z.enum(APPROVER_ROLES),
});

export const APPROVAL_CHANNEL_INPUTS = {
  /** Whether this console's store has approvals (a workspace) and who this login is. */
  'approvals:status': z.strictObject({}),
  'approvals:list': z.strictObject({ scope: z.enum(APPROVAL_SCOPES) }),
  'approvals:get': z.strictObject({ id: requestId }),
  /** Asks approval for a single payout (the active profile's environment); the request keeps or gets its external id. */
  'approvals:askPayout': z.strictObject({ request: transactionRequestSchema, remark: remark.optional() }),
  /** Asks approval for a confirmed batch: all its valid rows, as one file. */
  'approvals:askBatch': z.strictObject({ batchId: z.string().min(1).max(200), remark: remark.optional() }),
  'approvals:approve': z.strictObject({ id: requestId, digest: z.string().regex(/^[0-9a-f]{64}$/, 'the digest shown with the request'), remark: remark.optional() }),
  'approvals:reject': z.strictObject({ id: requestId, remark: remark.min(1, 'says why it is rejected') }),
  'approvals:withdraw': z.strictObject({ id: requestId, remark: remark.optional() }),
  /** The maker sends an approved payout from its card: the request the approval bound, with its profile and external id; nothing retyped. */
  'approvals:send': z.strictObject({ id: requestId }),
  /**
   * The maker sends an approved batch from its card: the batch the approval bound (its profile,
   * environment and rows), through the usual start with a confirmation issued in main; the
   * workspace's gate still decides. `acceptDuplicateFile`: the same file was sent before, sent anyway.
   */
  'approvals:sendBatch': z.strictObject({ id: requestId, acceptDuplicateFile: z.boolean().optional() }),
  /** Requests about one batch or one payout (a batch's page, a transaction's timeline): who approved. */
  'approvals:about': z.union([
    z.strictObject({ batchId: z.string().min(1).max(200) }),
    z.strictObject({ environment: z.enum(ENVIRONMENTS), externalId: z.string().min(1).max(200) }),
  ]),
  'approvals:policy': z.strictObject({}),
  /**
   * History on a workspace: the requests whose money has not left (awaiting, approved not yet sent;
   * a closed one only when `text` names it), under the journal search's filters that a request has.
   */
  'approvals:unsent': z.strictObject({
    text: z.string().max(200).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    minAmount: z.number().int().nonnegative().optional(),
    maxAmount: z.number().int().nonnegative().optional(),
  }),
} as const;

export interface ApprovalChannelResults {
  'approvals:status': { available: false } | { available: true; login: string; roles: string[] };
  'approvals:list': { requests: ApprovalRequest[] };
  'approvals:get': ApprovalRequest;
  /** `request` null: the policy covers nothing of this size (send it as usual); `externalId` is the one to send it with. */
  'approvals:askPayout': { request: ApprovalRequest | null; externalId: string };
  'approvals:askBatch': { request: ApprovalRequest | null };
  'approvals:approve': ApprovalRequest;
  'approvals:reject': ApprovalRequest;
  'approvals:withdraw': ApprovalRequest;
  'approvals:send': JournalTransaction;
  'approvals:sendBatch': BatchSummary;
  'approvals:about': { requests: ApprovalRequest[] };
  'approvals:policy': { tiers: ApprovalTier[] };
  'approvals:unsent': { requests: ApprovalRequest[] };
}
