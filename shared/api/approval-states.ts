/**
 * The approval states and roles, and what a refusal says is needed: the words both the approvals
 * channels (./approvals.ts) and the journal's types (./types.ts) use, in a file that imports neither.
 */
export const APPROVAL_STATES = ['awaiting', 'approved', 'rejected', 'withdrawn', 'void'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];
/** Who may approve: the workspace's finance or admin people. */
export const APPROVER_ROLES = ['finance', 'admin'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

/** What sending needs before it may go (a refusal's `approval`): how many approvals, from whom, for what. */
export interface ApprovalNeed {
  subject: 'payout' | 'batch';
  environment: 'sandbox' | 'live';
  amount: number;
  rows: number;
  approvals: number;
  approverRole: ApproverRole;
  currency?: string;
  externalId?: string | null;
  batchId?: string;
  /** A request already open for it (awaiting or approved-but-changed), if any. */
  request?: { id: number; state: ApprovalState } | null;
}

/**
 * A decision that did not happen as pressed, with the request as read again afterwards: a vote
 * after someone else decided it (who, and who asked: they may withdraw it), or a connection lost
 * before the vote was recorded (docs/decisions/approval-races.md).
 */
export interface ApprovalOutcome {
  id: number;
  state: ApprovalState;
  decidedBy: string | null;
  requestedBy: string;
}
