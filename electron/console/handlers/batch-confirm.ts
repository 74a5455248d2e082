/**
 * Bulk payouts, from draft to sending: the preview (count, totals, fees, balance), the rehearsal
 * on the local engine, the confirmation (a single-use token bound to a hash of every row) and the
 * start. Each step takes only the parts of the handler context it uses.
 */
import type { BalanceUnread, BatchConfirmation, BatchPreview, BatchSummary, RehearsalSummary } from '../../../shared/api';
import { balanceSchema } from '../../../shared/contract';
import { isRehearsing, rehearseBatch } from '../batch/rehearsal';
import type { BatchRunner } from '../batch/runner';
import { canonicalJson } from '../confirmations';
import type { Logger } from '../deps';
import { BatchStateChanged } from '../storage/batch-drafts-port';
import type { BatchPort } from '../storage/port';
import type { ApprovalsPort } from '../storage/approvals-port';
import { englishCount } from '../../../shared/money';
import type { SendAsksPort } from '../storage/send-asks-port';
import { DEFAULT_CURRENCY, HandlerFailure, type Context, type HandlerDeps } from './context';
import { refuseSandboxElsewhere, requireDraft, summaryOf, type BatchJournal } from './batch-read';
import { approvalToSend } from './approvals';
import { sha256 } from './batch-draft';

type Profile = ReturnType<Context['activeProfile']>;
/** Which profile may send, and with which keys. */
type Profiles = Pick<Context, 'activeProfile' | 'resolveProfile' | 'requireAllowed' | 'requireSecret'> & { teamProfiles: Pick<Context['teamProfiles'], 'senderHolds'> };
/** What a preview reads besides the store: the wallet (a client) and the local engine's fees. */
interface Quoting {
  clientFor: Context['clientFor'];
  engine: HandlerDeps['engine'];
  /** True for a profile whose keys are with the team sender (its balance is the sender's to read). */
  senderHolds?: (profileId: string) => boolean;
}

/** The hash a confirmation is bound to: profile, environment, and every request with its external id. */
export function batchBindingHash(profileId: string, environment: string, rows: readonly { rowNumber: number; request: unknown }[]): string {
  return sha256(canonicalJson({ profileId, environment, rows: rows.map((row) => ({ row: row.rowNumber, request: row.request })) }));
}

async function hashOf(batches: BatchPort, batchId: string, profileId: string, environment: string): Promise<string> {
  const rows = (await batches.rows(batchId)).filter((row) => row.request !== null);
  return batchBindingHash(profileId, environment, rows);
}

/** The wallet balance, or why it could not be read (the preview says so, and offers to check again). */
async function balanceOf({ clientFor }: Quoting, profile: Profile): Promise<{ balance: number; currency: string } | { unread: BalanceUnread }> {
  const result = await clientFor(profile).getBalance();
  switch (result.kind) {
    case 'success': {
      const parsed = balanceSchema.safeParse(result.data);
      return parsed.success ? parsed.data : { unread: { httpStatus: result.httpStatus, code: 'BAD_RESPONSE', message: 'the answer carried no readable balance', retryAfterSeconds: null } };
    }
    case 'api-error':
      return { unread: { httpStatus: result.httpStatus, code: result.code, message: result.message, retryAfterSeconds: result.retryAfterSeconds } };
    case 'bad-response':
      return { unread: { httpStatus: result.httpStatus, code: 'BAD_RESPONSE', message: result.message, retryAfterSeconds: null } };
    case 'transport':
      return { unread: { httpStatus: null, code: 'NETWORK', message: result.message, retryAfterSeconds: null } };
    default: {
      const never: never = result;
      throw new Error(`unhandled balance result ${JSON.stringify(never)}`);
    }
  }
}

