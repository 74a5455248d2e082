/**
 * Sending a batch, step by step, each step a function that takes only what it touches:
 * - prepare (`usableProfile`): the batch's profile may still send (edited, key removed?);
 * - follow up (./look-up.ts): each row whose outcome is unknown looked up by its external id first;
 * - send a row (./send-row.ts): its journal entry committed `pending` BEFORE its POST, the answer
 *   recorded; on SQLite several rows' entries and answers share one transaction (../journal/group-commit.ts);
 * - wait for the rate limit (./run.ts): the service's 429/503 Retry-After honoured by every worker;
 * - finish (`endOf`, `finish`): the state the run ends in, written through BATCH_STATE_TABLE.
 * Everything is read and written through the storage port (../storage/port.ts), never the SQLite
 * functions: `concurrency` workers take the rows not sent in row order, claimed a few at a time
 * under this console's lease (./claims.ts). A row is never sent while its outcome is unknown, nor
 * while another sender may hold it.
 *
 * Pause and Cancel are written by the handlers before they answer (batch/store setState, checked
 * against BATCH_STATE_TABLE); the runner only notices them, stops taking rows and cuts its waits
 * short. A batch is `done` only when no row is left not sent, in flight or unknown.
 *
 * On a team workspace several desktops may send one batch: a run waits for the rows another
 * desktop holds, expires a stopped desktop's leases (its rows in flight looked up first), reads a
 * Pause or Cancel written elsewhere, and whoever finds every row final writes `done`
 * (docs/decisions/several-desktops-one-batch.md).
 */
import { randomUUID } from 'node:crypto';
import type { BatchProgress, BatchState, ServiceWait } from '../../../shared/api';
import type { Context, HandlerDeps } from '../handlers/context';
import type { BatchStateExtra, StoragePort } from '../storage/port';
import { CLAIM_ROWS, CONSOLE_HOLDER, LEASE_MS, RENEWALS_PER_LEASE, rowClaims, type ClaimOptions, type RowClaims } from './claims';
import { lookUpUnknown } from './look-up';
import { progressEmitter, serviceWait } from './progress';
import { newRun, stopped, type Run } from './run';
import { sendRow, type RowSending } from './send-row';
import { approvalFailure } from '../handlers/approvals';

/** Rounds of look-up-then-send per run, for rows whose outcome stays unknown after a 5xx. */
const MAX_ROUNDS = 3;

type Profile = ReturnType<Context['resolveProfile']>;
type End = { state: BatchState; extra: BatchStateExtra } | null;

export interface BatchRunner {
  /** Starts sending (or resuming) a batch in the background; no-op when it already runs. */
  run(batchId: string): void;
  /**
   * Tells a running batch that a Pause or Cancel was written: it stops taking rows and ends once
   * the rows in flight are answered. False when it is not running.
   */
  stop(batchId: string, why: 'pause' | 'cancel'): boolean;
  isRunning(batchId: string): boolean;
  /** Resolves when the batch's run has ended (tests, shutdown). */
  settled(batchId: string): Promise<void>;
  idle(): Promise<void>;
  emitProgress(batchId: string, mode: BatchProgress['mode'], extra?: Partial<BatchProgress>): Promise<void>;
  /** The service's wait a running batch sits out now (a reopened batch shows it without waiting for a push). */
  currentWait(batchId: string): ServiceWait | null;
  /**
   * Once the team workspace is found again (Try again): runs again the batches whose run stopped
   * because its connection was lost, those still `sending` in the workspace (a Pause or Cancel
   * written meanwhile stands). Returns their ids.
   */
  resumeLost(): Promise<string[]>;
}

export interface RunnerHooks {
  /** A run ended: its accepted rows are followed up until final (the sweeper). */
  afterRun(batchId: string): void;
}

/**
 * What the runner uses of the handlers' context: the storage port for everything it reads and
 * writes (the journal connection only for the progress pushes' counts, ./progress.ts).
 */
export type RunnerContext = Pick<Context, 'resolveProfile' | 'requireAllowed' | 'requireSecret' | 'clientFor'> & {
  deps: Pick<HandlerDeps, 'journal' | 'clock' | 'emit' | 'logger' | 'signal' | 'batchClaims'> & { storage: StoragePort };
};

/**
 * How a runner claims rows: its holder (this console), the claims' size and lease, and how often
 * a run on a shared store reads its batch's state (tests shorten them; HandlerDeps.batchClaims).
 */
export type RunnerClaims = Partial<ClaimOptions> & { watchMs?: number };

/** How often a run on a team workspace reads its batch's state: a Pause or Cancel from another desktop. */
export const STATE_WATCH_MS = 1_000;

