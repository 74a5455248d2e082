/**
 * Group commit for a workspace's journal writes, as the SQLite journal has its own
 * (../../journal/group-commit.ts): the writes queued while the previous group was in the database
 * (or in one event-loop turn when it was idle) run in ONE transaction on one connection, so a
 * group pays one WAL flush at COMMIT instead of one per write. A flush per commit was most of a
 * batch row's cost on PostgreSQL (each row commits its pending entry, then its answer;
 * bench/storage.ts: 0.25–0.38× SQLite with a flush per write, 0.84–0.96× without any).
 *
 * Durability is not traded for it: `write` resolves only after the COMMIT that holds its work
 * returned, with the server's own synchronous_commit (on by default), so a caller that awaits it
 * before a POST has its pending entry on disk before the request leaves. Each write runs in its
 * own savepoint: one that throws (a move the state table refuses, a row another desktop holds,
 * a refusal by row-level security) is rolled back alone and rejects alone; the others commit. A
 * failed BEGIN, savepoint or COMMIT (the connection lost, the server stopping) rejects the whole
 * group, and its connection is thrown away: a write is never reported done unless its COMMIT was.
 *
 * Only one group is in the database at a time, on one connection taken from the pool while there
 * is work and given back when idle. A write of a group waits for row locks like any transaction:
 * two desktops writing the same entry take turns, and a deadlock between them is broken by the
 * server (the write that loses rejects alone).
 */
import type pg from 'pg';
import { inTransaction, type WorkspacePool } from './db';

export interface WorkspaceGroupCommit {
  /** Runs `work` in the next group's transaction, in its own savepoint; resolves once that transaction has committed. */
  write<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T>;
  /** Resolves when everything queued so far has committed (or failed). */
  drain(): Promise<void>;
}

interface Queued {
  work: (client: pg.ClientBase) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Writes per group at most: past 64 subtransactions a transaction's subtransaction ids overflow
 * the server's per-backend cache and every other session's snapshots get slower
 * (PGPROC_MAX_CACHED_SUBXIDS); a batch's workers queue far fewer at a time.
 */
export const MAX_GROUP = 64;

/** Savepoints are named once and reused: a name is released before it is set again. */
const SAVEPOINT = 'paydesk_write';

/**
 * Runs a group's works in one transaction on `client`, each in its own savepoint. Returns each
 * work's result, or throws (the transaction not committed) when the transaction itself failed.
 */
async function runGroup(client: pg.ClientBase, group: readonly Queued[]): Promise<Result[]> {
  // BEGIN and the first savepoint in one round trip; between two works, RELEASE and the next
  // SAVEPOINT in one (a round trip on one connection is what a group's statements cost).
  const T0 = performance.now();
  await client.query(`BEGIN; SAVEPOINT ${SAVEPOINT}`);
  const results: Result[] = [];
  for (const [i, item] of group.entries()) {
    if (i > 0) await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}`);
    try {
      results.push({ ok: true, value: await item.work(client) });
    } catch (error) {
      // Undoes this work alone; if even that fails, the connection or transaction is gone and
      // the whole group is refused below.
      await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
      results.push({ ok: false, error });
    }
  }
  const t0 = performance.now();
  const committed = await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}; COMMIT`);
  (globalThis as any).TRACE?.push([group.length, t0 - T0, performance.now() - t0]);
  // COMMIT of a transaction the server aborted answers ROLLBACK without an error: never done.
  const last = Array.isArray(committed) ? (committed as pg.QueryResult[]).at(-1) : committed;
  if (last?.command !== 'COMMIT') throw new Error(`the server answered ${last?.command ?? 'nothing'} to COMMIT`);
  return results;
}

export function workspaceGroupCommit(pool: WorkspacePool): WorkspaceGroupCommit {
  let queue: Queued[] = [];
  /** A group is being collected (scheduled) or is in the database: new writes wait for the next one. */
  let busy = false;

  async function flush(): Promise<void> {
    let client: pg.PoolClient | null = null;
    try {
      while (queue.length > 0) {
        const group = queue.slice(0, MAX_GROUP);
        queue = queue.slice(group.length);
        let results: Result[];
        try {
          client ??= await pool.connect();
          results = await runGroup(client, group);
        } catch (error) {
          // Nothing of this group is known to be committed: every write is refused with the
          // server's or the socket's own error (describeWorkspaceError reads its code), and the
          // connection (its transaction in an unknown state) is destroyed, never reused.
          await client?.query('ROLLBACK').catch(() => undefined);
          client?.release(error instanceof Error ? error : new Error(String(error)));
          client = null;
          for (const item of group) item.reject(error);
          continue;
        }
        group.forEach((item, i) => {
          const result = results[i]!;
          if (result.ok) item.resolve(result.value);
          else item.reject(result.error);
        });
        // Writes queued while this group was in the database form the next group: their
        // callers were waiting anyway, and one more turn would only add latency.
      }
    } finally {
      client?.release();
      busy = false;
    }
  }

  function write<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!busy) {
        busy = true;
        // The rest of this turn's writes join the group (a batch's workers answer in bursts).
        setImmediate(() => void flush());
      }
    });
  }

  return {
    write,
    async drain() {
      await write(async () => undefined);
    },
  };
}

/**
 * Each write its own transaction on any pooled connection, a flush per write: how the store wrote
 * before group commit, kept only so bench/storage.ts can show both in one run.
 */
export function writePerTransaction(pool: WorkspacePool): WorkspaceGroupCommit {
  return {
    write: (work) => inTransaction(pool, work),
    drain: async () => undefined,
  };
}
