/**
 * Sending one row of a batch through the storage port (../storage/port.ts): its claim renewed and
 * its journal entry written `pending` and committed BEFORE its POST, the answer read by
 * ../outcome.ts and recorded, and a 429 (nothing created: the row is `not_sent`) sent again after
 * the service's wait. On SQLite the entries and answers go through the journal's group commit
 * (../journal/group-commit.ts, inside ../storage/sqlite-store.ts): the pending entry is awaited
 * before the POST; the answer is not (it commits with the next rows' pending entries, and the run
 * waits for every answer before it counts anything).
 */
import type { BatchRow } from '../../../shared/api';
import { backoffDelayMs, DEFAULT_RETRY } from '../../client/retry';
import type { Clock, ConsoleClient } from '../deps';
import { DEFAULT_CURRENCY } from '../handlers/context';
import type { JournalProfile } from '../journal/entries';
import type { Logger } from '@paydesk/sandbox';
import { classifyInitiate, type InitiateOutcome } from '../outcome';
import { ExternalIdKnown } from '../journal/payout-identity';
import type { JournalPort } from '../storage/port';
import { interrupt, noteAnswer, waitAtLeast, waitTurn, type Run } from './run';

/** What sending a row touches: the journal (through the storage port), the clock, the client. */
export interface RowSending {
  journal: JournalPort;
  /** The answers written and not yet committed: the run waits for them before it counts. */
  answers: Set<Promise<void>>;
  clock: Clock;
  logger?: Logger;
  client: Pick<ConsoleClient, 'initiatePayout'>;
  profile: JournalProfile;
  /** A progress event for this batch (`force`: not throttled); resolves once it has gone out. */
  progress(force: boolean): Promise<void>;
}

/**
 * The row's entry, written `pending` (a new entry linked to its row, or the same entry sent
 * again with the same external id); resolves with the entry's id once committed.
 */
export async function beginRow(journal: JournalPort, batchId: string, row: BatchRow, journalId: string | null, profile: JournalProfile, at: number): Promise<string> {
  if (journalId) {
    await journal.writeResend(journalId, at);
    return journalId;
  }
  return journal.writeRequest({ profile, kind: 'payout', request: row.request!, currency: DEFAULT_CURRENCY, at, batch: { id: batchId, row: row.rowNumber }, retryOf: row.retryOf ?? null });
}

/**
 * The answer written in the next group transaction. A failed write stops the run (its rows in
 * flight finish) and the run ends on it (./runner.ts), unless the entry is outcome unknown by
 * then: the row's claim was lost while its POST was out, the lease's expiry moved its pending
 * entry there, and only a look-up by its external id decides it now (./look-up.ts).
 */
export function recordAnswer(run: Run, row: BatchRow, journalId: string, outcome: InitiateOutcome, sending: RowSending): void {
  const at = sending.clock.now();
  const written = sending.journal.writeInitiateOutcome(journalId, outcome, at).then(
    () => {
      run.changed.add(row.rowNumber);
      void sending.progress(false);
    },
    async (error: unknown) => {
      if ((await sending.journal.getEntry(journalId).catch(() => null))?.state === 'outcome_unknown') {
        sending.logger?.warn('batch: an answer came after the row\'s claim was lost; the row is looked up by its external id', { batchId: run.batchId, row: row.rowNumber });
        run.changed.add(row.rowNumber);
        return;
      }
      run.writeError ??= error;
      run.abort.abort();
    },
  );
  sending.answers.add(written);
  void written.finally(() => sending.answers.delete(written));
}

/** A row whose external id is already a payout: linked to it ("paid by batch X, row N"), never POSTed. */
async function linkToKnown(run: Run, row: BatchRow, known: ExternalIdKnown, sending: RowSending): Promise<void> {
  const linked = await sending.journal.linkRowToPayout({ id: run.batchId, row: row.rowNumber }, known.known.journalId);
  sending.logger?.info('batch: a row names a payout the journal already holds; linked to it, not sent', {
    batchId: run.batchId,
    row: row.rowNumber,
    journalId: known.known.journalId,
    linked,
  });
  run.changed.add(row.rowNumber);
  noteAnswer(run, sending.clock.now());
}

/**
 * One row sent, until it has an answer (or the run stops, or `keep` says its claim is no longer
 * this console's: then it is not sent, not even again after a 429).
 */
export async function sendRow(run: Run, row: BatchRow, sending: RowSending, keep: () => Promise<boolean>): Promise<void> {
  const { clock } = sending;
  let journalId = row.journalId;
  for (let refusals = 1; ; refusals += 1) {
    if (!(await waitTurn(run, clock, () => sending.progress(true)))) return;
    if (!(await keep())) return;
    // Awaited: the pending entry is committed before the request leaves.
    try {
      journalId = await beginRow(sending.journal, run.batchId, row, journalId, sending.profile, clock.now());
    } catch (error) {
      if (!(error instanceof ExternalIdKnown)) throw error;
      // The journal already holds this external id as a payout: never sent again, the row links to it.
      await linkToKnown(run, row, error, sending);
      return;
    }
    run.changed.add(row.rowNumber); // shown in flight if no answer comes before the next push
    const outcome = classifyInitiate(await sending.client.initiatePayout(row.request!), row.request!);
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
