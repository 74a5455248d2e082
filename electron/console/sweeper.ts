/**
 * Following every open journal entry up until it is final, whoever sent it and whenever:
 * - an accepted transaction whose status is not final is read again (by transaction id; the
 *   local sandbox's in-process, others over HTTP);
 * - an entry whose outcome is unknown is looked up by its external id: found, it is recorded;
 *   not found, it becomes `not_found` (not sent: it is never sent again by this, only by a
 *   Resume or the user's Resend). Rows of a batch that is sending are the runner's; entries of
 *   a single send made in this run wait for the user's Look up (the screen asks for it).
 *
 * Entries of a team profile whose keys are with the team sender are the sender's to follow up
 * (its own console reads its profiles without who holds the keys): a desktop skips them.
 *
 * It runs at start (status changes that happened while the console was stopped reach the
 * journal and the batch), after every batch run, and every few minutes of real time after
 * that (a laptop that slept, a network that came back), in bursts with the watcher's backoff.
 * With a `FollowUpDuty` (the team senders: one follows up for the team), a burst's rounds run only
 * while this console holds the duty; without it, always.
 *
 * A read the service refused for its rate limit or maintenance (429, 503: the client has already
 * tried it again as the Retry-After allowed) rests that key: no other read with it until the wait
 * the service asked for has passed (1 s when it named none), and the burst's next round waits at
 * least that long. A round over 10,000 open payouts spends one refused read per key, not 10,000.
 */
import pLimit from 'p-limit';
import { isFinalStatus } from '../../shared/contract';
import type { ClientResult } from '../client';
import type { Context } from './handlers/context';
import { isNotFound, transactionOf } from './handlers/outcomes';
import type { JournalTransaction, TransactionKind } from '../../shared/api';
import { FIRST_OPEN_PAGE, type OpenEntry, type OpenEntryCursor } from './storage/port';
import type { FollowUpDuty } from './deps';

/** Real time between bursts once a burst has reached its time limit. */
const GAP_INTERVAL_MS = 5 * 60 * 1000;
const CONCURRENCY = 4;
/** Entries read per page of a round (a round reads every page). */
const PAGE = 2_000;
/** A key's rest after a 429 or 503 that named no Retry-After (as a batch's look-up waits). */
const REST_WITHOUT_RETRY_AFTER_MS = 1_000;

export interface Sweeper {
  /** Starts a burst of sweeps now (no-op while one runs: it sweeps again before it ends). */
  poke(): void;
  /** One sweep; resolves with how many entries are still open (tests, start-up). */
  sweepOnce(): Promise<number>;
  /**
   * Reads the service for the open entries a reference names (a webhook's transaction or external
   * id: a trigger, never the truth) and records what the service says. Entries already final, or
   * unknown to this journal, cost no read. Returns how many entries were read.
   */
  followReference(reference: FollowReference): Promise<number>;
  /** Resolves when the running burst has ended. */
  idle(): Promise<void>;
  close(): void;
}

/** What a callback names: a service transaction id, or a merchant external id (of a kind when it says). */
export interface FollowReference {
  transactionId?: string;
  externalId?: string;
  kind?: TransactionKind;
}

export interface SweeperHooks {
  /** A batch row's entry changed (its batch's counters are pushed again). */
  batchChanged(batchId: string): void;
  /** Rows of a sending batch belong to its runner. */
  isBatchRunning(batchId: string): boolean;
  /** Absent: this console follows up every round itself. */
  duty?: FollowUpDuty;
}

