/**
 * The follow-up step of a round: each row whose outcome is unknown looked up by its external id
 * before anything else is sent (found: recorded; not found: `not_found`, so it is sent again with
 * the same external id). A row is never sent while its outcome is unknown.
 */
import type { Clock, ConsoleClient } from '../deps';
import { isNotFound, transactionOf } from '../handlers/outcomes';
import type { StoragePort } from '../storage/port';
import { noteAnswer, stopped, waitAtLeast, waitTurn, type Run } from './run';

export interface LookingUp {
  storage: Pick<StoragePort, 'journal' | 'batches'>;
  clock: Clock;
  client: Pick<ConsoleClient, 'retrievePayout'>;
  progress(force: boolean): Promise<void>;
}

export async function lookUpUnknown(run: Run, lookingUp: LookingUp): Promise<void> {
  const { storage, clock, client } = lookingUp;
  for (const row of await storage.batches.rowsInState(run.batchId, ['unknown'])) {
    if (stopped(run)) return;
    if (!(await waitTurn(run, clock, () => lookingUp.progress(true)))) return;
    const journalId = row.journalId!;
    const result = await client.retrievePayout(row.externalId, { by: 'external_id' });
    if (isNotFound(result)) {
      await storage.journal.recordNotFound(journalId, clock.now(), `batch: no payout with external id ${row.externalId}: not sent, so it may be sent again with the same one`);
      run.changed.add(row.rowNumber);
      void lookingUp.progress(false);
      continue;
    }
    const tx = result.kind === 'success' ? transactionOf(result.data) : null;
    if (tx && result.kind === 'success') {
      await storage.journal.recordObserved(journalId, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'batch: found by its external id' }, clock.now());
      run.changed.add(row.rowNumber);
      noteAnswer(run, clock.now());
      void lookingUp.progress(false);
      continue;
    }
    if (result.kind === 'api-error' && result.httpStatus === 429) {
      waitAtLeast(run, clock, (result.retryAfterSeconds ?? 1) * 1000, { httpStatus: result.httpStatus, code: result.code, message: result.message });
      continue; // looked up again in the next round
    }
    if (result.kind === 'transport') {
      run.stop ??= 'interrupt';
      run.reason = `The service could not be reached to look rows up (${result.message}). Resume tries again.`;
    }
  }
}
