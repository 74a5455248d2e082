/**
 * The workspace's group commit (electron/console/storage/postgres/group-commit.ts) on a real
 * PostgreSQL: writes queued together share one transaction, each in its own savepoint; one that
 * fails is undone alone and rejects alone; nothing resolves before its COMMIT returned; a
 * connection lost mid-group rejects the whole group and leaves nothing half-written.
 *
 * To hold a group at its COMMIT, the test table has a deferred constraint trigger that takes an
 * advisory lock the test holds: the COMMIT waits on it (a state the test reads in
 * pg_stat_activity, no timed wait) until the test lets go.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALL_BACK, workspaceGroupCommit, type GroupWrite, type WorkspaceGroupCommit } from '../../electron/console/storage/postgres/group-commit';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

let server: TestPostgres;
let admin: pg.Client;
let database: string;
beforeAll(async () => {
  server = await startTestPostgres();
  database = await server.createDatabase('paydesk_group');
  admin = await server.connect(undefined, database);
  await admin.query(`
    CREATE TABLE written (n int PRIMARY KEY, seq serial);
    CREATE FUNCTION wait_for_the_test() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(42); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER held_at_commit AFTER INSERT ON written DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION wait_for_the_test();`);
}, 60_000);
afterAll(() => server.stop());

const groups: WorkspaceGroupCommit[] = [];
afterAll(() => Promise.all(groups.map((group) => group.close())));

async function freshGroup(): Promise<WorkspaceGroupCommit> {
  await admin.query('TRUNCATE written');
  const group = workspaceGroupCommit(server.config(undefined, database));
  groups.push(group);
  return group;
}

/** Inserts `n` with a statement sent in a run (pipelined); resolves with the top-level transaction id. */
const insertStatement = (n: number): GroupWrite<string> => ({
  statement: { name: 'test_insert', text: 'INSERT INTO written (n) VALUES ($1) RETURNING txid_current()::text AS tx', values: [n], read: ({ rows }) => (rows[0] as { tx: string }).tx },
  work: () => Promise.reject(new Error('the statement wrote, its work must not run')),
});

/** Inserts `n` in a work of its own (no statement); resolves with the top-level transaction id. */
const insertWork = (n: number, thenThrow?: Error): GroupWrite<string> => ({
  async work(client) {
    const { rows } = await client.query<{ tx: string }>('INSERT INTO written (n) VALUES ($1) RETURNING txid_current()::text AS tx', [n]);
    if (thenThrow) throw thenThrow;
    return rows[0]!.tx;
  },
});

const committed = async () => (await admin.query<{ n: number }>('SELECT n FROM written ORDER BY seq')).rows.map((row) => row.n);

/** Waits until a group's COMMIT waits on the test's advisory lock (its backend's pid). */
async function groupHeldAtCommit(): Promise<number> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query = 'COMMIT'`,
      [database],
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function settledFlags<T>(promises: Promise<T>[]): { settled: boolean[] } {
  const state = { settled: promises.map(() => false) };
  promises.forEach((promise, i) => {
    void promise.then(
      () => (state.settled[i] = true),
      () => (state.settled[i] = true),
    );
  });
  return state;
}

describe('workspace group commit', () => {
  it('runs the writes queued together in one transaction; one that fails is undone alone and rejects alone', async () => {
    const group = await freshGroup();
    const results = await Promise.allSettled([
      group.write(insertWork(1)),
      group.write(insertStatement(2)),
      // A duplicate key in a pipelined run: the writes sent behind it are undone and sent again.
      group.write(insertStatement(1)),
      group.write(insertStatement(3)),
      group.write(insertWork(4, new Error('refused by the state table'))),
      group.write(insertWork(5)),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    expect(String((results[4] as PromiseRejectedResult).reason)).toMatch(/refused by the state table/);
    const transactions = new Set(results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])));
    expect(transactions.size).toBe(1);
    expect(await committed()).toEqual([1, 2, 3, 5]);
  });

  it('runs urgent writes (a pending entry a POST waits for) in a group of their own, ahead of the writes queued before them that nobody waits on', async () => {
    const group = await freshGroup();
    const results = await Promise.all([
      group.write(insertStatement(41)),
      group.write(insertWork(42)),
      group.write({ ...insertStatement(43), urgent: true }),
      group.write(insertStatement(44)),
      group.write({ ...insertWork(45), urgent: true }),
    ]);
    const [a, b, urgentA, c, urgentB] = results;
    // The urgent two share a transaction; the three others share another.
    expect(urgentA).toBe(urgentB);
    expect(new Set([a, b, c]).size).toBe(1);
    expect(a).not.toBe(urgentA);
    expect((await committed()).sort()).toEqual([41, 42, 43, 44, 45]);
    // drain() waits for every write queued before it, urgent or not.
    const late = [group.write(insertStatement(46)), group.write({ ...insertStatement(47), urgent: true })];
    await group.drain();
    expect((await committed()).sort()).toEqual([41, 42, 43, 44, 45, 46, 47]);
    await Promise.all(late);
  });

  it('runs the work of a write whose statement fell back, in its place in the order the writes came', async () => {
    const group = await freshGroup();
    const fallsBack: GroupWrite<string> = {
      statement: { name: 'test_nothing', text: 'SELECT 1 WHERE false', values: [], read: () => FALL_BACK },
      work: async (client) => {
        await client.query('INSERT INTO written (n) VALUES (20)');
        return 'worked';
      },
    };
    const results = await Promise.all([group.write(insertStatement(10)), group.write(fallsBack), group.write(insertStatement(30))]);
    expect(results[1]).toBe('worked');
    expect(await committed()).toEqual([10, 20, 30]);
  });

  it('resolves no write before its COMMIT returned: held at COMMIT, nothing is resolved nor visible to another connection', async () => {
    const group = await freshGroup();
    await admin.query('SELECT pg_advisory_lock(42)');
    const writes = [group.write(insertStatement(1)), group.write(insertWork(2)), group.write(insertWork(3, new Error('refused')))];
    const state = settledFlags(writes);
    let whileHeld: { settled: boolean[]; visible: number[] };
    try {
      await groupHeldAtCommit();
      // Let every callback already due run: none may have settled while COMMIT waits.
      await new Promise((resolve) => setImmediate(resolve));
      whileHeld = { settled: [...state.settled], visible: await committed() };
    } finally {
      await admin.query('SELECT pg_advisory_unlock(42)');
    }
    expect(whileHeld).toEqual({ settled: [false, false, false], visible: [] });
    const results = await Promise.allSettled(writes);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await committed()).toEqual([1, 2]);
  });

  it('rejects every write of a group whose connection is lost at COMMIT, and leaves none of them written', async () => {
    const group = await freshGroup();
    await admin.query('SELECT pg_advisory_lock(42)');
    // Settled at once: the writes may reject before the terminate's own answer comes back, and a
    // rejection nobody handles by then is an unhandled rejection (vitest fails the run).
    const writes = Promise.allSettled([group.write(insertStatement(1)), group.write(insertWork(2)), group.write(insertStatement(3))]);
    let results: PromiseSettledResult<string>[];
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [await groupHeldAtCommit()]);
      results = await writes;
    } finally {
      await admin.query('SELECT pg_advisory_unlock(42)');
    }
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await committed()).toEqual([]);
    // The lost connection is not reused: the next write opens another and commits.
    await group.write(insertWork(4));
    expect(await committed()).toEqual([4]);
  });
});