export function createSweeper(context: Context, hooks: SweeperHooks): Sweeper {
  const { deps } = context;
  const journal = deps.storage.journal;
  const now = () => deps.clock.now();
  /** Single sends made before this time are looked up too (from an earlier run; a headless console's, all of them). */
  const startedAt = deps.headless ? Number.MAX_SAFE_INTEGER : now();
  const limit = pLimit(CONCURRENCY);
  const pageSize = deps.followUpPage ?? PAGE;
  let burst: Promise<void> | null = null;
  let again = false;
  const timer = setInterval(() => sweeper.poke(), GAP_INTERVAL_MS);
  timer.unref?.();
  /** A key (a profile's payment or payout key) the service asked to wait: no read with it before this time. */
  const restingUntil = new Map<string, number>();
  const keyOf = (profileId: string, kind: TransactionKind) => `${profileId}\u0000${kind}`;
  const resting = (key: string) => (restingUntil.get(key) ?? 0) > now();
  /** The service refused the read for its rate limit or maintenance: the key rests as long as it asked. */
  function restIfAsked(key: string, result: ClientResult<unknown>): void {
    if (result.kind !== 'api-error' || (result.httpStatus !== 429 && result.httpStatus !== 503)) return;
    const until = now() + (result.retryAfterSeconds !== null ? result.retryAfterSeconds * 1000 : REST_WITHOUT_RETRY_AFTER_MS);
    restingUntil.set(key, Math.max(restingUntil.get(key) ?? 0, until));
  }
  /** One follow-up read with the entry's key, or null when that key rests (the read is left to a later round). */
  async function readWith<T>(profileId: string, kind: TransactionKind, read: () => Promise<ClientResult<T>>): Promise<ClientResult<T> | null> {
    const key = keyOf(profileId, kind);
    if (resting(key)) return null;
    const result = await read();
    restIfAsked(key, result);
    return result;
  }
  /** How long until the last resting key may read again (0: none rests). */
  function longestRestMs(): number {
    let longest = 0;
    for (const until of restingUntil.values()) longest = Math.max(longest, until - now());
    return longest;
  }

  /** The profile an entry was sent with, if it can still be used for it; null skips the entry. */
  async function profileFor(entry: OpenEntry) {
    // The team sender follows up the profiles whose keys it holds (docs/team-sender.md): one read per
    // payout per round for the team, not one per desktop; the desktops see its writes live.
    if (context.teamProfiles.senderHolds(entry.profileId)) return null;
    try {
      const profile = context.resolveProfile(entry.profileId);
      if (profile.environment !== entry.environment) return null;
      context.requireAllowed(profile);
      await context.requireSecret(profile, entry.kind);
      return profile;
    } catch {
      return null;
    }
  }

  /** Follows one entry up; true when it changed, null when it cannot be followed now (no usable profile). */
  async function follow(entry: OpenEntry): Promise<boolean | null> {
    const profile = await profileFor(entry);
    if (!profile || deps.signal?.aborted) return null;
    if (entry.batchId && hooks.isBatchRunning(entry.batchId) && entry.state === 'outcome_unknown') return false;
    if (entry.state === 'known') {
      if (context.verifying.has(entry.id)) return false;
      const local = profile.builtIn ? (deps.engine?.transaction(entry.transactionId!) ?? null) : null;
      if (local) return (await journal.recordObserved(entry.id, local, { type: 'status_seen', message: 'status seen while following up' }, now())).changed;
      const client = context.clientFor(profile);
      const result = await readWith(profile.id, entry.kind, () => (entry.kind === 'payment' ? client.retrievePayment(entry.transactionId!) : client.retrievePayout(entry.transactionId!)));
      if (!result) return false;
      const tx = result.kind === 'success' ? transactionOf(result.data, { transactionId: entry.transactionId }) : null;
      if (!tx || result.kind !== 'success' || deps.signal?.aborted) return false;
      return (await journal.recordObserved(entry.id, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'status seen while following up' }, now())).changed;
    }
    const client = context.clientFor(profile);
    const by = { by: 'external_id' as const };
    const result = await readWith(profile.id, entry.kind, () => (entry.kind === 'payment' ? client.retrievePayment(entry.externalId!, by) : client.retrievePayout(entry.externalId!, by)));
    if (!result || deps.signal?.aborted) return false;
    const current = await journal.getEntry(entry.id);
    if (current?.state !== 'outcome_unknown') return false; // resolved meanwhile (a Look up, a Resume)
    if (isNotFound(result)) {
      await journal.recordNotFound(entry.id, now(), `no ${entry.kind} with external id ${entry.externalId}: it was not sent`);
      return true;
    }
    // Another payout's answer (another external id) leaves the entry unknown: it is looked up again.
    const tx = result.kind === 'success' ? transactionOf(result.data, { externalId: entry.externalId }) : null;
    if (!tx || result.kind !== 'success') return false;
    await journal.recordObserved(entry.id, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'found by its external id' }, now());
    return true;
  }

  /** Follows each entry up (a few at a time), tells the screens and batches what changed; how many it followed, how many stay open. */
  async function followAll(entries: readonly OpenEntry[]): Promise<{ followed: number; open: number }> {
    const batches = new Set<string>();
    let followed = 0;
    let open = 0;
    await Promise.all(
      entries.map((entry) =>
        limit(async () => {
          let changed: boolean | null = false;
          try {
            changed = await follow(entry);
          } catch (error) {
            deps.logger?.warn('follow-up of an entry failed', { journalId: entry.id, error: error instanceof Error ? error.name : 'unknown' });
          }
          if (changed === null) return;
          followed += 1;
          const after = await journal.getEntry(entry.id);
          if (!(after !== null && isFinal(after))) open += 1;
          if (changed && after) {
            deps.emit('transaction:changed', { journalId: after.id, status: after.status, state: after.state });
            if (entry.batchId) batches.add(entry.batchId);
          }
        }),
      ),
    );
    for (const batchId of batches) hooks.batchChanged(batchId);
    return { followed, open };
  }

  /**
   * One round: every open entry, a page at a time (oldest change first, then by id), each followed
   * at most once. A page of entries this console cannot follow (another sender's profile, no keys)
   * never hides the ones after it, and a round ends only once the last page is read, not after the
   * first: 10,000 open payouts are all read in one round. An entry that changed while the round ran
   * moves past the cursor and is met again: it is not read twice (`seen`).
   */
  async function sweepOnce(): Promise<number> {
    const seen = new Set<string>();
    const round = { followed: 0, open: 0 };
    let after: OpenEntryCursor = FIRST_OPEN_PAGE;
    for (;;) {
      const page = await deps.storage.sweeper.openEntries(startedAt, pageSize, after);
      const fresh = page.filter((entry) => !seen.has(entry.id));
      for (const entry of fresh) seen.add(entry.id);
      const done = await followAll(fresh);
      round.followed += done.followed;
      round.open += done.open;
      const last = page.at(-1);
      if (page.length < pageSize || !last || deps.signal?.aborted) break;
      after = { updatedAtMs: last.updatedAtMs, id: last.id };
    }
    hooks.duty?.roundEnded?.(round);
    return round.open;
  }

  /** The journal's entries a reference names that are still open (a transaction id first: it names one transaction). */
  async function openEntriesNamed(reference: FollowReference): Promise<OpenEntry[]> {
    const named: JournalTransaction[] = [];
    if (reference.transactionId) named.push(...(await journal.findByTransactionId(reference.transactionId)));
    if (named.length === 0 && reference.externalId) {
      for (const kind of reference.kind ? [reference.kind] : (['payout', 'payment'] as const)) {
        for (const environment of ['sandbox', 'live'] as const) {
          const known = await journal.knownPayout(kind, environment, reference.externalId);
          const entry = known ? await journal.getEntry(known.journalId) : null;
          if (entry) named.push(entry);
        }
      }
    }
    return named.filter((entry) => !isFinal(entry) && (entry.state === 'known' || entry.state === 'outcome_unknown')).map(openEntryOf);
  }

  async function runBurst(): Promise<void> {
    const started = now();
    let delay = context.watch.initialDelayMs;
    for (;;) {
      again = false;
      // Another console holds the duty: its rounds follow these entries up (this one is poked when it takes the duty).
      if (hooks.duty && !(await hooks.duty.take())) return;
      const open = await sweepOnce();
      if (deps.signal?.aborted) return;
      if (open === 0 && !again) return;
      if (now() - started >= context.watch.limitMs) return;
      try {
        await deps.clock.sleep(Math.max(delay, longestRestMs()), deps.signal);
      } catch {
        return; // the console is closing
      }
      delay = Math.min(delay * 2, context.watch.maxDelayMs);
    }
  }

  const sweeper: Sweeper = {
    poke() {
      if (deps.signal?.aborted) return;
      if (burst) {
        again = true;
        return;
      }
      burst = runBurst()
        .catch((error: unknown) => deps.logger?.warn('follow-up sweep stopped', { error: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          burst = null;
        });
    },
    sweepOnce,
    async followReference(reference) {
      if (deps.signal?.aborted) return 0;
      const entries = await openEntriesNamed(reference);
      if (entries.length > 0) await followAll(entries);
      return entries.length;
    },
    async idle() {
      while (burst) await burst;
    },
    close() {
      clearInterval(timer);
    },
  };
  return sweeper;
}

/** Final: refused, not found, or known with a final status (nothing left to read). */
function isFinal(entry: JournalTransaction): boolean {
  return entry.state !== 'known' ? entry.state !== 'outcome_unknown' : entry.status !== null && isFinalStatus(entry.status);
}

function openEntryOf(entry: JournalTransaction): OpenEntry {
  return {
    id: entry.id,
    kind: entry.kind,
    state: entry.state as OpenEntry['state'],
    status: entry.status,
    transactionId: entry.transactionId,
    externalId: entry.externalId,
    profileId: entry.profileId,
    environment: entry.environment,
    batchId: entry.batch?.batchId ?? null,
    updatedAtMs: Date.parse(entry.updatedAt),
  };
}