/** What the batch costs under a profile: amounts, the fees where the local engine tells them, the wallet. */
async function quote(batches: BatchPort, quoting: Quoting, batchId: string, profile: Profile): Promise<BatchPreview> {
  const batch = await summaryOf(batches, batchId);
  const rows = (await batches.rows(batchId)).filter((row) => row.request !== null);
  const { engine } = quoting;
  const feeOf = profile.builtIn && engine?.feeFor ? engine.feeFor.bind(engine) : null;
  let totalFees: number | null = feeOf ? 0 : null;
  let totalAmount = 0;
  for (const row of rows) {
    totalAmount += row.request!.amount;
    const fee = feeOf ? feeOf('payout', profile.environment, row.request!.amount, row.request!.payment_method) : null;
    totalFees = totalFees === null || fee === null ? null : totalFees + fee;
  }
  // The team sender holds this profile's keys: it reads the wallet, this desktop signs nothing (no balance here).
  const bySender = quoting.senderHolds?.(profile.id) === true;
  const read = bySender ? null : await balanceOf(quoting, profile);
  const balance = read === null || 'unread' in read ? null : read;
  const totalDebit = totalAmount + (totalFees ?? 0);
  return {
    batchId,
    profileId: profile.id,
    profileName: profile.name,
    environment: profile.environment,
    count: rows.length,
    totalAmount,
    totalFees,
    feesKnown: totalFees !== null,
    totalDebit,
    currency: balance?.currency ?? DEFAULT_CURRENCY,
    balance: balance?.balance ?? null,
    balanceUnread: read !== null && 'unread' in read ? read.unread : null,
    overBalance: balance !== null && totalDebit > balance.balance,
    ...(bySender ? { bySender: true } : {}),
    invalid: batch.counts.invalid,
    duplicates: batch.counts.duplicates,
  };
}

/** `batches:preview`: a draft under the active profile, a started batch under its own. */
export async function previewBatch(batches: BatchPort, profiles: Profiles, quoting: Quoting, input: { batchId: string }): Promise<BatchPreview> {
  const batch = await summaryOf(batches, input.batchId);
  const profile = batch.state === 'draft' ? profiles.activeProfile() : profiles.resolveProfile(batch.profileId);
  profiles.requireAllowed(profile);
  return quote(batches, quoting, input.batchId, profile);
}

/** `batches:rehearse`: the valid rows on the local engine (../batch/rehearsal.ts). */
export async function rehearse(context: Context, input: { batchId: string }): Promise<RehearsalSummary> {
  const batch = await summaryOf(context.deps.storage.batches, input.batchId);
  if (batch.counts.valid === 0) throw new HandlerFailure('CONFLICT', 'This batch has no valid row to rehearse.');
  return rehearseBatch(context, input.batchId);
}

function overBalance(preview: BatchPreview): HandlerFailure {
  return new HandlerFailure(
    'INSUFFICIENT_FUNDS',
    `This batch takes ${preview.totalDebit} ${preview.currency}${preview.feesKnown ? ' with fees' : ' before fees'} and the wallet holds ${preview.balance} ${preview.currency}: nothing was sent.`,
  );
}

/** The same rows already sent in an earlier batch must be accepted explicitly. */
async function requireNotSentBefore(batches: BatchPort, batch: BatchSummary, acceptDuplicateFile: boolean | undefined): Promise<void> {
  const sentBefore = (await batches.earlierImports(batch.fileHash, batch.id)).filter((earlier) => earlier.state !== 'draft');
  if (acceptDuplicateFile === true) return;
  if (sentBefore.length === 0) {
    // Rows whose external id was sent earlier (another file, a single payout) are named too. Sent
    // anyway, each is refused by the service and adopts the existing payout: never paid twice.
    const sent = await batches.sentEarlier(batch.id);
    if (sent.count === 0) return;
    throw new HandlerFailure('CONFIRMATION_REQUIRED', `${sent.count} row(s) of this batch were already sent under the same external id: drop them, or confirm that they are only to be looked up.`, {
      fields: { acceptDuplicateFile: [`${sent.count} row(s) were already sent`] },
    });
  }
  const first = sentBefore[0]!;
  throw new HandlerFailure('CONFIRMATION_REQUIRED', `The same rows were already sent in batch ${first.batchId} (${first.fileName}, ${first.createdAt}): confirm that this is not a mistake.`, {
    fields: { acceptDuplicateFile: [`the same rows were sent in batch ${first.batchId}`] },
  });
}

