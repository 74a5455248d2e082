/**
 * Four eyes on a team workspace (issue 25): the approvals:* channels over the storage port's
 * approvals (../storage/approvals-port.ts), and the sending gate's answer on every send path.
 *
 * The database refuses a covered send whatever the console does (a claim of batch rows, a
 * payout's entry); the console asks the same gate first so the person gets APPROVAL_REQUIRED
 * with what is needed and the request already open, before anything is written, and maps a
 * refusal that still comes from a write (a policy changed in between) to the same answer.
 */
import { randomUUID } from 'node:crypto';
import type { TransactionRequest } from '../../../shared/contract';
import type { ApprovalNeed, ApprovalRequest, Channel } from '../../../shared/api';
import { englishCount, englishMoney } from '../../../shared/money';
import { ApprovalRefusal, type ApprovalsPort } from '../storage/approvals-port';
import { gateRefusalOf } from '../storage/postgres/approvals';
import { DEFAULT_CURRENCY, HandlerFailure, type Context, type HandlerImpls } from './context';

// 'approvals:send' and 'approvals:sendBatch' send money: they are the send paths' (./send.ts, ./batches.ts).
type ApprovalChannel = Exclude<Extract<Channel, `approvals:${string}`>, 'approvals:send' | 'approvals:sendBatch'>;

/** The English sentence of a send the policy holds back (the screen words it from `approval`). */
function neededSentence(need: ApprovalNeed): string {
  // Grouped figures and real plurals: this sentence is read as it is (an English screen's details, the logs).
  const money = englishMoney(need.amount, need.currency);
  const what = need.subject === 'batch' ? `This batch (${englishCount(need.rows, 'row', 'rows')}, total ${money})` : `This payout of ${money}`;
  const who = `${englishCount(need.approvals, 'approval', 'approvals')} by ${need.approverRole === 'admin' ? 'an admin' : 'finance'}`;
  const next = need.request?.state === 'awaiting' ? `its request #${need.request.id} is waiting for approval` : 'ask for approval first';
  return `${what} needs ${who} before it is sent: ${next}. Nothing was sent.`;
}

/**
 * A refusal of the approval rules as the handler's failure; anything else is left as it is. From
 * a raw database error only the sending gate's codes count (./postgres/approvals.ts gateRefusalOf):
 * the approvals port has already turned its own refusals into ApprovalRefusal.
 */
export function approvalFailure(error: unknown): HandlerFailure | null {
  const refusal = error instanceof ApprovalRefusal ? error : gateRefusalOf(error);
  if (!refusal) return null;
  if (refusal.code === 'APPROVAL_REQUIRED' && refusal.need) return new HandlerFailure('APPROVAL_REQUIRED', neededSentence(refusal.need), { approval: refusal.need });
  if (refusal.code === 'APPROVAL_STALE') {
    return new HandlerFailure('APPROVAL_STALE', 'This batch changed after it was approved: nothing is sent until it is approved again. Ask for approval again.', refusal.need ? { approval: refusal.need } : {});
  }
  // A decision that did not happen carries the request as read again: the screen says who decided it, or that nothing was recorded.
  return new HandlerFailure(refusal.code, refusal.message, refusal.decision ? { decision: refusal.decision } : {});
}

/** Runs a write that the gate may refuse; its refusal comes back as APPROVAL_REQUIRED, nothing written. */
export async function gated<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw approvalFailure(error) ?? error;
  }
}

/** Start, Resume: refused before any state is written when the workspace's gate would refuse the batch's claims. */
export async function requireBatchSendable(context: Pick<Context, 'deps'>, batchId: string): Promise<void> {
  const refusal = await context.deps.storage.approvals?.batchGate(batchId);
  if (refusal) throw approvalFailure(refusal)!;
}

/**
 * A single payout, as it will be sent with this profile (its external id set): refused before its
 * entry is written. `entryId`: the entry a resend continues (its own approval still covers it).
 */
export async function requirePayoutSendable(
  context: Pick<Context, 'deps'>,
  profile: { id: string; environment: 'sandbox' | 'live' },
  request: TransactionRequest,
  entryId: string | null = null,
): Promise<void> {
  const refusal = await context.deps.storage.approvals?.payoutGate({ id: profile.id, environment: profile.environment }, DEFAULT_CURRENCY, request, entryId);
  if (refusal) {
    if (refusal.need) refusal.need.currency ??= DEFAULT_CURRENCY;
    throw approvalFailure(refusal)!;
  }
}

/** The workspace's approvals, or the refusal a desktop alone answers (it has none). */
export function approvalsOf<T>(approvals: T | undefined): T {
  if (!approvals) throw new HandlerFailure('APPROVALS_UNAVAILABLE', 'Approvals exist on a team workspace only: this desktop keeps its own journal and sends alone.');
  return approvals;
}

/** One approval request, read to be sent from its card (`approvals:send`, `approvals:sendBatch`). */
export async function approvalToSend(approvals: Pick<ApprovalsPort, 'get'> | undefined, id: number): Promise<ApprovalRequest> {
  const approval = await approvalsOf(approvals).get(id);
  if (!approval) throw new HandlerFailure('APPROVAL_NOT_FOUND', `No approval request ${id}.`);
  return approval;
}

export function approvalHandlers(context: Context): HandlerImpls<ApprovalChannel> {
  const { deps } = context;

  const port = (): ApprovalsPort => approvalsOf(deps.storage.approvals);

  async function answering<T>(work: (approvals: ApprovalsPort) => Promise<T>): Promise<T> {
    const approvals = port();
    try {
      return await work(approvals);
    } catch (error) {
      throw approvalFailure(error) ?? error;
    }
  }

  const found = (request: ApprovalRequest | null, id: number): ApprovalRequest => {
    if (!request) throw new HandlerFailure('APPROVAL_NOT_FOUND', `No approval request ${id}.`);
    return request;
  };

  return {
    async 'approvals:status'() {
      const approvals = deps.storage.approvals;
      if (!approvals) return { available: false };
      return { available: true, ...(await approvals.whoAmI()) };
    },
    'approvals:list': ({ scope }) => answering(async (a) => ({ requests: await a.waiting(scope) })),
    'approvals:get': ({ id }) => answering(async (a) => found(await a.get(id), id)),
    'approvals:askPayout': ({ request, remark }) =>
      answering(async (a) => {
        const profile = context.activeProfile();
        context.requireAllowed(profile);
        // The approval binds the external id: the send that follows must use this one.
        const externalId = request.external_id ?? randomUUID();
        const asked = await a.askPayout({ id: profile.id, environment: profile.environment }, DEFAULT_CURRENCY, { ...request, external_id: externalId }, remark ?? null);
        return { request: asked, externalId };
      }),
    'approvals:askBatch': ({ batchId, remark }) => answering(async (a) => ({ request: await a.askBatch(batchId, DEFAULT_CURRENCY, remark ?? null) })),
    'approvals:approve': ({ id, digest, remark }) => answering((a) => a.approve(id, digest, remark ?? null)),
    'approvals:reject': ({ id, remark }) => answering((a) => a.reject(id, remark)),
    'approvals:withdraw': ({ id, remark }) => answering((a) => a.withdraw(id, remark ?? null)),
    'approvals:about': (subject) => answering(async (a) => ({ requests: await a.about(subject) })),
    'approvals:policy': () => answering(async (a) => ({ tiers: await a.policy() })),
    'approvals:unsent': (filter) => answering(async (a) => ({ requests: await a.unsent(filter) })),
  };
}
