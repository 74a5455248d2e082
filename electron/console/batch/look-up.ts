/**
 * The follow-up step of a round: each row whose outcome is unknown looked up by its external id
 * before anything else is sent (found: recorded; not found: `not_found`, so it is sent again with
 * the same external id). A row is never sent while its outcome is unknown.
 *
 * In a team workspace several desktops may look one row up at once (a desktop that stopped leaves
 * its rows in flight outcome unknown for all): a record refused because another desktop decided
 * the row first is not an error, the row is simply no longer this look-up's.
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

/** Writes a look-up's finding; false when another desktop decided the entry first (it is no longer unknown). */
async function decided(storage: LookingUp['storage'], journalId: string, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if ((await storage.journal.getEntry(journalId).catch(() => null))?.state !== 'outcome_unknown') return false;
    throw error;
  }
}

/**
 * Looks each unknown row up once; returns how many the service's rate limit deferred (looked up
 * again after its wait: a round with only those left is not one of the runner's few rounds).
 */
export async function lookUpUnknown(run: Run, lookingUp: LookingUp): Promise<{ deferred: number }> {
  const { storage, clock, client } = lookingUp;
  let deferred = 0;
  for (const row of await storage.batches.rowsInState(run.batchId, ['unknown'])) {
    if (stopped(run)) return { deferred };
    if (!(await waitTurn(run, clock, () => lookingUp.progress(true)))) return { deferred };
    const journalId = row.journalId!;
    const result = await client.retrievePayout(row.externalId, { by: 'external_id' });
    if (isNotFound(result)) {
      const message = `batch: no payout with external id ${row.externalId}: not sent, so it may be sent again with the same one`;
      if (!(await decided(storage, journalId, () => storage.journal.recordNotFound(journalId, clock.now(), message)))) continue;
      run.changed.add(row.rowNumber);
      void lookingUp.progress(false);
      continue;
    }
    const tx = result.kind === 'success' ? transactionOf(result.data, { externalId: row.externalId }) : null;
    if (tx && result.kind === 'success') {
      const event = { type: 'status_seen', httpStatus: result.httpStatus, message: 'batch: found by its external id' } as const;
      if (!(await decided(storage, journalId, () => storage.journal.recordObserved(journalId, tx, event, clock.now())))) continue;
      run.changed.add(row.rowNumber);
      noteAnswer(run, clock.now());
      void lookingUp.progress(false);
      continue;
    }
    if (result.kind === 'api-error' && result.httpStatus === 429) {
      waitAtLeast(run, clock, (result.retryAfterSeconds ?? 1) * 1000, { httpStatus: result.httpStatus, code: result.code, message: result.message });
      deferred += 1;
      continue; // looked up again in the next round
    }
    if (result.kind === 'transport') {
      run.stop ??= 'interrupt';
      run.reason = `The service could not be reached to look rows up (${result.message}). Resume tries again.`;
    }
  }
  return { deferred };
}
