import type { FieldErrors } from '../../../shared/contract';
import type { FailureReason } from '../../../shared/api';
import type { ApprovalNeed, ApprovalOutcome } from '../../../shared/api/approvals';

/** A failure a handler reports: becomes `{ ok: false, error }` at the table's edge. */
export class HandlerFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: { fields?: FieldErrors; journalId?: string; reason?: FailureReason; approval?: ApprovalNeed; decision?: ApprovalOutcome; profileId?: string } = {},
  ) {
    super(message);
    this.name = 'HandlerFailure';
  }
}
