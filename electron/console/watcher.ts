/**
 * Watching a transaction after initiate: retrieve with backoff until its status is final or the
 * time limit passes, pushing each attempt (`watch:progress`) and each change (`transaction:changed`).
 */
import { isFinalStatus, type TransactionStatus } from '../../shared/contract';
import type { JournalTransaction } from '../../shared/api';
import { getEntry, recordObserved } from './journal/entries';
import type { Context } from './handlers/context';
import type { StoredProfile } from './settings';
import { transactionOf } from './handlers/outcomes';

export interface Watcher {
  watch(entry: JournalTransaction, profile: StoredProfile & { builtIn: boolean }): void;
  /** Resolves when every running watch has ended (tests, shutdown). */
  idle(): Promise<void>;
}

export function createWatcher(context: Context): Watcher {
  const { deps, watch: options } = context;
  const running = new Map<string, Promise<void>>();

  async function follow(journalId: string, profile: StoredProfile & { builtIn: boolean }): Promise<void> {
    const started = deps.clock.now();
    let delay = options.initialDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await deps.clock.sleep(delay, deps.signal);
      } catch {
        return; // the console is closing
      }
      const entry = getEntry(deps.journal, journalId);
      if (!entry || entry.transactionId === null) return;
      // A webhook (local sandbox) or a Verify may have brought it to a final status meanwhile.
      if (entry.status !== null && isFinalStatus(entry.status)) {
        deps.emit('watch:progress', { journalId, attempt, status: entry.status, done: true });
        return;
      }
      let status: TransactionStatus | null = entry.status;
      const client = context.clientFor(profile);
      const result = entry.kind === 'payment' ? await client.retrievePayment(entry.transactionId) : await client.retrievePayout(entry.transactionId);
      if (deps.signal?.aborted) return;
      const tx = result.kind === 'success' ? transactionOf(result.data) : null;
      if (tx && result.kind === 'success') {
        const observed = recordObserved(deps.journal, journalId, tx, { type: 'status_seen', httpStatus: result.httpStatus, message: 'status seen while watching' }, deps.clock.now());
        status = observed.entry.status;
        if (observed.changed) deps.emit('transaction:changed', { journalId, status, state: observed.entry.state });
      }
      // Failures of a retrieve are not final: the next attempt may answer.
      const final = status !== null && isFinalStatus(status);
      const timedOut = deps.clock.now() - started >= options.limitMs;
      deps.emit('watch:progress', { journalId, attempt, status, done: final || timedOut });
      if (final || timedOut) return;
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
  }

  return {
    watch(entry, profile) {
      if (running.has(entry.id)) return;
      const run = follow(entry.id, profile)
        .catch((error: unknown) => deps.logger?.warn('watch stopped', { journalId: entry.id, error: error instanceof Error ? error.message : 'unknown' }))
        .finally(() => running.delete(entry.id));
      running.set(entry.id, run);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}
