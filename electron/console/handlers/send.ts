/**
 * Sending money: payments:create, payouts:prepare/initiate, transactions:resend.
 *
 * Every initiate carries an external id (a fresh UUID when the request has none) and is written to
 * the journal as `pending` before it is sent. A POST that may have reached the server and got no
 * answer becomes `outcome_unknown`, and only an explicit resolveUnknown that finds nothing allows
 * a resend, with the same request and external id.
 */
import { randomUUID } from 'node:crypto';
import { balanceSchema, type Environment, type TransactionRequest } from '../../../shared/contract';
import type { ApprovalNeed, JournalTransaction, TransactionKind } from '../../../shared/api';
import { bindingHash } from '../confirmations';
import { classifyInitiate } from '../outcome';
import type { StoredProfile } from '../settings';
import type { Watcher } from '../watcher';
import { DEFAULT_CURRENCY, HandlerFailure, type Context, type HandlerImpls } from './context';
import { isFinal, isNotFound, transactionOf } from './outcomes';
import { approvalToSend, gated, requirePayoutSendable } from './approvals';
import { refuseHeldElsewhere } from './follow-up';
import { ExternalIdKnown } from '../journal/payout-identity';
import { requireSends } from './send-rights';
import { payoutBySender, resendBySender } from './team-sender-send';

type ResolvedProfile = StoredProfile & { builtIn: boolean };

