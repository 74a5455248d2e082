/**
 * Group commit for the journal's bulk writes: the writes queued in one event-loop turn (a batch's
 * answers that came back in it, the pending entries of the rows about to be sent, the local
 * sandbox's status pushes) go into ONE SQLite transaction, at the end of the turn (setImmediate).
 * A commit cost more than the rows it wrote (profile of `bench:batch`: two commits per row were a
 * third of the batch's CPU). One group per journal connection (`journalWrites`), so every writer
 * of a turn shares it.
 *
 * `write` resolves only once the transaction holding the work has committed, so a caller that
 * awaits it before a POST still has its pending entry durable before the request leaves. Each
 * work runs in its own savepoint: one that throws (a move the state table refuses) is rolled back
 * alone and rejects alone; the others commit. A failed COMMIT rejects them all.
 */
import type { JournalDb } from './entries';

export interface GroupCommit {
  /** Runs `work` in the next group transaction; resolves with its result once that has committed. */
  write<T>(work: () => T): Promise<T>;
  /** Resolves when everything queued so far has been committed (or has failed). */
  drain(): Promise<void>;
}

interface Queued {
  work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

export function groupCommit(db: JournalDb): GroupCommit {
  let queue: Queued[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const group = queue;
    queue = [];
    if (group.length === 0) return;
    let results: Result[];
    try {
      results = db.transaction(() =>
        group.map((item): Result => {
          try {
            return { ok: true, value: db.transaction(item.work)() };
          } catch (error) {
            return { ok: false, error };
          }
        }),
      )();
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const result = results[i]!;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.error);
    });
  }

  function write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  }

  return {
    write,
    async drain() {
      await write(() => undefined);
    },
  };
}

const groups = new WeakMap<JournalDb, GroupCommit>();

/** The journal connection's one group commit. */
export function journalWrites(db: JournalDb): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = groupCommit(db);
    groups.set(db, group);
  }
  return group;
}