/** `batches:prepare`: every check before money moves, then a single-use token bound to the batch's hash. */
export async function prepareBatch(
  { batches, now }: BatchJournal,
  profiles: Profiles,
  quoting: Quoting,
  confirmations: Context['confirmations'],
  input: { batchId: string; typedTotal?: number | undefined; acceptDuplicateFile?: boolean | undefined },
): Promise<BatchConfirmation> {
  const { batchId, typedTotal } = input;
  const batch = await requireDraft(batches, batchId);
  if (batch.counts.invalid > 0) {
    throw new HandlerFailure('CONFLICT', `${batch.counts.invalid} row(s) have errors: fix or drop them before confirming.`);
  }
  if (batch.counts.valid === 0) throw new HandlerFailure('CONFLICT', 'This batch has no row to send.');
  const profile = profiles.activeProfile();
  // Confirmed onto another profile it becomes this desktop's batch; kept on the Local sandbox, it stays its desktop's.
  if (profile.id === batch.profileId) refuseSandboxElsewhere(batch);
  profiles.requireAllowed(profile);
  // Keys with the team sender: this desktop has none and never reads one (docs/team-sender.md).
  if (!profiles.teamProfiles.senderHolds(profile.id)) await profiles.requireSecret(profile, 'payout');
  await requireNotSentBefore(batches, batch, input.acceptDuplicateFile);
  const preview = await quote(batches, quoting, batchId, profile);
  if (preview.overBalance) throw overBalance(preview);
  if (profile.environment === 'live' && typedTotal !== preview.totalDebit) {
    throw new HandlerFailure('CONFIRMATION_REQUIRED', 'This is a live batch: type its total again to confirm it.', {
      fields: { typedTotal: [typedTotal === undefined ? 'is required for a live batch' : 'does not match the total'] },
    });
  }
  // The batch is bound to the profile it is confirmed under.
  await batches.setState(batchId, 'draft', now(), { profile: { id: profile.id, name: profile.name, environment: profile.environment } });
  const batchHash = await hashOf(batches, batchId, profile.id, profile.environment);
  const { token, expiresAt } = confirmations.issue(`batch:${batchId}:${batchHash}`);
  return { ...preview, profileId: profile.id, batchHash, confirmationToken: token, expiresAt: new Date(expiresAt).toISOString() };
}

