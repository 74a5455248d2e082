/**
 * The workspace journal's writes go through the group commit: a batch row's pending entry is in
 * the database, committed, before writeRequest resolves (so before its POST can leave); a write of
 * the group that is refused (its row already has an entry) is undone alone; a connection lost at
 * COMMIT rejects every write of the group and leaves no entry and no linked row behind.
 *
 * The group is held at its COMMIT by a deferred constraint trigger on `entries` that takes an
 * advisory lock the test holds (added as the superuser to this test's copy of the workspace).
 */
import { ExternalIdKnown } from '../../electron/console/journal/payout-identity';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const LOCK = 4242;

/** A workspace copy whose entry writes wait at COMMIT while the returned connection holds LOCK. */
async function heldWorkspace(): Promise<{ database: string; superuser: pg.Client }> {
  const database = await workspaces.create();
  const superuser = await workspaces.server.connect(undefined, database);
  await superuser.query(`
    CREATE FUNCTION test_wait_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${LOCK}); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER test_held_at_commit AFTER INSERT ON entries DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION test_wait_at_commit();`);
  return { database, superuser };
}

async function commitWaiting(superuser: pg.Client, database: string): Promise<number> {
  for (;;) {
    const { rows } = await superuser.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query = 'COMMIT'`,
      [database],
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const entries = async (client: pg.Client) => (await client.query<{ external_id: string }>('SELECT external_id FROM entries ORDER BY external_id')).rows.map((row) => row.external_id);
const linkedRows = async (client: pg.Client) =>
  (await client.query<{ row_number: number }>('SELECT row_number FROM batch_rows WHERE journal_id IS NOT NULL ORDER BY row_number')).rows.map((row) => row.row_number);

async function sendingBatch(database: string) {
  const store = workspaces.storeAs('fatou', database);
  const rows = checkedRows(3);
  await store.batches.create({ id: 'b1', fileName: 'pay.csv', fileHash: 'h1', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 0 });
  await store.batches.setState('b1', 'sending', 0);
  const claim = await store.batches.claimRows('b1', 'desk-1', 3, 60_000, 0);
  expect(claim.rows).toHaveLength(3);
  const write = (row: number) => store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: rows[row - 2]!.request!, currency: 'XAF', at: 1, batch: { id: 'b1', row } });
  return { store, write };
}

describe('workspace journal writes, group-committed', () => {
  it('resolves a pending entry only once committed; a refused write of the same group is undone alone', async () => {
    const { database, superuser } = await heldWorkspace();
    const { write } = await sendingBatch(database);
    const colleague = await workspaces.connectAs('kofi', database);
    await superuser.query('SELECT pg_advisory_lock($1)', [LOCK]);
    // Row 2 twice in one turn: the second is refused (the row has its entry), the others commit.
    const writes = [write(2), write(3), write(2)];
    let resolved = 0;
    for (const w of writes) void w.then(() => (resolved += 1), () => undefined);
    let whileHeld: { resolved: number; seen: string[] };
    try {
      await commitWaiting(superuser, database);
      await new Promise((resolve) => setImmediate(resolve));
      whileHeld = { resolved, seen: await entries(colleague) };
    } finally {
      await superuser.query('SELECT pg_advisory_unlock($1)', [LOCK]);
    }
    expect(whileHeld).toEqual({ resolved: 0, seen: [] });
    const results = await Promise.allSettled(writes);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    // The same row's payout written twice: the journal's guard refuses it (its external id is in flight), alone.
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(ExternalIdKnown);
    expect(await entries(colleague)).toEqual(['B-1', 'B-2']);
    expect(await linkedRows(colleague)).toEqual([2, 3]);
  });

  it('rejects every write of a group whose connection is lost at COMMIT: no entry, no row linked, nothing half-written', async () => {
    const { database, superuser } = await heldWorkspace();
    const { store, write } = await sendingBatch(database);
    await superuser.query('SELECT pg_advisory_lock($1)', [LOCK]);
    // Settled at once: the writes reject while the terminate's own answer is on its way, and a
    // rejection nobody handles by then is an unhandled rejection (vitest fails the run).
    const writes = Promise.allSettled([write(2), write(3), write(4)]);
    let results: PromiseSettledResult<string>[];
    try {
      await superuser.query('SELECT pg_terminate_backend($1)', [await commitWaiting(superuser, database)]);
      results = await writes;
    } finally {
      await superuser.query('SELECT pg_advisory_unlock($1)', [LOCK]);
    }
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await entries(superuser)).toEqual([]);
    expect(await linkedRows(superuser)).toEqual([]);
    // The rows were never written: the same desktop writes them on a fresh connection.
    expect(await Promise.all([write(2), write(3), write(4)])).toHaveLength(3);
    expect((await store.batches.counts('b1')).counts.pending).toBe(3);
  });
});
