/**
 * Following transactions up: lookup, get, verify, resolveUnknown, search and export. The journal
 * is read and written through the storage port (this desktop's journal or a team workspace); the
 * CSV export reads its search in pages (../storage/journal-export.ts).
 */
import type { JournalTransaction, TransactionKind } from '../../../shared/api';
import { exportJournalCsv } from '../storage/journal-export';
import type { FollowUpEntry } from '../storage/port';
import type { Watcher } from '../watcher';
import { HandlerFailure, type Context, type HandlerImpls } from './context';
import { isFinal, isNotFound, readAnswer, readFailure, readFailureRecord, transactionOf } from './outcomes';

/**
 * A `local-sandbox` entry written on another desktop (a colleague's, or the same login's elsewhere)
 * lives in that desktop's own engine: this desktop's engine would answer "not found" and wrongly
 * mark it so (docs/decisions/local-sandbox-follow-ups.md).
 */
export function refuseHeldElsewhere(found: FollowUpEntry): void {
  if (!found.heldElsewhereBy) return;
  throw new HandlerFailure(
    'SANDBOX_ELSEWHERE',
    `This ${found.entry.kind} was made in the local sandbox of another desktop, by ${found.heldElsewhereBy}: it lives in that desktop's sandbox, not this one's. Follow it up from that desktop.`,
  );
}

/**
 * A profile whose keys are with the team sender: the sender alone reads the service for it and
 * records what it says (workspace migration 51; docs/decisions/sender-records-its-profiles-answers.md).
 */
function refuseSenderHeld(context: Context, profile: { id: string; name: string }, what: string): void {
  if (!context.teamProfiles.senderHolds(profile.id)) return;
  throw new HandlerFailure(
    'CONFLICT',
    `The keys of "${profile.name}" are with the team sender: it reads the service for ${what} (after each batch, every few minutes, on the service's webhooks) and what it reads shows here. This desktop does not read the service for it.`,
  );
}

/** A success answer that is not the transaction asked for, saying what is missing or wrong in it. */
function unreadable(missing: string): HandlerFailure {
  return new HandlerFailure('BAD_RESPONSE', `The service answered, but not with the transaction asked for: ${missing}.`);
}

export function followUpHandlers(
  context: Context,
  watcher: Watcher,
): HandlerImpls<
  'transactions:lookup' | 'transactions:get' | 'transactions:verify' | 'transactions:resolveUnknown' | 'transactions:search' | 'transactions:export'
