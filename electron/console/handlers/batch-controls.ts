/**
 * Bulk payouts while sending: Pause, Resume and Cancel. Each is written to the store before it
 * answers (a crash right after cannot undo it); the runner only notices it. Each step takes the
 * store's batches and the runner's controls, nothing else.
 */
import type { BatchSummary } from '../../../shared/api';
import type { BatchRunner } from '../batch/runner';
import { HandlerFailure } from './context';
import { summaryOf, type BatchJournal } from './batch-read';

type Controls = Pick<BatchRunner, 'run' | 'stop' | 'isRunning' | 'emitProgress'>;

export async function pauseBatch({ batches, now }: BatchJournal, runner: Controls, batchId: string): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'sending') throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a batch being sent can be paused.`);
  // Written before the answer: a crash right after cannot undo it.
  await batches.setState(batchId, 'paused', now(), { reason: runner.isRunning(batchId) ? 'Pausing: the rows in flight are being answered.' : null });
  runner.stop(batchId, 'pause');
  return summaryOf(batches, batchId);
}

export async function resumeBatch({ batches }: BatchJournal, runner: Controls, batchId: string): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'paused' && batch.state !== 'interrupted') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a paused or interrupted batch can be resumed.`);
  }
  if (runner.isRunning(batchId)) throw new HandlerFailure('CONFLICT', `Batch ${batchId} is still finishing the rows in flight; try again in a moment.`);
  runner.run(batchId);
  return summaryOf(batches, batchId);
}

export async function cancelBatch({ batches, now }: BatchJournal, runner: Controls, batchId: string): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state === 'cancelled' || batch.state === 'done') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: there is nothing left to cancel.`);
  }
  // Written before the answer, whether or not rows are in flight: no row not yet sent is ever
  // sent after it, crash or not. The runner notices, and rewrites the reason once it has ended.
  const running = runner.isRunning(batchId);
  await batches.setState(batchId, 'cancelled', now(), {
    reason: running ? 'Cancelling: the rows in flight are being answered; no other row is sent.' : `Cancelled: ${batch.counts.notSent} row(s) were not sent.`,
    finished: true,
  });
  if (!runner.stop(batchId, 'cancel')) await runner.emitProgress(batchId, 'send');
  return summaryOf(batches, batchId);
}
