/**
 * Bulk payouts while sending: Pause, Resume and Cancel. Each is written to the store before it
 * answers (a crash right after cannot undo it); the runner only notices it. Each step takes the
 * store's batches and the runner's controls, nothing else.
 */
import { LOCAL_SANDBOX_ID } from '../settings';
import type { BatchSummary } from '../../../shared/api';
import type { BatchRunner } from '../batch/runner';
import type { SendAsksPort } from '../storage/send-asks-port';
import { HandlerFailure } from './context';
import { askSenderToSend } from './batch-confirm';
import { refuseSandboxElsewhere, summaryOf, type BatchJournal } from './batch-read';

type Controls = Pick<BatchRunner, 'run' | 'stop' | 'isRunning' | 'emitProgress'>;

export async function pauseBatch({ batches, now }: BatchJournal, runner: Controls, batchId: string): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'sending') throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a batch being sent can be paused.`);
  // Written before the answer: a crash right after cannot undo it.
  await batches.setState(batchId, 'paused', now(), { reason: runner.isRunning(batchId) ? 'Pausing: the rows in flight are being answered.' : null });
  runner.stop(batchId, 'pause');
  return summaryOf(batches, batchId);
}

export async function resumeBatch(
  { batches, now }: BatchJournal,
  runner: Controls,
  batchId: string,
  bySender?: { holds: (profileId: string) => boolean; asks: SendAsksPort | undefined },
): Promise<BatchSummary> {
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'paused' && batch.state !== 'interrupted') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a paused or interrupted batch can be resumed.`);
  }
  refuseSandboxElsewhere(batch);
  if (bySender?.holds(batch.profileId)) {
    // Its keys are with the team sender: Resume is an ask; the sender's runner looks up the rows in flight, then sends the rest.
    if (!bySender.asks) throw new HandlerFailure('CONFLICT', `Batch ${batchId} is sent by the team sender, which only a team workspace has.`);
    await askSenderToSend(batches, bySender.asks, { id: batchId, profileId: batch.profileId }, now);
    return summaryOf(batches, batchId);
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

/** What a join asks of the store beyond its batches: which store it is, and whether this login sends. */
export interface JoinStore {
  kind: 'sqlite' | 'postgres';
  loginRights(): Promise<{ sends: boolean }>;
}

/**
 * Help send from this desktop (team workspace): this desktop's runner takes rows of a batch
 * another desktop is sending. Nothing is written here; the runner claims rows under its own
 * lease, so a row is never sent twice, and the workspace's approval gate refuses its claims
 * (`approvalGate`: the same check Start and Resume make first) when the rules do.
 * On one desktop's SQLite journal a batch is either sent here or interrupted: nothing to join.
 */
export async function joinBatch(
  { batches }: BatchJournal,
  store: JoinStore,
  runner: Pick<BatchRunner, 'run' | 'isRunning'>,
  approvalGate: (batchId: string) => Promise<void>,
  batchId: string,
): Promise<void> {
  if (store.kind === 'sqlite') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId}: only a team workspace's batch can be sent from several desktops; on this desktop a batch is sent here or interrupted (Resume it).`, { reason: { key: 'joinDesktop', params: {} } });
  }
  // First, whatever the batch: a login that may not send is told so, not that the batch is not sending.
  if (!(await store.loginRights()).sends) {
    throw new HandlerFailure('WORKSPACE_NO_PERMISSION', 'Your workspace role may not send: only a finance login helps send a batch.', { reason: { key: 'joinMayNotSend', params: {} } });
  }
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'sending') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: only a batch being sent can be helped from another desktop.`, { reason: { key: 'joinNotSending', params: { state: batch.state } } });
  }
  if (batch.profileId === LOCAL_SANDBOX_ID) {
    // Each desktop's Local sandbox is a service of its own: rows sent from here would go to this
    // desktop's engine while the batch's other rows went to another's (one file, two services).
    // Only the desktop it is on sends it (refuseSandboxElsewhere); that desktop has no other to help.
    throw new HandlerFailure(
      'CONFLICT',
      `Batch ${batchId} is sent on the Local sandbox, which is a separate service on each desktop: helping from here would send its rows to this desktop's sandbox, not the one the batch is paid on. Only a batch on a profile the desktops share can be helped: a batch the team sends together goes on the Team sandbox profile.`,
      { reason: { key: 'joinLocalSandbox', params: {} } },
    );
  }
  if (runner.isRunning(batchId)) {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is already being sent from this desktop.`, { reason: { key: 'joinSendingHere', params: {} } });
  }
  await approvalGate(batchId);
  runner.run(batchId);
}