> {
  const { deps } = context;
  const journal = deps.storage.journal;
  const now = () => deps.clock.now();

  function changed(entry: JournalTransaction): void {
    deps.emit('transaction:changed', { journalId: entry.id, status: entry.status, state: entry.state });
  }

  /** The entry and the profile it was made with, still pointing at the same environment. */
  async function entryAndProfile(journalId: string) {
    const found = await journal.getForFollowUp(journalId);
    if (!found) throw new HandlerFailure('NOT_FOUND', `No journal entry ${journalId}.`);
    refuseHeldElsewhere(found);
    // A colleague's entry may name a team profile added since this console last read them.
    if (context.teamProfiles.onWorkspace() && !context.teamProfiles.resolve(found.entry.profileId)) await context.teamProfiles.refresh();
    const profile = context.resolveProfile(found.entry.profileId);
    if (profile.environment !== found.entry.environment) {
      throw new HandlerFailure('CONFLICT', `The profile "${profile.name}" now points at ${profile.environment}, but this entry is from ${found.entry.environment}.`);
    }
    context.requireAllowed(profile);
    refuseSenderHeld(context, profile, `this ${found.entry.kind}`);
    return { ...found, profile };
  }

  /**
   * Whether an id not found as `kind` exists as the other kind (a support agent picked the wrong
   * toggle). Only a clear "found" counts: no key for the other kind or a failed read is a no.
   */
  async function existsAsOtherKind(profile: ReturnType<Context['activeProfile']>, id: string, by: 'transaction_id' | 'external_id', kind: TransactionKind): Promise<boolean> {
    const other: TransactionKind = kind === 'payment' ? 'payout' : 'payment';
    try {
      await context.requireSecret(profile, other);
    } catch {
      return false;
    }
    const client = context.clientFor(profile);
    const result = other === 'payment' ? await client.retrievePayment(id, { by }) : await client.retrievePayout(id, { by });
    return result.kind === 'success' && transactionOf(result.data) !== null;
  }

  /**
   * On a team workspace, the team's entry for this id (any profile, same kind and environment): a
   * payout a colleague sent (on their desktop's own sandbox, say) is the team's, never "not found"
   * because this desktop's service does not know it (docs/decisions/team-screens-read-the-journal-first.md).
   * By external id, only an entry that may be money counts (a refused attempt created nothing).
   */
  async function teamEntry(id: string, by: 'transaction_id' | 'external_id', kind: TransactionKind, environment: JournalTransaction['environment']): Promise<JournalTransaction | null> {
    if (!context.teamProfiles.onWorkspace()) return null;
    if (by === 'external_id') {
      const known = await journal.knownPayout(kind, environment, id);
      return known ? journal.getEntry(known.journalId) : null;
    }
    const held = await journal.findByTransactionId(id);
    return held.find((entry) => entry.kind === kind && entry.environment === environment) ?? null;
  }

  /**
   * On a workspace, the approval request for a payout's external id that the service cannot know
   * yet (awaiting approval, approved and not sent, or closed unsent): "not found" says so.
   */
  async function unsentRequest(id: string, by: 'transaction_id' | 'external_id', kind: TransactionKind, environment: JournalTransaction['environment']) {
    const approvals = deps.storage.approvals;
    if (!approvals || kind !== 'payout' || by !== 'external_id') return null;
    const request = (await approvals.unsent({ exact: { environment, externalId: id } }, 1))[0];
    return request ? { id: request.id, state: request.state, subject: request.subject } : null;
  }

  return {
    async 'transactions:lookup'({ id, by, kind }) {
      const profile = context.activeProfile();
      context.requireAllowed(profile);
      const known = await teamEntry(id, by, kind, profile.environment);
      if (known) return { found: true, transaction: known, source: 'team_journal' };
      refuseSenderHeld(context, profile, `its ${kind}s`);
      await context.requireSecret(profile, kind);
      const client = context.clientFor(profile);
      const result = kind === 'payment' ? await client.retrievePayment(id, { by }) : await client.retrievePayout(id, { by });
      if (isNotFound(result)) {
        const otherKind = (await existsAsOtherKind(profile, id, by, kind)) ? (kind === 'payment' ? 'payout' : 'payment') : undefined;
        const approval = await unsentRequest(id, by, kind, profile.environment);
        return { found: false, environment: profile.environment, profileName: profile.name, ...(otherKind ? { otherKind } : {}), ...(approval ? { approval } : {}) };
      }
      if (result.kind !== 'success') throw readFailure(result);
      const read = readAnswer(result.data, by === 'external_id' ? { externalId: id } : { transactionId: id });
      if (!read.ok) throw unreadable(read.missing);
      const { tx } = read;
      const entry = await journal.recordLookedUp({
        profile: { id: profile.id, name: profile.name, environment: profile.environment },
        kind,
        tx,
        httpStatus: result.httpStatus,
        at: now(),
      });
      changed(entry);
      return { found: true, transaction: entry, source: 'service' };
    },

    async 'transactions:get'({ journalId }) {
      const [transaction, timeline] = await Promise.all([journal.getEntry(journalId), journal.getTimeline(journalId)]);
      if (!transaction) throw new HandlerFailure('NOT_FOUND', `No journal entry ${journalId}.`);
      return { transaction: (await journal.withPaidLater([transaction]))[0]!, timeline };
    },

    async 'transactions:verify'({ journalId }) {
      const { entry, profile } = await entryAndProfile(journalId);
      if (entry.transactionId === null) {
        throw new HandlerFailure('CONFLICT', `This ${entry.kind} has no transaction id yet (${entry.state}): look it up by its external id instead.`);
      }
      await context.requireSecret(profile, entry.kind);
      const client = context.clientFor(profile);
      context.verifying.add(journalId);
      let result: Awaited<ReturnType<typeof client.verifyPayment>>;
      try {
        result = entry.kind === 'payment' ? await client.verifyPayment(entry.transactionId) : await client.verifyPayout(entry.transactionId);
      } finally {
        context.verifying.delete(journalId);
      }
      if (result.kind === 'success') {
        const read = readAnswer(result.data, { transactionId: entry.transactionId });
        if (!read.ok) throw unreadable(read.missing);
        const observed = await journal.recordObserved(journalId, read.tx, { type: 'verify_result', httpStatus: result.httpStatus, message: result.message ?? 'verified' }, now());
        changed(observed.entry);
        return { message: result.message ?? `Verified: ${observed.entry.status ?? 'unknown'}.`, transaction: observed.entry };
      }
      if (result.kind !== 'bad-response') changed(await journal.recordReadFailure(journalId, readFailureRecord(result), now()));
      throw readFailure(result);
    },

    async 'transactions:resolveUnknown'({ journalId }) {
      const { entry, profile, ...found } = await entryAndProfile(journalId);
      if (entry.state !== 'outcome_unknown') {
        throw new HandlerFailure('CONFLICT', `This ${entry.kind} is ${entry.state}, not outcome unknown: there is nothing to resolve.`);
      }
      if (entry.externalId === null) throw new HandlerFailure('CONFLICT', 'This entry has no external id to look it up by.');
      await context.requireSecret(profile, entry.kind);
      const client = context.clientFor(profile);
      const by = { by: 'external_id' as const };
      const result = entry.kind === 'payment' ? await client.retrievePayment(entry.externalId, by) : await client.retrievePayout(entry.externalId, by);
      if (isNotFound(result)) {
        const updated = found.resolution === 'not_found' ? entry : await journal.recordNotFound(journalId, now(), `no ${entry.kind} with external id ${entry.externalId}: it may be sent again`);
        changed(updated);
        return { exists: false, transaction: updated };
      }
      if (result.kind !== 'success') {
        // Not a definite "not found": the outcome stays unknown (no resend); the timeline keeps the failed look-up.
        changed(await journal.recordReadFailure(journalId, readFailureRecord(result), now()));
        throw readFailure(result);
      }
      // Another payout's answer (another external id) resolves nothing: the entry stays unknown.
      const read = readAnswer(result.data, { externalId: entry.externalId });
      if (!read.ok) throw unreadable(read.missing);
      const observed = await journal.recordObserved(journalId, read.tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'found by its external id' }, now());
      changed(observed.entry);
      if (!isFinal(observed.entry)) watcher.watch(observed.entry, profile);
      return { exists: true, transaction: observed.entry };
    },

    async 'transactions:search'({ query, offset, limit }) {
      return journal.search(query, offset, limit);
    },

    async 'transactions:export'({ query, language }) {
      const { csv, rows } = await exportJournalCsv(journal, query, language);
      const stamp = new Date(now()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return { filename: `paydesk-transactions-${stamp}.csv`, csv, rows };
    },
  };
}
