/**
 * The console's state tables: journal entries, batches and reconciliation runs. Each row of a
 * table lists where a state may go; anything else is refused (see machine.ts).
 */
import type { BatchState, ReconcileStatus } from '../../../shared/api';
import { stateTable } from './machine';

/**
 * A journal entry's phase. The journal stores it in two columns (`state`, plus `resolution` and
 * the `NOT_SENT` error code), read and written only through ../journal/phase.ts:
 * - `pending`: written before the POST; in flight;
 * - `outcome_unknown`: may have reached the service, no usable answer (timeout, reset, 5xx);
 * - `not_found`: was outcome unknown, and a lookup by its external id found nothing: not sent;
 * - `not_sent`: certainly never created (connection refused before sending, 429): sent again on Resume;
 * - `rejected`: the service refused it with an error code (4xx): nothing was created (sent again,
 *   the same entry is continued: journal/payout-identity.ts);
 * - `known`: the service has it (its status follows; `known -> known` records a newer status).
 */
export const ENTRY_PHASES = ['pending', 'outcome_unknown', 'not_found', 'not_sent', 'rejected', 'known'] as const;
export type EntryPhase = (typeof ENTRY_PHASES)[number];

export const ENTRY_STATES = stateTable<EntryPhase>('journal entry', ['pending', 'known'], {
  pending: ['known', 'rejected', 'not_sent', 'outcome_unknown'],
  // Found by a lookup, or not: nothing else may decide an unknown outcome.
  outcome_unknown: ['known', 'not_found'],
  // Sent again with the same external id, or found after all by a later lookup.
  not_found: ['pending', 'known'],
  // Certainly created nothing: the same payout tried again continues its entry (one record per
  // payout, journal/payout-identity.ts). No answer ever makes a refusal a transaction.
  not_sent: ['pending'],
  rejected: ['pending'],
  known: ['known'],
});

/**
 * A batch: `paused` and `cancelled` are written when the user asks (before the answer), so a
 * crash right after cannot undo them; the runner then stops after the rows in flight.
 */
export const BATCH_STATE_TABLE = stateTable<BatchState>('batch', ['draft'], {
  // draft -> draft: the profile it is confirmed under is bound at prepare.
  draft: ['draft', 'sending', 'cancelled'],
  // sending -> sending: a resumed run starting (interrupted at start, then resumed).
  sending: ['sending', 'paused', 'interrupted', 'cancelled', 'done'],
  // paused -> paused: the run that was pausing wrote its closing reason.
  paused: ['paused', 'sending', 'cancelled'],
  interrupted: ['interrupted', 'sending', 'cancelled'],
  // cancelled -> cancelled: the closing reason once the rows in flight have settled.
  cancelled: ['cancelled'],
  done: [],
});

/** A reconciliation run; `importing` is the hidden state while its rows are written in chunks. */
export const RECONCILE_STATE_TABLE = stateTable<ReconcileStatus | 'importing'>('reconciliation', ['importing'], {
  importing: ['running'],
  // running -> running: the next phase (matching, then verifying).
  running: ['running', 'done', 'cancelled', 'interrupted'],
  interrupted: ['running'],
  // A cancelled run can be resumed from the rows not yet checked.
  cancelled: ['running'],
  // Verify: a pass over a finished report's rows still processing.
  done: ['running'],
});
