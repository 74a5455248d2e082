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
  /**
   * Runs `work` in the next group transaction; resolves with its result once that has committed.
   * `atomic`: the work is one `db.transaction` of its own (a throw has undone all it wrote), so
   * it needs no savepoint of the group's around it.
   */
  write<T>(work: () => T, options?: { atomic?: boolean }): Promise<T>;
  /** Resolves when everything queued so far has been committed (or has failed). */
  drain(): Promise<void>;
}

interface Queued {
  work: () => unknown;
  atomic: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

export function groupCommit(db: JournalDb): GroupCommit {
  let queue: Queued[] = [];
  let scheduled = false;
  // Made once: better-sqlite3 builds a new wrapper (five functions) for every db.transaction(fn),
  // and a group's items ran one each; a savepoint of our own is three cached statements.
  const savepoint = db.prepare('SAVEPOINT paydesk_group_item');
  const release = db.prepare('RELEASE paydesk_group_item');
  const rollbackTo = db.prepare('ROLLBACK TO paydesk_group_item');

  function runItem(item: Queued): Result {
    if (item.atomic) {
      try {
        return { ok: true, value: item.work() };
      } catch (error) {
        return { ok: false, error };
      }
    }
    savepoint.run();
    try {
      const value = item.work();
      release.run();
      return { ok: true, value };
    } catch (error) {
      // Undone alone; the others of the group commit. (A failure that ended the whole
      // transaction leaves nothing to roll back to: the group's COMMIT then fails them all.)
      if (db.inTransaction) {
        rollbackTo.run();
        release.run();
      }
      return { ok: false, error };
    }
  }

  const inOneTransaction = db.transaction((group: Queued[]): Result[] => group.map(runItem));

  function flush(): void {
    scheduled = false;
    const group = queue;
    queue = [];
    if (group.length === 0) return;
    let results: Result[];
    try {
      results = inOneTransaction(group);
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

  function write<T>(work: () => T, options: { atomic?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, atomic: options.atomic === true, resolve: resolve as (value: unknown) => void, reject });
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
