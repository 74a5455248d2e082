/**
 * Bulk payouts from a CSV file (issue 10): the batches:* channels, each a named step that takes
 * only the parts of the handler context it uses (batch-read, batch-draft, batch-confirm,
 * batch-controls). Parsing and checking are the shared module's (shared/batch), sending is the
 * runner's (../batch/runner.ts), the store holds the batch, its rows and each row's payout
 * entry (the storage port: a desktop's SQLite journal, ../batch/store.ts, or a team workspace).
 */
import type { Channel } from '../../../shared/api';
import { templateCsv } from '../../../shared/batch';
import { createBatchRunner, type BatchRunner, type RunnerHooks } from '../batch/runner';
import type { Context, HandlerImpls } from './context';
import { detailOf, listBatches, reportFile, rowsPageOf, type BatchJournal } from './batch-read';
import { dropRows, importBatch, invalidRowsFile, retryFailed, sendRemaining, updateRow } from './batch-draft';
import { renewSentIds } from './batch-renew';
import { prepareBatch, previewBatch, rehearse, sendApprovedBatch, startBatch } from './batch-confirm';
import { cancelBatch, joinBatch, pauseBatch, resumeBatch } from './batch-controls';
import { requireBatchSendable } from './approvals';
import { requireSends } from './send-rights';
import { HandlerFailure } from './failure';

export { retryName } from './batch-draft';
export { batchBindingHash } from './batch-confirm';

type BatchChannel = Extract<Channel, `batches:${string}`> | 'approvals:sendBatch';

export function batchHandlers(context: Context, hooks: RunnerHooks): { handlers: HandlerImpls<BatchChannel>; runner: BatchRunner } {
  const { deps, confirmations } = context;
  const batches = deps.storage.batches;
  const store: BatchJournal = { batches, now: () => deps.clock.now() };
  const logged = { ...store, logger: deps.logger };
  // A profile whose keys are with the team sender (docs/team-sender.md): its balance is the sender's to read, Start and Resume ask it.
  const senderHolds = (profileId: string) => context.teamProfiles.senderHolds(profileId);
  const quoting = { clientFor: context.clientFor, engine: deps.engine, senderHolds };
  const runner = createBatchRunner(context, hooks);

  const handlers: HandlerImpls<BatchChannel> = {
    'batches:template': async ({ language }) => templateCsv(language),
    'batches:import': async (input) => importBatch(logged, context, input),
    'batches:updateRow': async (input) => updateRow(store, input),
    'batches:dropRows': async (input) => dropRows(store, input),
    'batches:invalidRows': async (input) => invalidRowsFile(store, input),
    'batches:preview': async (input) => previewBatch(batches, context, quoting, input),
    'batches:rehearse': async (input) => rehearse(context, input),
    // A login that may not send is refused first (./send-rights.ts), then a workspace's approval
    // gate (./approvals.ts): both before the token or any state is touched.
    'batches:prepare': async (input) => (await requireSends(deps.storage, 'this batch'), prepareBatch(store, context, quoting, confirmations, input)),
    'batches:start': async (input) => (
      await requireSends(deps.storage, 'this batch'), await requireBatchSendable(context, input.batchId), startBatch(logged, context, confirmations, runner, input, deps.storage.sendAsks)
    ),
    // The approved batch from its card: the same refusals first (who may send, the gate), then the usual start.
    'approvals:sendBatch': async (input) => {
      await requireSends(deps.storage, 'this batch');
      const approval = await deps.storage.approvals?.get(input.id);
      if (approval?.subject === 'batch' && approval.batchId !== null) await requireBatchSendable(context, approval.batchId);
      return sendApprovedBatch(logged, context, quoting, confirmations, runner, deps.storage.approvals, input);
    },
    'batches:pause': async ({ batchId }) => pauseBatch(store, runner, batchId),
    'batches:resume': async ({ batchId }) => (await requireSends(deps.storage, 'this batch'), await requireBatchSendable(context, batchId), resumeBatch(store, runner, batchId, { holds: senderHolds, asks: deps.storage.sendAsks })),
    'batches:cancel': async ({ batchId }) => cancelBatch(store, runner, batchId),
    'batches:join': async ({ batchId }) => {
      const joined = await batches.summary(batchId);
      if (joined && senderHolds(joined.profileId)) {
        throw new HandlerFailure('CONFLICT', `Batch ${batchId} is sent by the team sender, which holds its profile's keys: this desktop has none to help with. Its progress shows here live.`);
      }
      await joinBatch(store, deps.storage, runner, (id) => requireBatchSendable(context, id), batchId);
      return { ...(await detailOf(batches, batchId)), wait: runner.currentWait(batchId), sendingHere: runner.isRunning(batchId) };
    },
    'batches:get': async ({ batchId }) => ({ ...(await detailOf(batches, batchId)), wait: runner.currentWait(batchId), sendingHere: runner.isRunning(batchId) }),
    'batches:rows': async (input) => rowsPageOf(batches, input),
    'batches:list': async () => listBatches(batches),
    'batches:retryFailed': async (input) => retryFailed(store, context, input),
    'batches:sendRemaining': async (input) => sendRemaining(store, context, input),
    'batches:report': async (input) => reportFile(store, input),
    'batches:renewSentIds': async (input) => renewSentIds(logged, input),
  };
  return { handlers, runner };
}