/** Prepare: whether the batch's profile may still send (it may have been edited or its key removed). */
export async function usableProfile(
  context: Pick<Context, 'resolveProfile' | 'requireAllowed' | 'requireSecret'>,
  profileId: string,
  environment: string,
): Promise<{ profile: Profile } | { reason: string }> {
  try {
    const profile = context.resolveProfile(profileId);
    if (profile.environment !== environment) {
      throw new Error(`the profile "${profile.name}" now points at ${profile.environment}, but this batch was confirmed for ${environment}`);
    }
    context.requireAllowed(profile);
    await context.requireSecret(profile, 'payout');
    return { profile };
  } catch (error) {
    return { reason: `Cannot send: ${error instanceof Error ? error.message : 'the profile is not usable'}.` };
  }
}

/**
 * Sends the rows not sent with `concurrency` workers in row order, as `claims` hands them out;
 * returns once every answer is committed and every claim released. Throws the first journal
 * write that failed.
 */
export async function sendRows(run: Run, claims: RowClaims, concurrency: number, sending: RowSending): Promise<void> {
  const worker = async (): Promise<void> => {
    while (!stopped(run)) {
      const claimed = await claims.next();
      if (!claimed || stopped(run)) {
        if (claimed) await claims.done(claimed);
        return;
      }
      try {
        await sendRow(run, claimed.row, sending, () => claims.keep(claimed));
      } finally {
        await claims.done(claimed);
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, concurrency) }, () =>
    worker().catch((error: unknown) => {
      // A write before a POST failed: no worker takes another row; the claims are released only
      // once every row in flight has its answer.
      run.abort.abort();
      throw error;
    }),
  );
  const ended = await Promise.allSettled(workers);
  while (sending.answers.size > 0) await Promise.all([...sending.answers]);
  await claims.releaseAll();
  const failed = ended.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  if (run.writeError !== undefined) throw run.writeError;
}

/**
 * Finish: the state a run ends in; a Pause or Cancel the user wrote stands, and a batch another
 * desktop has ended (done) or taken back (sending again after this run's Pause) is left as it is.
 */
export async function endOf(storage: Pick<StoragePort, 'batches'>, run: Run, closing: AbortSignal | undefined): Promise<End> {
  if (closing?.aborted) return null; // the console is closing: the next start marks it interrupted
  const summary = await storage.batches.summary(run.batchId);
  if (!summary) return null;
  const { counts } = summary;
  // Ended by another desktop (done), or marked interrupted by it (its own fault, or a console
  // starting while no run of it showed life): left as written; a Resume on any desktop sends again.
  if (summary.state === 'done' || summary.state === 'interrupted') return null;
  if (summary.state === 'cancelled') {
    return { state: 'cancelled', extra: { reason: `Cancelled: ${counts.notSent} row(s) were not sent${counts.unknown > 0 ? `; ${counts.unknown} with an unknown outcome are being looked up` : ''}.`, finished: true } };
  }
  if (summary.state === 'paused') return { state: 'paused', extra: { reason: run.stop === 'interrupt' ? run.reason : null } };
  if ((run.stop === 'pause' || run.stop === 'cancel') && summary.state === 'sending') return null; // resumed meanwhile, elsewhere
  if (run.stop === 'interrupt') return { state: 'interrupted', extra: { reason: run.reason } };
  if (counts.unknown > 0) {
    return { state: 'interrupted', extra: { reason: `${counts.unknown} row(s) have an unknown outcome after ${MAX_ROUNDS} look-ups: Resume looks them up again.` } };
  }
  if (counts.notSent + counts.pending > 0) {
    return { state: 'interrupted', extra: { reason: `${counts.notSent + counts.pending} row(s) were not sent: Resume sends them.` } };
  }
  return { state: 'done', extra: { reason: null, finished: true } };
}

