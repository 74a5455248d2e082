/**
 * Group commit for a workspace's journal writes, as the SQLite journal has its own
 * (../../journal/group-commit.ts): the writes queued while the previous group was in the database
 * (or in one event-loop turn when they were idle) run in ONE transaction, so a group pays one WAL
 * flush at COMMIT instead of one per write. A flush per commit was most of a batch row's cost on
 * PostgreSQL (each row commits its pending entry, then its answer; bench/storage.ts).
 *
 * Durability is not traded for it: `write` resolves only after the COMMIT that holds its work
 * returned, with the server's own synchronous_commit (on by default), so a caller that awaits it
 * before a POST has its pending entry on disk before the request leaves. Each write runs in its
 * own savepoint: one that throws (a move the state table refuses, a row another desktop holds, a
 * refusal by row-level security) is rolled back alone and rejects alone; the others commit. A
 * failed BEGIN, savepoint or COMMIT (the connection lost, the server stopping) rejects the whole
 * group, and its connection is thrown away: a write is never reported done unless its COMMIT was.
 *
 * How it stays fast on a busy machine, where each round trip waits for a core:
 * - a write may bring its common case as ONE statement known in advance (a first request, an
 *   accepted answer); a run of those is sent at once on a pipelined connection (node-postgres
 *   `pipeline`), each behind its own savepoint, and answered in one round trip. One that fails
 *   or falls back (its statement wrote nothing) is rolled back to its savepoint with those sent
 *   behind it, settled, and those behind are sent again: the group keeps the writes' order;
 * - two groups at a time, on two connections: the next runs while one waits for its flush. Two
 *   groups of one desktop wait for each other's row locks only when they write the same entries
 *   (callers writing one entry at once); a deadlock there is broken by the server, and the write
 *   that loses rejects alone, like a deadlock between two desktops.
 */
import pg from 'pg';
import { inTransaction, type WorkspacePool } from './db';

/** What a write's one statement answers when the write needs its full work instead (it wrote nothing). */
export const FALL_BACK: unique symbol = Symbol('fall back to the full work');

/** A write: its full work, and optionally its common case as ONE statement known in advance. */
export interface GroupWrite<T> {
  /**
   * Sent with the group's other statements without waiting for an answer (one round trip for a
   * run of them). `read` gives the write's value, throws to refuse it (its statement undone), or
   * says FALL_BACK when the statement wrote nothing and `work` must run.
   */
  statement?: { name: string; text: string; values: unknown[]; read(result: pg.QueryResult): T | typeof FALL_BACK };
  /** The write in full, alone in its savepoint (when it has no statement, or that fell back). */
  work(client: pg.ClientBase): Promise<T>;
  /**
   * Someone waits on it before going on (a request's pending entry: its POST leaves only once it
   * is committed). Queued urgent writes form the next group by themselves, ahead of the writes
   * nobody waits on (answers, statuses seen), which would otherwise run before them in the same
   * transaction. See `pump`.
   */
  urgent?: boolean;
}

export interface WorkspaceGroupCommit {
  /** Runs the write in the next group's transaction, in its own savepoint; resolves once that transaction has committed. */
  write<T>(write: GroupWrite<T>): Promise<T>;
  /** Resolves when everything queued so far has committed (or failed). */
  drain(): Promise<void>;
  /** Drains, then closes the groups' connections. */
  close(): Promise<void>;
}