export function sendHandlers(context: Context, watcher: Watcher): HandlerImpls<'payments:create' | 'payouts:prepare' | 'payouts:initiate' | 'transactions:resend' | 'approvals:send'> {
  const { deps } = context;
  const journal = deps.storage.journal;
  const now = () => deps.clock.now();

  /** The entry as the journal holds it after a write (the port's writes return nothing to read). */
  async function entryAfter(id: string): Promise<JournalTransaction> {
    const entry = await journal.getEntry(id);
    if (!entry) throw new Error(`journal entry ${id} does not exist`);
    return entry;
  }

  function changed(entry: JournalTransaction): void {
    deps.emit('transaction:changed', { journalId: entry.id, status: entry.status, state: entry.state });
  }

  /** Sends a journaled request and completes its entry with whatever happened. */
  async function send(profile: ResolvedProfile, kind: TransactionKind, request: TransactionRequest, pending: JournalTransaction): Promise<JournalTransaction> {
    changed(pending);
    const client = context.clientFor(profile);
    deps.logger?.info(`${kind} request sent`, { journalId: pending.id, profileId: profile.id, environment: profile.environment, externalId: request.external_id });
    const result = kind === 'payment' ? await client.createPayment(request) : await client.initiatePayout(request);
    deps.logger?.info(`${kind} request answered`, {
      journalId: pending.id,
      result: result.kind,
      ...(result.kind === 'api-error' ? { code: result.code, httpStatus: result.httpStatus } : {}),
      ...(result.kind === 'transport' ? { outcome: result.outcome, cause: result.cause } : {}),
    });
    const outcome = classifyInitiate(result, request);
    await journal.writeInitiateOutcome(pending.id, outcome, now());
    const entry = await entryAfter(pending.id);
    changed(entry);
    switch (outcome.kind) {
      case 'accepted':
        if (!isFinal(entry)) watcher.watch(entry, profile);
        return entry;
      case 'exists':
        return adopt(profile, kind, request, entry);
      case 'refused':
        throw new HandlerFailure(outcome.error.code, outcome.error.message, { ...(outcome.fields ? { fields: outcome.fields } : {}), journalId: entry.id });
      case 'retry-later':
        throw new HandlerFailure(outcome.error.code, `${outcome.error.message} Nothing was created; send it again${outcome.retryAfterSeconds ? ` in ${outcome.retryAfterSeconds} s` : ' in a moment'}.`, { journalId: entry.id });
      case 'not-sent':
        throw new HandlerFailure('NOT_SENT', `The ${kind} was not sent (${outcome.message}); nothing was created.`, { journalId: entry.id });
      case 'may-exist':
        throw new HandlerFailure(
          'OUTCOME_UNKNOWN',
          outcome.cause === 'server-error'
            ? `The service failed (${outcome.error!.code}: ${outcome.error!.message}); the ${kind} may or may not exist: look it up by its external id.`
            : outcome.cause === 'unreadable'
              ? `The service answered something unreadable (${outcome.message}); the ${kind} may or may not exist: look it up by its external id.`
              : `No answer came (${outcome.message}): the ${kind} may or may not exist. Look it up by its external id before sending again.`,
          { journalId: entry.id },
        );
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The service already has this external id: the entry (outcome unknown, marked already sent)
   * is looked up by it and adopts the existing transaction: the answer is that transaction, not
   * a failure. A look-up that cannot tell leaves the entry unknown (Look up, or the sweeper).
   */
  async function adopt(profile: ResolvedProfile, kind: TransactionKind, request: TransactionRequest, entry: JournalTransaction): Promise<JournalTransaction> {
    const client = context.clientFor(profile);
    const by = { by: 'external_id' as const };
    const result = kind === 'payment' ? await client.retrievePayment(request.external_id!, by) : await client.retrievePayout(request.external_id!, by);
    const tx = result.kind === 'success' ? transactionOf(result.data, { externalId: request.external_id }) : null;
    if (tx && result.kind === 'success') {
      const adopted = (await journal.recordObserved(entry.id, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'already sent earlier: found by its external id' }, now())).entry;
      changed(adopted);
      if (!isFinal(adopted)) watcher.watch(adopted, profile);
      return adopted;
    }
    if (isNotFound(result)) {
      const notFound = await journal.recordNotFound(entry.id, now(), `the service said external id ${request.external_id} already exists, yet no ${kind} was found under it`);
      changed(notFound);
      throw new HandlerFailure('CONFLICT', `The service refused external id ${request.external_id} as already used, but no ${kind} is found under it. Look it up again before sending anything.`, { journalId: entry.id });
    }
    throw new HandlerFailure(
      'OUTCOME_UNKNOWN',
      `The service says a ${kind} with external id ${request.external_id} already exists, and it could not be read now: look it up by its external id. Nothing will be sent under a new id.`,
      { journalId: entry.id },
    );
  }

  async function initiate(kind: TransactionKind, profile: ResolvedProfile, request: TransactionRequest): Promise<JournalTransaction> {
    const withExternalId: TransactionRequest = { ...request, external_id: request.external_id ?? randomUUID() };
    // The journal is the only guard against paying twice: an external id it holds is never POSTed again.
    await refuseKnown(kind, profile.environment, withExternalId.external_id!);
    // A team workspace's policy may hold a payout for approval: told before anything is written.
    if (kind === 'payout') await requirePayoutSendable(context, profile, withExternalId);
    // Committed before the POST: the write resolves only once its transaction has committed.
    // The workspace's gate refuses the entry itself if the policy changed in between; the journal
    // refuses it (ExternalIdKnown) if the same external id was written since the check above.
    const pendingId = await alreadySent(() => gated(() => journal.writeRequest({
      profile: { id: profile.id, name: profile.name, environment: profile.environment },
      kind,
      request: withExternalId,
      currency: DEFAULT_CURRENCY,
      at: now(),
    })));
    return send(profile, kind, withExternalId, await entryAfter(pendingId));
  }

  /** ALREADY_SENT, naming the payout the external id already is (the screen opens it). */
  function alreadySentFailure(refusal: ExternalIdKnown): HandlerFailure {
    return new HandlerFailure('ALREADY_SENT', refusal.message, { journalId: refusal.known.journalId });
  }

  async function refuseKnown(kind: TransactionKind, environment: Environment, externalId: string): Promise<void> {
    const known = await journal.knownPayout(kind, environment, externalId);
    if (known) throw alreadySentFailure(new ExternalIdKnown(known));
  }

  async function alreadySent<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof ExternalIdKnown) throw alreadySentFailure(error);
      throw error;
    }
  }

  /**
   * What the workspace's policy needs before this payout may go, told in the confirmation (issue 37
   * item 1: "needs approval" is a state of the payout, not an error after Send). Advisory, like the
   * known-id check: the entry's gate decides at the write; a workspace that cannot be asked says nothing here.
   */
  async function approvalNeeded(profile: ResolvedProfile, request: TransactionRequest): Promise<ApprovalNeed | null> {
    try {
      const refusal = await deps.storage.approvals?.payoutGate({ id: profile.id, environment: profile.environment }, DEFAULT_CURRENCY, request);
      return refusal?.need ? { ...refusal.need, currency: refusal.need.currency ?? DEFAULT_CURRENCY } : null;
    } catch {
      return null;
    }
  }

  async function balanceFor(profile: ResolvedProfile): Promise<{ balance: number; currency: string } | null> {
    const result = await context.clientFor(profile).getBalance();
    if (result.kind !== 'success') return null;
    const parsed = balanceSchema.safeParse(result.data);
    return parsed.success ? { balance: parsed.data.balance, currency: parsed.data.currency } : null;
  }

  return {
    async 'payments:create'({ request }) {
      await requireSends(deps.storage, 'this payment');
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      await context.requireSecret(profile, 'payment');
      return initiate('payment', profile, request);
    },

    async 'payouts:prepare'({ request, typedAmount }) {
      await requireSends(deps.storage, 'this payout');
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      if (profile.environment === 'live' && typedAmount !== request.amount) {
        throw new HandlerFailure('CONFIRMATION_REQUIRED', 'This is a live payout: type the amount again to confirm it.', {
          fields: { typedAmount: [typedAmount === undefined ? 'is required for a live payout' : 'does not match the amount'] },
        });
      }
      // A profile whose keys are with the team sender: this desktop has none and never reads one (docs/team-sender.md).
      const bySender = context.teamProfiles.senderHolds(profile.id);
      if (!bySender) await context.requireSecret(profile, 'payout');
      // Said before the confirmation: this external id is already a payout (the form opens it instead).
      // Advisory here (the confirmation writes nothing, and a workspace away must not stop it): the
      // write before the POST is the guard that decides.
      if (request.external_id) {
        await refuseKnown('payout', profile.environment, request.external_id).catch((error: unknown) => {
          if (error instanceof HandlerFailure && error.code === 'ALREADY_SENT') throw error;
        });
      }
      const fee = profile.builtIn ? (deps.engine?.feeFor('payout', profile.environment, request.amount, request.payment_method) ?? null) : null;
      const balance = bySender ? null : await balanceFor(profile);
      const approval = await approvalNeeded(profile, request);
      const { token, expiresAt } = context.confirmations.issue(bindingHash(profile.id, profile.environment, request));
      return {
        profileId: profile.id,
        profileName: profile.name,
        environment: profile.environment,
        recipient: { phoneNumber: request.phone_number, name: `${request.customer.first_name} ${request.customer.last_name}` },
        amount: request.amount,
        currency: balance?.currency ?? DEFAULT_CURRENCY,
        fee,
        total: fee === null ? null : request.amount + fee,
        balance: balance?.balance ?? null,
        confirmationToken: token,
        expiresAt: new Date(expiresAt).toISOString(),
        approval,
        ...(bySender ? { bySender: true as const } : {}),
      };
    },

    /**
     * An approved payout sent from its card (issue 37 item 1): the request the approval bound, with
     * the profile it names and its external id, nothing retyped. The approval is the confirmation
     * (docs/decisions/approval-binds-and-is-spent.md); the journal's guard (an external id it
     * holds is never POSTed again) and the workspace's gate (one approval, one send) still decide.
     */
    async 'approvals:send'({ id }) {
      await requireSends(deps.storage, 'this payout');
      const approval = await approvalToSend(deps.storage.approvals, id);
      if (approval.subject !== 'payout' || approval.request === null || approval.profileId === null) {
        throw new HandlerFailure('CONFLICT', `Request ${id} is not a single payout this console can send from its card: send a batch from its own page.`);
      }
      if (approval.state !== 'approved') {
        throw new HandlerFailure('APPROVAL_NOT_WAITING', `Request ${id} is ${approval.state}, not approved: nothing was sent.`);
      }
      if (approval.sent || approval.spentByEntry !== null) {
        const known = approval.externalId ? await journal.knownPayout('payout', approval.environment, approval.externalId) : null;
        throw new HandlerFailure('ALREADY_SENT', `Request ${id} has already been sent: an approval pays once. Nothing was sent again.`, known ? { journalId: known.journalId } : {});
      }
      const profile = context.resolveProfile(approval.profileId);
      if (profile.environment !== approval.environment) {
        throw new HandlerFailure('CONFLICT', `The profile "${profile.name}" now points at ${profile.environment}, but request ${id} was approved for ${approval.environment}. Nothing was sent.`);
      }
      context.requireAllowed(profile);
      await context.requireSecret(profile, 'payout');
      return initiate('payout', profile, approval.request);
    },

    async 'payouts:initiate'({ request, confirmationToken }) {
      await requireSends(deps.storage, 'this payout');
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      // Checked (and used up) before anything else, synchronously: a double submit finds it gone.
      const consumed = context.confirmations.consume(confirmationToken, bindingHash(profile.id, profile.environment, request));
      if (!consumed.ok) {
        const why = {
          unknown: 'the confirmation is missing or was already used',
          expired: 'the confirmation has expired',
          mismatch: 'the confirmation was for a different payout, profile or environment',
        }[consumed.reason];
        throw new HandlerFailure('CONFIRMATION_REQUIRED', `Confirm the payout again: ${why}. Nothing was sent.`);
      }
      if (context.teamProfiles.senderHolds(profile.id)) {
        // The payout's identity is named here, before the ask: the sender's journal guard keys on it.
        const named = request.external_id ? request : { ...request, external_id: randomUUID() };
        await refuseKnown('payout', profile.environment, named.external_id!);
        return payoutBySender({ asks: deps.storage.sendAsks, changes: deps.storage.changes }, profile, named, entryAfter);
      }
      await context.requireSecret(profile, 'payout');
      return initiate('payout', profile, request);
    },

    async 'transactions:resend'({ journalId }) {
      await requireSends(deps.storage, 'sending it again');
      const found = await journal.getForFollowUp(journalId);
      if (!found) throw new HandlerFailure('NOT_FOUND', `No journal entry ${journalId}.`);
      refuseHeldElsewhere(found);
      const { entry, request, resolution } = found;
      if (entry.state !== 'outcome_unknown' || resolution !== 'not_found' || !request) {
        throw new HandlerFailure(
          'CONFLICT',
          entry.state !== 'outcome_unknown'
            ? `This ${entry.kind} is not in the outcome-unknown state (it is ${entry.state}): it cannot be sent again.`
            : `Look this ${entry.kind} up by its external id first; it can be sent again only when the service says it does not exist.`,
        );
      }
      if (entry.batch) {
        // Its batch sends it again (Resume looks its unknown rows up, then sends what was not found)
        // under the row's claim, so that no other desktop sends it at the same time; a team
        // workspace writes a batch row's entry under its writer's claim only (migration 44).
        const { batchId, rowNumber } = entry.batch;
        throw new HandlerFailure('SEND_FROM_BATCH', `This payout is row ${rowNumber} of batch ${batchId}: it is sent again from its batch (Resume it), which claims the row first. Nothing was sent.`, { journalId });
      }
      const profile = context.resolveProfile(entry.profileId);
      if (profile.environment !== entry.environment) {
        throw new HandlerFailure('CONFLICT', `The profile "${profile.name}" now points at ${profile.environment}, but this ${entry.kind} was for ${entry.environment}.`);
      }
      context.requireAllowed(profile);
      // Keys with the team sender: it sends it again through this same path, under the journal's rules (docs/team-sender.md).
      if (entry.kind === 'payout' && context.teamProfiles.senderHolds(profile.id)) return resendBySender({ asks: deps.storage.sendAsks, changes: deps.storage.changes }, profile, journalId, entryAfter);
      await context.requireSecret(profile, entry.kind);
      // The journal's state table refuses the move unless the entry was looked up and not found.
      if (entry.kind === 'payout' && !entry.batch) await requirePayoutSendable(context, { id: entry.profileId, environment: entry.environment }, request, journalId);
      await alreadySent(() => gated(() => journal.writeResend(journalId, now())));
      return send(profile, entry.kind, request, await entryAfter(journalId));
    },
  };
}