export function createBatchRunner(context: RunnerContext, hooks: RunnerHooks, given: RunnerClaims = {}): BatchRunner {
  const { deps } = context;
  const { storage } = deps;
  const runs = new Map<string, Run>();
  const progress = progressEmitter(deps, (batchId) => runs.get(batchId));
  const claiming = { ...deps.batchClaims, ...given };
  const holder = claiming.holder ?? CONSOLE_HOLDER;
  const watchMs = claiming.watchMs ?? STATE_WATCH_MS;
  const leaseMs = claiming.leaseMs ?? LEASE_MS;
  /** This console's runs as the workspace knows them (their sign of life, migration 27). */
  const runIds = new Map<Run, string>();
  /**
   * Batches whose run stopped on a lost workspace connection: their state could not be written
   * (still `sending` there), so Try again sends them on from what the workspace holds.
   */
  const lostRuns = new Set<string>();

  /**
   * This run has ended: on a shared store, true when another desktop's run of the batch still
   * shows life, so this run's fault or close must not mark the batch interrupted for everyone.
   */
  async function othersSending(run: Run): Promise<boolean> {
    const runId = runIds.get(run);
    runIds.delete(run);
    if (!runId || !storage.batches.leaveRun) return false;
    return storage.batches.leaveRun(run.batchId, runId).catch(() => false);
  }

  async function changeState(batchId: string, state: BatchState, extra: BatchStateExtra = {}): Promise<void> {
    await storage.batches.setState(batchId, state, deps.clock.now(), extra);
    await progress.emit(batchId, 'send', {}, true);
  }

  /** Sends what is left of a batch; returns the state it ends in (set once the run is gone). */
  async function runBatch(run: Run): Promise<End> {
    const summary = await storage.batches.summary(run.batchId);
    if (!summary) return null;
    const usable = await usableProfile(context, summary.profileId, summary.environment);
    if ('reason' in usable) return { state: 'interrupted', extra: { reason: usable.reason } };
    const { profile } = usable;
    // Alive before it is `sending`: a console starting elsewhere must never find it sending and lifeless.
    const runId = `${holder}/run-${randomUUID()}`;
    runIds.set(run, runId);
    await storage.batches.keepRunAlive?.(run.batchId, runId, leaseMs);
    await changeState(run.batchId, 'sending', { started: true });
    const client = context.clientFor(profile);
    const emit = (force: boolean) => progress.emit(run.batchId, 'send', {}, force);
    const sending: RowSending = {
      journal: storage.journal,
      answers: new Set(),
      clock: deps.clock,
      ...(deps.logger ? { logger: deps.logger } : {}),
      client,
      profile: { id: profile.id, name: profile.name, environment: profile.environment },
      progress: emit,
    };
    const lookingUp = { storage, clock: deps.clock, client, progress: emit };
    const claimOptions: ClaimOptions = { holder, size: claiming.size ?? Math.max(CLAIM_ROWS, summary.concurrency), leaseMs };
    const stopWatching = watchState(run, runId);
    try {
      let rounds = 0;
      for (;;) {
        const lookedUp = await lookUpUnknown(run, lookingUp);
        if (stopped(run)) break;
        await sendRows(run, rowClaims(storage.batches, run.batchId, deps.clock, claimOptions), summary.concurrency, sending);
        if (stopped(run)) break;
        const now = await storage.batches.summary(run.batchId);
        if (!now || now.state !== 'sending') break; // paused, cancelled or interrupted on another desktop
        const { counts } = now;
        if (counts.notSent + counts.pending + counts.unknown === 0) break; // every row final: done
        if (counts.unknown > lookedUp.deferred) {
          // Rows whose outcome stays unknown (a 5xx): looked up again, a few rounds at most; the
          // last look-up's finding is kept (an existing transaction adopted, not left unknown).
          rounds += 1;
          if (rounds < MAX_ROUNDS) continue;
          await lookUpUnknown(run, lookingUp);
          break;
        }
        if (counts.unknown > 0) continue; // the rate limit deferred their look-up: after its wait
        // Rows left that this console could not claim. One desktop: nobody else sends them (endOf
        // says why). A team workspace: another desktop holds them, or held them and stopped.
        if (storage.kind === 'sqlite') break;
        // A desktop that stopped renewing: its rows come back, those in flight outcome unknown,
        // looked up by external id in the next round before anything is sent again.
        if ((await storage.batches.expireClaims(deps.clock.now())).length > 0) continue;
        try {
          await deps.clock.sleep(Math.min(watchMs, leaseMs / 2), run.signal);
        } catch {
          break; // a stop, or the console is closing
        }
      }
    } finally {
      stopWatching();
    }
    return endOf(storage, run, deps.signal);
  }

  /**
   * On a shared store (a team workspace) another desktop may write a Pause or Cancel, or mark the
   * batch interrupted: the run reads its batch's state every `watchMs` and stops as if this
   * console's own handler had written it (its waits cut short, its rows in flight answered). On
   * SQLite only this console writes its batches, and its handlers stop the runner themselves.
   */
  function watchState(run: Run, runId: string): () => void {
    if (storage.kind === 'sqlite') return () => undefined;
    // The run's sign of life, a few times a lease, from its start to its end: between claims and
    // while looking rows up it holds no row, yet it is still sending the batch.
    let stamping = false;
    const heartbeat = setInterval(() => {
      if (stamping || !storage.batches.keepRunAlive) return;
      stamping = true;
      storage.batches
        .keepRunAlive(run.batchId, runId, leaseMs)
        .catch(() => undefined) // retried on the next beat; the lease decides
        .finally(() => {
          stamping = false;
        });
    }, Math.max(50, Math.floor(leaseMs / RENEWALS_PER_LEASE)));
    heartbeat.unref();
    let reading = false;
    const timer = setInterval(() => {
      if (reading || stopped(run)) return;
      reading = true;
      storage.batches
        .summary(run.batchId)
        .then((summary) => {
          if (!summary || stopped(run)) return;
          if (summary.state === 'paused') stopRun(run, 'pause');
          else if (summary.state === 'cancelled') stopRun(run, 'cancel');
          else if (summary.state === 'interrupted') {
            run.reason = summary.stateReason;
            stopRun(run, 'interrupt');
          }
        })
        .catch((error: unknown) => deps.logger?.warn('batch: could not read the batch\'s state', { batchId: run.batchId, error: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          reading = false;
        });
    }, watchMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      clearInterval(heartbeat);
    };
  }

  function stopRun(run: Run, why: 'pause' | 'cancel' | 'interrupt'): void {
    if (run.stop !== 'cancel') run.stop = why;
    run.abort.abort();
    void progress.emit(run.batchId, 'send', {}, true);
  }

  async function finish(run: Run, end: End): Promise<void> {
    // Gone from `runs` before the state is announced: a Resume right after must be accepted.
    runs.delete(run.batchId);
    const othersCarryOn = await othersSending(run);
    if (end?.state === 'interrupted' && othersCarryOn) {
      deps.logger?.info('batch: another desktop is still sending the batch', { batchId: run.batchId });
    } else if (end) {
      try {
        await changeState(run.batchId, end.state, end.extra);
      } catch (error) {
        // Another desktop ended the batch between this run's last read and its write (two runners
        // finding every row final at once: done → done is refused). Its end stands.
        const now = (await storage.batches.summary(run.batchId).catch(() => null))?.state;
        if (now !== 'done' && now !== 'cancelled') throw error;
        deps.logger?.info('batch: another desktop ended the batch first', { batchId: run.batchId, state: now });
      }
    }
    hooks.afterRun(run.batchId);
  }

  async function failed(run: Run, error: unknown): Promise<void> {
    const { batchId } = run;
    runs.delete(batchId);
    deps.logger?.error('batch run failed', { batchId, error: error instanceof Error ? error.name : 'unknown' });
    if ((error as { code?: unknown } | null)?.code === 'WORKSPACE_CONNECTION_LOST') lostRuns.add(batchId);
    try {
      const othersCarryOn = await othersSending(run);
      const state = (await storage.batches.summary(batchId))?.state;
      // The workspace's approval gate refused a claim (the policy raised, a row changed after approval): said as such.
      const held = approvalFailure(error);
      const reason = held ? `Sending stopped: ${held.message}` : 'The batch stopped on an unexpected error (see the log). Resume looks up the rows whose outcome is unknown first.';
      // A fault on this desktop stops this run only while another desktop is still sending it.
      if (state === 'sending' && !othersCarryOn) await changeState(batchId, 'interrupted', { reason });
      else if (state === 'sending') deps.logger?.info('batch: another desktop is still sending the batch', { batchId });
    } catch {
      // the journal is closed: the next start marks the batch interrupted
    }
  }

  const runner: BatchRunner = {
    run(batchId) {
      if (runs.has(batchId)) return;
      const run = newRun(batchId, deps.clock.now(), deps.signal);
      // In the map before the run announces itself: a Pause in answer to its first event must find it.
      runs.set(batchId, run);
      run.done = runBatch(run).then(
        (end) => finish(run, end),
        (error: unknown) => failed(run, error),
      );
    },
    stop(batchId, why) {
      const run = runs.get(batchId);
      if (!run) return false;
      stopRun(run, why);
      return true;
    },
    isRunning: (batchId) => runs.has(batchId),
    async settled(batchId) {
      await runs.get(batchId)?.done;
    },
    async idle() {
      while (runs.size > 0) await Promise.all([...runs.values()].map((run) => run.done));
      progress.cancelTrailing();
      // The last events are counted by the store (asynchronously): idle once they have gone out.
      await progress.settled();
    },
    emitProgress: (batchId, mode, extra) => progress.emit(batchId, mode, extra, true),
    currentWait: (batchId) => serviceWait(runs.get(batchId), deps.clock.now()),
    async resumeLost() {
      const again: string[] = [];
      for (const batchId of [...lostRuns]) {
        // Read before it leaves the set: a connection lost again keeps it for the next Try again.
        const state = (await storage.batches.summary(batchId))?.state;
        lostRuns.delete(batchId);
        if (state !== 'sending' || runs.has(batchId)) continue;
        // Its rows in flight are still leased to this console: the run waits for the lease, then looks them up first.
        runner.run(batchId);
        again.push(batchId);
      }
      return again;
    },
  };
  return runner;
}