interface Queued {
  write: GroupWrite<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** When it was queued (ms, performance.now): a write nobody waits on is not held back for ever. */
  at: number;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/**
 * Writes per group at most: past 64 subtransactions a transaction's subtransaction ids overflow
 * the server's per-backend cache and every other session's snapshots get slower
 * (PGPROC_MAX_CACHED_SUBXIDS); a batch's workers queue far fewer at a time.
 */
export const MAX_GROUP = 64;

/** One group runs its statements while another is flushed. */
const CONNECTIONS = 2;

/** A write nobody waits on goes with the next group once it has waited this long, urgent writes queued or not. */
const LONGEST_WAIT_MS = 20;

/** The savepoint before the group's write number `i` (nested: rolling back to it undoes that write and every later one). */
const savepoint = (i: number) => `paydesk_write_${i}`;

/** A write with no statement: its work in its savepoint, undone alone if it throws. */
async function runWork(client: pg.ClientBase, item: Queued, i: number, opening: Promise<unknown>): Promise<Result> {
  // Sent without waiting: the pipeline delivers it before the work's first statement. Settled at
  // once: when the connection dies, BEGIN fails first and this one would be a rejection nobody
  // handles (an unhandled rejection ends the process).
  const saved = settled(client.query(`SAVEPOINT ${savepoint(i)}`));
  const done = settled(item.write.work(client));
  await opening;
  const point = await saved;
  if (!point.ok) throw point.error;
  const result = await done;
  // If even this fails, the transaction is gone and the group with it.
  if (!result.ok) await client.query(`ROLLBACK TO SAVEPOINT ${savepoint(i)}`);
  return result;
}

/**
 * Runs a group's writes in one transaction on `client`, each after its own savepoint, and leaves
 * the transaction open for COMMIT. Consecutive writes with a statement are sent together; when
 * one fails or falls back, the transaction is rolled back to its savepoint (undoing it and those
 * sent behind it), it is settled, and the ones behind it are sent again: the order of the group's
 * writes is the order they came in. Throws when the transaction itself failed.
 */
async function runStatements(client: pg.ClientBase, group: readonly Queued[]): Promise<Result[]> {
  const results: Result[] = [];
  const opening = client.query('BEGIN');
  let i = 0;
  while (i < group.length) {
    if (!group[i]!.write.statement) {
      results[i] = await runWork(client, group[i]!, i, opening);
      i += 1;
      continue;
    }
    const sent: { saved: ReturnType<typeof settled>; answer: ReturnType<typeof settled<pg.QueryResult>> }[] = [];
    for (let j = i; j < group.length && group[j]!.write.statement; j += 1) {
      const statement = group[j]!.write.statement!;
      sent.push({ saved: settled(client.query(`SAVEPOINT ${savepoint(j)}`)), answer: settled(client.query({ name: statement.name, text: statement.text, values: statement.values })) });
    }
    await opening;
    let next = i + sent.length;
    for (const [n, { saved, answer }] of sent.entries()) {
      const k = i + n;
      const point = await saved;
      if (!point.ok) throw point.error;
      const answered = await answer;
      let outcome: Result | typeof FALL_BACK;
      if (!answered.ok) outcome = answered;
      else {
        try {
          const value = group[k]!.write.statement!.read(answered.value);
          outcome = value === FALL_BACK ? FALL_BACK : { ok: true, value };
        } catch (error) {
          outcome = { ok: false, error };
        }
      }
      if (outcome !== FALL_BACK && outcome.ok) {
        results[k] = outcome;
        continue;
      }
      // The writes sent behind this one answered (or failed as the transaction was aborted):
      // all are undone with it, then sent again after it.
      await Promise.all(sent.slice(n + 1).flatMap((rest) => [rest.saved, rest.answer]));
      await client.query(`ROLLBACK TO SAVEPOINT ${savepoint(k)}`);
      if (outcome === FALL_BACK) {
        const result = await settled(group[k]!.write.work(client));
        if (!result.ok) await client.query(`ROLLBACK TO SAVEPOINT ${savepoint(k)}`);
        results[k] = result;
      } else {
        results[k] = outcome;
      }
      next = k + 1;
      break;
    }
    i = next;
  }
  await opening;
  return results;
}

/** COMMIT; throws unless the server says it committed. */
async function commit(client: pg.ClientBase): Promise<void> {
  const { command } = await client.query('COMMIT');
  // COMMIT of a transaction the server aborted answers ROLLBACK without an error: never done.
  if (command !== 'COMMIT') throw new Error(`the workspace answered ${command} to COMMIT: the journal write was not committed`);
}

/** A write alone in its own transaction (the statement first, the work if it falls back). */
async function runAlone<T>(client: pg.ClientBase, write: GroupWrite<T>): Promise<T> {
  if (write.statement) {
    const { name, text, values } = write.statement;
    const value = write.statement.read(await client.query({ name, text, values }));
    if (value !== FALL_BACK) return value;
  }
  return write.work(client);
}

export function workspaceGroupCommit(config: pg.ClientConfig): WorkspaceGroupCommit {
  const queue: Queued[] = [];
  let scheduled = false;
  const idle: pg.Client[] = [];
  let open = 0;
  const running = new Set<Promise<void>>();

  /** An idle connection, or a new one; taken synchronously (pump counts on it). */
  async function connection(): Promise<pg.Client> {
    const ready = idle.pop();
    if (ready) return ready;
    open += 1;
    const client = new pg.Client({ ...config, pipeline: true });
    // A connection the server ends must not crash the console: its group fails, the next opens anew.
    // One the server ends while idle (a restart) leaves the idle list at once: reused, it would
    // fail the first group after the workspace is found again, and lose the connection again.
    const dropIdle = () => {
      const at = idle.indexOf(client);
      if (at === -1) return;
      idle.splice(at, 1);
      open -= 1;
    };
    client.on('error', dropIdle);
    client.on('end', dropIdle);
    try {
      await client.connect();
      return client;
    } catch (error) {
      open -= 1;
      throw error;
    }
  }

  /** Nothing of this group is known to be committed: every write is refused with the server's or the socket's own error. */
  function refuse(group: readonly Queued[], error: unknown, client: pg.Client | null): void {
    if (client) {
      // Its transaction is in an unknown state: closed, never reused.
      open -= 1;
      void client.end().catch(() => undefined);
    }
    for (const item of group) item.reject(error);
  }

  async function runGroup(group: readonly Queued[]): Promise<void> {
    let client: pg.Client | null = null;
    let results: Result[];
    try {
      client = await connection();
      results = await runStatements(client, group);
      await commit(client);
    } catch (error) {
      refuse(group, error, client);
      return;
    }
    idle.push(client);
    group.forEach((item, i) => {
      const result = results[i]!;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.error);
    });
  }