/** `batches:start`: the token used up first (a double submit finds it gone), then the run begins. */
export async function startBatch(
  { batches, now, logger }: BatchJournal & { logger?: Logger | undefined },
  profiles: Profiles,
  confirmations: Context['confirmations'],
  runner: Pick<BatchRunner, 'run'>,
  input: { batchId: string; confirmationToken: string; concurrency?: number | undefined },
  asks?: SendAsksPort,
): Promise<BatchSummary> {
  const { batchId, concurrency } = input;
  const found = await summaryOf(batches, batchId);
  // Before the token is used up, and for the approval card's send too (it starts here).
  refuseSandboxElsewhere(found);
  // Before the token is used up: Send waits for a rehearsal still running, then works with the same token.
  if (isRehearsing(batches, batchId)) throw new HandlerFailure('CONFLICT', 'This batch is being rehearsed: wait for the rehearsal to finish, then send.');
  const batchHash = await hashOf(batches, batchId, found.profileId, found.environment);
  // Used up before anything else (nothing awaited between the check and the use): a double submit finds it gone.
  const consumed = confirmations.consume(input.confirmationToken, `batch:${batchId}:${batchHash}`);
  if (!consumed.ok) {
    const why = { unknown: 'the confirmation is missing or was already used', expired: 'the confirmation has expired', mismatch: 'the batch, its rows, profile or environment changed since it was confirmed' }[consumed.reason];
    throw new HandlerFailure('CONFIRMATION_REQUIRED', `Confirm the batch again: ${why}. Nothing was sent.`);
  }
  const batch = await requireDraft(batches, batchId);
  const profile = profiles.resolveProfile(batch.profileId);
  profiles.requireAllowed(profile);
  const bySender = profiles.teamProfiles.senderHolds(profile.id);
  if (bySender && !asks) throw new HandlerFailure('CONFLICT', `"${profile.name}" is sent by the team sender, which only a team workspace has.`);
  if (!bySender) await profiles.requireSecret(profile, 'payout');
  try {
    // Only from draft, in the store's transaction: of two starts at once (two tokens, two desktops), one sends.
    await batches.setState(batchId, 'sending', now(), { started: true, concurrency: concurrency ?? batch.concurrency, onlyFrom: 'draft' });
  } catch (error) {
    if (!(error instanceof BatchStateChanged)) throw error;
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${error.state}: only a draft can be changed.`, { reason: { key: 'draftOnly', params: { state: error.state } } });
  }
  if (bySender) {
    await askSenderToSend(batches, asks!, { id: batchId, profileId: profile.id }, now, logger);
    return summaryOf(batches, batchId);
  }
  logger?.info('batch started', { batchId, rows: batch.counts.valid, environment: batch.environment });
  runner.run(batchId);
  return summaryOf(batches, batchId);
}

/**
 * `approvals:sendBatch`: an approved batch sent from its approval card with one action (issue 37
 * item 1), nothing retyped. The batch the approval bound (its profile, environment and rows) goes
 * through the usual checks and start: the confirmation token is issued here, in main, for the
 * batch's hash as it is now, and used up at once by `startBatch`. The approval is the confirmation
 * (a live batch's typed total is not asked again: the approver checked exactly these rows); the
 * workspace's gate still decides (the caller asks it first, the claims ask it again at the write).
 */
export async function sendApprovedBatch(
  journal: BatchJournal & { logger?: Logger | undefined },
  profiles: Profiles,
  quoting: Quoting,
  confirmations: Context['confirmations'],
  runner: Pick<BatchRunner, 'run'>,
  approvals: Pick<ApprovalsPort, 'get'> | undefined,
  input: { id: number; acceptDuplicateFile?: boolean | undefined },
): Promise<BatchSummary> {
  const { id } = input;
  const approval = await approvalToSend(approvals, id);
  if (approval.subject !== 'batch' || approval.batchId === null) {
    throw new HandlerFailure('CONFLICT', `Request ${id} is a single payout, not a batch: send it with its own Send.`);
  }
  const batchId = approval.batchId;
  if (approval.state !== 'approved') throw new HandlerFailure('APPROVAL_NOT_WAITING', `Request ${id} is ${approval.state}, not approved: nothing was sent.`);
  if (approval.sent) throw new HandlerFailure('ALREADY_SENT', `Request ${id} has already been sent: batch ${batchId} is over. Nothing was sent again.`);
  const { batches } = journal;
  const batch = await summaryOf(batches, batchId);
  if (batch.state !== 'draft') {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is ${batch.state}: it was started already, follow it from its page. Nothing was sent.`, { reason: { key: 'draftOnly', params: { state: batch.state } } });
  }
  if ((approval.profileId !== null && approval.profileId !== batch.profileId) || approval.environment !== batch.environment) {
    throw new HandlerFailure('CONFLICT', `Batch ${batchId} is no longer the batch request ${id} approved (its profile or environment changed): ask for approval again. Nothing was sent.`);
  }
  if (batch.counts.invalid > 0) throw new HandlerFailure('CONFLICT', `${englishCount(batch.counts.invalid, 'row has', 'rows have')} errors: fix or drop them, then ask again.`);
  if (batch.counts.valid === 0) throw new HandlerFailure('CONFLICT', 'This batch has no row to send.');
  const profile = profiles.resolveProfile(batch.profileId);
  if (profile.environment !== batch.environment) {
    throw new HandlerFailure('CONFLICT', `The profile "${profile.name}" now points at ${profile.environment}, but batch ${batchId} was approved for ${batch.environment}. Nothing was sent.`);
  }
  profiles.requireAllowed(profile);
  await profiles.requireSecret(profile, 'payout');
  await requireNotSentBefore(batches, batch, input.acceptDuplicateFile);
  const preview = await quote(batches, quoting, batchId, profile);
  if (preview.overBalance) throw overBalance(preview);
  // The usual start, with a token issued for the batch's hash as it is now (its bound profile and environment).
  const batchHash = await hashOf(batches, batchId, batch.profileId, batch.environment);
  const { token } = confirmations.issue(`batch:${batchId}:${batchHash}`);
  return startBatch(journal, profiles, confirmations, runner, { batchId, confirmationToken: token });
}

/**
 * Start or Resume of a batch whose profile's keys are with the team sender: this desktop writes a
 * batch ask and sends nothing; the sender's runner sends it and the screens follow it through the
 * workspace's change events, as another desktop's run. An ask that could not be written leaves the
 * batch interrupted, saying so (Resume asks again): never a batch marked sending that nobody sends.
 */
export async function askSenderToSend(
  batches: BatchPort,
  asks: SendAsksPort,
  batch: { id: string; profileId: string },
  now: () => number,
  logger?: Logger,
): Promise<void> {
  try {
    const ask = await asks.ask({ kind: 'batch', profileId: batch.profileId, batchId: batch.id });
    logger?.info('batch asked of the team sender', { batchId: batch.id, askId: ask.id });
  } catch (error) {
    const state = (await batches.summary(batch.id))?.state;
    if (state === 'sending') {
      await batches.setState(batch.id, 'interrupted', now(), { reason: 'The ask to the team sender could not be written: Resume asks it again.' }).catch(() => undefined);
    }
    throw error;
  }
}
