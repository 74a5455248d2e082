/**
 * Sending one row of a batch: its journal entry written `pending` and committed BEFORE its POST,
 * the answer read by ../outcome.ts and recorded, and a 429 (nothing created: the row is
 * `not_sent`) sent again after the service's wait. Entries and answers go through the journal's
 * group commit (../journal/group-commit.ts): the pending entry is awaited before the POST; the answer is
 * not (it commits with the next rows' pending entries, and the run drains the group before it
 * counts anything).
 */
import type { BatchRow } from '../../../shared/api';
import { backoffDelayMs, DEFAULT_RETRY } from '../../client/retry';
import type { Clock, ConsoleClient } from '../deps';
import { DEFAULT_CURRENCY } from '../handlers/context';
import { writeInitiateOutcome, writeRequest, writeResend, type JournalDb, type JournalProfile } from '../journal/entries';
import type { Logger } from '@paydesk/sandbox';
import { classifyInitiate, type InitiateOutcome } from '../outcome';
import type { GroupCommit } from '../journal/group-commit';
import { interrupt, noteAnswer, waitAtLeast, waitTurn, type Run } from './run';
import { linkRow } from './store';

/** What sending a row touches: the journal (through the group commit), the clock, the client. */
export interface RowSending {
  db: JournalDb;
  writes: GroupCommit;
  clock: Clock;
  logger?: Logger;
  client: Pick<ConsoleClient, 'initiatePayout'>;
  profile: JournalProfile;
  /** A progress event for this batch (`force`: not throttled). */
  progress(force: boolean): void;
}

/**
 * The row's entry, written `pending` (a new entry linked to its row, or the same entry sent
 * again with the same external id). Runs inside a group transaction; returns the entry's id.
 */
export function beginRow(db: JournalDb, batchId: string, row: BatchRow, journalId: string | null, profile: JournalProfile, at: number): string {
  if (journalId) {
    writeResend(db, journalId, at);
    return journalId;
  }
  const id = writeRequest(db, { profile, kind: 'payout', request: row.request!, currency: DEFAULT_CURRENCY, at, batch: { id: batchId, row: row.rowNumber }, retryOf: row.retryOf ?? null });
  linkRow(db, batchId, row.rowNumber, id);
  return id;
}

/**
 * The answer written in the next group transaction. A failed write stops the run (its rows in
 * flight finish) and the run ends on the error (./runner.ts).
 */
export function recordAnswer(run: Run, row: BatchRow, journalId: string, outcome: InitiateOutcome, sending: RowSending): void {
  const at = sending.clock.now();
  sending.writes.write(() => writeInitiateOutcome(sending.db, journalId, outcome, at)).then(
    () => {
      run.changed.add(row.rowNumber);
      sending.progress(false);
    },
    (error: unknown) => {
      run.writeError ??= error;
      run.abort.abort();
    },
  );
}

/** One row sent, until it has an answer (or the run stops). */
export async function sendRow(run: Run, row: BatchRow, sending: RowSending): Promise<void> {
  const { clock } = sending;
  let journalId = row.journalId;
  for (let refusals = 1; ; refusals += 1) {
    if (!(await waitTurn(run, clock, () => sending.progress(true)))) return;
    const previous = journalId;
    // Awaited: the pending entry is committed before the request leaves.
    journalId = await sending.writes.write(() => beginRow(sending.db, run.batchId, row, previous, sending.profile, clock.now()));
    run.changed.add(row.rowNumber); // shown in flight if no answer comes before the next push
    const outcome = classifyInitiate(await sending.client.initiatePayout(row.request!));
    recordAnswer(run, row, journalId, outcome, sending);
    switch (outcome.kind) {
      case 'retry-later':
        // Refused before anything was created (the row is `not_sent`): wait as asked, send again.
        waitAtLeast(run, clock, outcome.retryAfterSeconds !== null ? outcome.retryAfterSeconds * 1000 : backoffDelayMs(refusals, DEFAULT_RETRY, Math.random), outcome.error);
        sending.logger?.info('batch: service asked to wait', { batchId: run.batchId, httpStatus: outcome.error.httpStatus, waitMs: run.notBefore - clock.now() });
        continue;
      case 'may-exist':
        if (outcome.retryAfterSeconds !== null) waitAtLeast(run, clock, outcome.retryAfterSeconds * 1000, outcome.error);
        if (outcome.cause === 'no-answer') interrupt(run, outcome.message);
        break;
      case 'not-sent':
        interrupt(run, outcome.message);
        break;
      case 'exists':
        // The service already has this external id: the row (outcome unknown, marked already
        // sent) is looked up by it before the run ends and adopts that transaction (./look-up.ts).
        break;
      case 'accepted':
      case 'refused':
        break;
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
    noteAnswer(run, clock.now());
    return;
  }
}