  /**
   * The next group: the urgent writes queued, by themselves, while the oldest other write has
   * waited less than LONGEST_WAIT_MS; else the writes in the order they came. Writes of different
   * entries commute; a caller whose write depends on another's outcome awaits that one first (two
   * groups on two connections never promised an order between groups either).
   */
  function nextGroup(): Queued[] {
    const urgent = queue.filter((item) => item.write.urgent);
    const oldest = queue.find((item) => !item.write.urgent);
    if (urgent.length === 0 || (oldest && performance.now() - oldest.at >= LONGEST_WAIT_MS)) return queue.splice(0, MAX_GROUP);
    const taken = new Set(urgent.slice(0, MAX_GROUP));
    const rest = queue.filter((item) => !taken.has(item));
    queue.length = 0;
    queue.push(...rest);
    return [...taken];
  }

  /** Starts a group on each free connection; writes queued meanwhile wait for the first to end, and form its next group. */
  function pump(): void {
    scheduled = false;
    while (queue.length > 0 && (idle.length > 0 || open < CONNECTIONS)) {
      const group = runGroup(nextGroup()).finally(() => {
        running.delete(group);
        pump();
      });
      running.add(group);
    }
  }

  function write<T>(item: GroupWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ write: item as GroupWrite<unknown>, resolve: resolve as (value: unknown) => void, reject, at: performance.now() });
      if (!scheduled && running.size < CONNECTIONS) {
        scheduled = true;
        // The rest of this turn's writes join the group (a batch's workers answer in bursts).
        setImmediate(pump);
      }
    });
  }

  async function drain(): Promise<void> {
    await write({ work: async () => undefined });
    // Urgent writes queued before it may still be waiting for a connection: until nothing is left.
    while (queue.length > 0 || running.size > 0) await Promise.all([...running, new Promise((resolve) => setImmediate(resolve))]);
  }

  return {
    write,
    drain,
    async close() {
      await drain();
      const clients = idle.splice(0);
      open -= clients.length;
      await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    },
  };
}

/**
 * Each write its own transaction on any pooled connection, a flush per write: how the store wrote
 * before group commit, kept only so bench/storage.ts can show both in one run.
 */
export function writePerTransaction(pool: WorkspacePool): WorkspaceGroupCommit {
  return {
    write: (item) => inTransaction(pool, (client) => runAlone(client, item)),
    drain: async () => undefined,
    close: async () => undefined,
  };
}
