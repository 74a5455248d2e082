/**
 * A colleague's console starting while a desktop sends a batch (issue 24, item 4;
 * docs/decisions/batch-runs-show-life.md). On a team workspace a console's start marks `sending`
 * batches interrupted only when no desktop has shown life on them for a lease: desktop A's run,
 * held between claims (no row leased at that instant), keeps its batch `sending` when desktop B
 * starts, and finishes it; a run that stopped beating is found dead and its batch interrupted.
 * Runs leaving: the last one out writes the batch's end, never one while another still sends.
 *
 * Nothing here waits on time: A's first claim is held by the test (a gate in its store), the
 * live run's lease is a minute, and a dead run is one stamped with a lease of 0 ms.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { batchCsv, batchReaches } from './batch-helpers';
import { expectOk, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 60_000);
afterAll(() => workspaces?.stop());

/** A's store, its first row claim held until the test opens the gate: A is sending and holds no row. */
function gated(store: StoragePort) {
  let reached!: () => void;
  let open!: () => void;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const gate = new Promise<void>((resolve) => (open = resolve));
  const claimRows: StoragePort['batches']['claimRows'] = async (...args) => {
    reached();
    await gate;
    return store.batches.claimRows(...args);
  };
  return { store: { ...store, batches: { ...store.batches, claimRows } } as StoragePort, atGate, open };
}

it('a console starting while another desktop sends between claims leaves the batch sending, and that desktop finishes it', async () => {
  const a = gated(workspaces.storeAs('fatou', database));
  const desktopA = await startRuntime({ engine: { settleMs: 0 }, openStorage: async () => a.store, batchClaims: { leaseMs: 60_000, watchMs: 50 } });
  try {
    const imported = expectOk(await desktopA.handlers['batches:import']({ fileName: 'team.csv', text: batchCsv(4, { phone: () => '+237670000010' }), paymentMethod: 'momo_cm' }));
    const batchId = imported.batch.id;
    const { confirmationToken } = expectOk(await desktopA.handlers['batches:prepare']({ batchId }));
    const ended = batchReaches(desktopA, batchId, ['done', 'interrupted', 'cancelled', 'paused']);
    expectOk(await desktopA.handlers['batches:start']({ batchId, confirmationToken, concurrency: 2 }));
    await a.atGate;
    // A's run is sending and holds no row lease at this instant.
    const kofi = workspaces.storeAs('kofi', database);
    expect((await kofi.batches.summary(batchId))?.state).toBe('sending');
    expect(await kofi.batches.rowsInState(batchId, ['not_sent'])).toHaveLength(4);

    // B, a colleague's console, starts on the same workspace: its start reads A's run as alive.
    const desktopB = await startRuntime({ engine: false, openStorage: async () => workspaces.storeAs('kofi', database) });
    try {
      const info = expectOk(await desktopB.handlers['app:info']({}));
      expect((info.notices ?? []).map((notice) => notice.code)).not.toContain('BATCH_INTERRUPTED');
      expect(await kofi.batches.markInterrupted(Date.now())).not.toContain(batchId);
      expect((await kofi.batches.summary(batchId))?.state).toBe('sending');
    } finally {
      await desktopB.close();
      rmSync(desktopB.dir, { recursive: true, force: true });
    }

    // A carries on and ends the batch.
    a.open();
    expect((await ended).state).toBe('done');
    const done = (await kofi.batches.summary(batchId))!;
    expect(done.state).toBe('done');
    expect(done.counts).toMatchObject({ rows: 4, accepted: 4, notSent: 0, pending: 0, unknown: 0 });
    // A's run left when it ended: nothing of it stays alive.
    const sql = await workspaces.connectAs('tester', database);
    try {
      expect((await sql.query('SELECT run FROM batch_runs')).rows).toEqual([]);
    } finally {
      await sql.end();
    }
  } finally {
    a.open(); // a failed assertion above must not leave A's run waiting at the gate
    await desktopA.close();
    rmSync(desktopA.dir, { recursive: true, force: true });
  }
}, 60_000);

