/**
 * Approvals on a team workspace (issue 25), above the database's rules (postgres/approval-*.ts):
 * the policy, asking, approving, rejecting, withdrawing, what waits, and the sending gate's
 * verdict before anything is written. An optional part of the storage port: the SQLite store has
 * none (one desktop, one person: there is no second pair of eyes to ask;
 * docs/decisions/approvals-port.md). Who acts is always the database's `session_user`.
 */
import type { TransactionRequest } from '../../../shared/contract';
import type { ApprovalErrorCode, ApprovalNeed, ApprovalOutcome, ApprovalRequest, ApprovalScope, ApprovalTier, ApproverRole } from '../../../shared/api/approvals';

/**
 * An approval rule said no: a code the screens translate, the English sentence, what sending needs
 * when that is the reason, and the request as read again when a decision did not happen.
 */
export class ApprovalRefusal extends Error {
  constructor(
    readonly code: ApprovalErrorCode,
    message: string,
    readonly need: ApprovalNeed | null = null,
    public decision: ApprovalOutcome | null = null,
  ) {
    super(message);
    this.name = 'ApprovalRefusal';
  }
}

/** The profile a payout is sent with, as an approval binds it (a team profile's id names its merchant account). */
export interface ApprovalProfile {
  id: string;
  environment: 'sandbox' | 'live';
}

export interface NewTier {
  minAmount: number;
  approvals: 0 | 1 | 2;
  approverRole: ApproverRole;
}

/** What History's search asks of the requests not sent (the journal search's own filters, those a request has). */
export interface UnsentFilter {
  text?: string;
  from?: string;
  to?: string;
  minAmount?: number;
  maxAmount?: number;
  /** Look up's question: this external id exactly, a payout's or a batch row's, in this environment (closed requests included). */
  exact?: { environment: 'sandbox' | 'live'; externalId: string };
}

export interface ApprovalsPort {
  /** This login (`session_user`) and its workspace roles. */
  whoAmI(): Promise<{ login: string; roles: string[] }>;
  policy(): Promise<ApprovalTier[]>;
  /**
   * Asks approval for one payout as it will be sent with this profile (its external id included):
   * the approval binds the profile, its merchant account, the recipient and the whole request
   * (migration 43); null: the policy needs none.
   */
  askPayout(profile: ApprovalProfile, currency: string, request: TransactionRequest, remark?: string | null): Promise<ApprovalRequest | null>;
  /** Asks approval for a batch's valid rows as one file; null: the policy needs none for its total. */
  askBatch(batchId: string, currency: string, remark?: string | null): Promise<ApprovalRequest | null>;
  /**
   * Approves what the approver saw (`digest`); the request's state afterwards. A vote on a request
   * no longer waiting is refused with who decided it; a connection lost on the way is answered by
   * reading again, never by voting again (the same for reject and withdraw).
   */
  approve(id: number, digest: string, remark?: string | null): Promise<ApprovalRequest>;
  reject(id: number, remark: string): Promise<ApprovalRequest>;
  /** The maker takes the request back (awaiting or approved, not yet sent). */
  withdraw(id: number, remark?: string | null): Promise<ApprovalRequest>;
  /**
   * `forMe`: awaiting, of a role this login holds, asked by someone else, not yet voted by it.
   * `mine`: asked by this login, newest first. `decided`: what this login voted on, newest first.
   * `everyone`: an admin's list of everything awaiting (empty for anyone else).
   */
  waiting(scope: ApprovalScope, limit?: number): Promise<ApprovalRequest[]>;
  get(id: number): Promise<ApprovalRequest | null>;
  /**
   * History's requests whose money has not left (docs/decisions/history-shows-requests-not-sent.md):
   * every open one (awaiting, approved and not yet sent), and a closed one (rejected, withdrawn,
   * void) that `text` or `exact` names, is the last request of its payout or batch, and nothing was
   * sent for since. A sent request is never here: it is its entry. Open first, newest first.
   */
  unsent(filter: UnsentFilter, limit?: number): Promise<ApprovalRequest[]>;
  /** Every request about a batch or a payout (newest first): who asked, who approved. */
  about(subject: { batchId: string } | { environment: 'sandbox' | 'live'; externalId: string }): Promise<ApprovalRequest[]>;
  /**
   * The gate's verdict on sending this batch now, asked of the same database function that
   * refuses the claim of its rows: null = may send, else APPROVAL_REQUIRED or APPROVAL_STALE.
   */
  batchGate(batchId: string): Promise<ApprovalRefusal | null>;
  /**
   * The same for one payout as it will be sent with this profile (its external id set); `entryId`:
   * the entry a resend continues (an approval it spent still covers it), none for a new entry.
   */
  payoutGate(profile: ApprovalProfile, currency: string, request: TransactionRequest, entryId?: string | null): Promise<ApprovalRefusal | null>;
}
