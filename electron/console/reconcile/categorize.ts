/**
 * Which report category a merchant row falls in, from what the journal or the service says.
 * Pure: the order of the checks is the decision (a wrong amount outranks a status).
 */
import { isFinalStatus, type ServiceStatus } from '../../../shared/contract';
import { statusSatisfies, type ExpectedStatus, type ReconcileCategory } from '../../../shared/api/reconcile';

export interface Found {
  status: ServiceStatus;
  amount: number;
  /** The service's creation time (ms), for "still processing after N minutes". */
  createdAtMs: number;
}

export function categorize(
  row: { amount: number; expected: ExpectedStatus | null },
  found: Found | null,
  nowMs: number,
  processingMinutes: number,
): ReconcileCategory {
  if (found === null) return 'missing_at_service';
  if (found.amount !== row.amount) return 'amount_differs';
  // Not final yet: `processing`, `initiated`, or a status the spec does not list (followed up like them).
  if (!isFinalStatus(found.status)) {
    return nowMs - found.createdAtMs >= processingMinutes * 60_000 ? 'still_processing' : 'processing_recent';
  }
  if (row.expected !== null && !statusSatisfies(row.expected, found.status)) return 'status_differs';
  return 'matched';
}