/** A `sending` batch with no row leased, made by fatou's desktop. */
async function sendingBatch(store: StoragePort, id: string): Promise<void> {
  await store.batches.create({ id, fileName: `${id}.csv`, fileHash: `hash-${id}`, profile: { id: 'p', name: 'Team', environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 1, retryOf: null, rows: [], at: 1_000 });
  await store.batches.setState(id, 'sending', 1_100, { started: true });
}

it('a start marks a sending batch interrupted only once no run of it has shown life for a lease', async () => {
  const fatou = workspaces.storeAs('fatou', database);
  const kofi = workspaces.storeAs('kofi', database);
  await sendingBatch(fatou, 'bt-alive');
  await sendingBatch(fatou, 'bt-dead');
  await fatou.batches.keepRunAlive!('bt-alive', 'fatou/run-1', 60_000);
  // Its last beat a lease ago: a lease of 0 ms has already run out.
  await fatou.batches.keepRunAlive!('bt-dead', 'fatou/run-2', 0);

  // kofi's console starts: the dead run's batch is interrupted, the live one's left sending.
  const interrupted = await kofi.batches.markInterrupted(2_000);
  expect(interrupted).toContain('bt-dead');
  expect(interrupted).not.toContain('bt-alive');
  expect((await kofi.batches.summary('bt-alive'))?.state).toBe('sending');
  expect((await kofi.batches.summary('bt-dead'))?.state).toBe('interrupted');

  // The run beating again after a lapse counts as alive again; once it has left, a start interrupts.
  await fatou.batches.keepRunAlive!('bt-alive', 'fatou/run-1', 60_000);
  expect(await kofi.batches.markInterrupted(2_100)).not.toContain('bt-alive');
  expect(await fatou.batches.leaveRun!('bt-alive', 'fatou/run-1')).toBe(false);
  expect(await kofi.batches.markInterrupted(2_200)).toContain('bt-alive');
});

it('of two runs of a batch, the first to leave finds the other still sending; the last finds none', async () => {
  const fatou = workspaces.storeAs('fatou', database);
  const kofi = workspaces.storeAs('kofi', database);
  await sendingBatch(fatou, 'bt-two');
  await fatou.batches.keepRunAlive!('bt-two', 'fatou/run-3', 60_000);
  await kofi.batches.keepRunAlive!('bt-two', 'kofi/run-1', 60_000);
  expect(await fatou.batches.leaveRun!('bt-two', 'fatou/run-3')).toBe(true);
  // kofi's run alone: still not interrupted by a start.
  expect(await fatou.batches.markInterrupted(3_000)).not.toContain('bt-two');
  expect(await kofi.batches.leaveRun!('bt-two', 'kofi/run-1')).toBe(false);
  // A dead run does not count as another sender.
  await fatou.batches.keepRunAlive!('bt-two', 'fatou/run-4', 0);
  await kofi.batches.keepRunAlive!('bt-two', 'kofi/run-2', 60_000);
  expect(await kofi.batches.leaveRun!('bt-two', 'kofi/run-2')).toBe(false);
});

it('a fault on one desktop stops its own run only while another desktop sends the batch; alone, it interrupts the batch', async () => {
  const fatou = workspaces.storeAs('fatou', database);
  const kofi = workspaces.storeAs('kofi', database);
  // A's store fails at its first row claim (the database unreachable for this desktop only).
  const claimRows: StoragePort['batches']['claimRows'] = () => Promise.reject(new Error('connection lost'));
  const desktopA = await startRuntime({ engine: { settleMs: 0 }, openStorage: async () => ({ ...fatou, batches: { ...fatou.batches, claimRows } }) as StoragePort, batchClaims: { leaseMs: 60_000, watchMs: 50 } });
  try {
    const sendOnA = async (tag: string) => {
      const imported = expectOk(await desktopA.handlers['batches:import']({ fileName: `${tag}.csv`, text: batchCsv(2, { phone: () => '+237670000010', tag }), paymentMethod: 'momo_cm' }));
      const batchId = imported.batch.id;
      const { confirmationToken } = expectOk(await desktopA.handlers['batches:prepare']({ batchId }));
      return { batchId, start: () => desktopA.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }) };
    };

    // kofi's desktop is sending the first batch (its run beats); A's fault leaves it sending.
    const shared = await sendOnA('Shared');
    await kofi.batches.keepRunAlive!(shared.batchId, 'kofi/run-9', 60_000);
    expectOk(await shared.start());
    await desktopA.batchRunner.settled(shared.batchId);
    expect((await kofi.batches.summary(shared.batchId))?.state).toBe('sending');
    // kofi's run leaves last: it finds no other run (A's left on its fault).
    expect(await kofi.batches.leaveRun!(shared.batchId, 'kofi/run-9')).toBe(false);

    // A alone: its fault interrupts the batch, for Resume.
    const alone = await sendOnA('Alone');
    expectOk(await alone.start());
    await desktopA.batchRunner.settled(alone.batchId);
    expect((await kofi.batches.summary(alone.batchId))?.state).toBe('interrupted');
  } finally {
    await desktopA.close();
    rmSync(desktopA.dir, { recursive: true, force: true });
  }
}, 60_000);
