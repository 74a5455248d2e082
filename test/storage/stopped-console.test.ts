/**
 * A desktop whose console stopped without leaving (killed, crashed) and started again within the
 * lease (docs/decisions/restart-ends-own-stopped-runs.md): its earlier console's runs cannot be
 * alive, so the restart ends them and frees their claims at once, rows in flight made outcome
 * unknown (looked up before anything is sent again), and a start then interrupts the batch unless
 * another desktop still sends it. Only the login's own runs and claims; the record of the
 * desktop's consoles never takes a running process for stopped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLES_FILE, processAlive, takeConsoleHolder } from '../../electron/console/batch/console-holder';
import { CONSOLE_STOPPED_MESSAGE } from '../../electron/console/storage/batch-runs-port';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 60_000);
afterAll(() => workspaces?.stop());

const A = 'console-11111111-1111-4111-8111-111111111111';
const B = 'console-22222222-2222-4222-8222-222222222222';

/** A `sending` batch of `rows` rows; fatou's console `holder` runs it (alive a minute) and holds its first two rows, the first in flight. */
async function heldBatch(fatou: StoragePort, id: string, holder: string): Promise<void> {
  await fatou.batches.create({ id, fileName: `${id}.csv`, fileHash: `hash-${id}`, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(4, { prefix: id }), at: 1_000 });
  await fatou.batches.setState(id, 'draft', 1_050, { profile: PROFILE });
  await fatou.batches.setState(id, 'sending', 1_100, { started: true });
  await fatou.batches.keepRunAlive!(id, `${holder}/run-1`, 60_000);
  const claim = await fatou.batches.claimRows(id, `${holder}/1`, 2, 60_000, 1_200);
  expect(claim.rows).toHaveLength(2);
  const first = claim.rows[0]!;
  await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: first.request!, currency: 'XAF', at: 1_300, batch: { id, row: first.rowNumber } });
}

describe('a restarted desktop ends its stopped console', () => {
  it('removes its runs, frees its claims, makes the row in flight outcome unknown; a start then interrupts the batch', async () => {
    const fatou = workspaces.storeAs('fatou', database);
    const kofi = workspaces.storeAs('kofi', database);
    await heldBatch(fatou, 'bt-restart', A);
    // Alive by its heartbeat and its leases: today a start leaves it sending.
    expect(await kofi.batches.markInterrupted(2_000)).not.toContain('bt-restart');

    // Another login cannot end fatou's console (row-level security): nothing changes.
    expect(await kofi.batches.endStoppedConsoles!([A], 2_100)).toEqual([]);
    expect(await kofi.batches.markInterrupted(2_150)).not.toContain('bt-restart');
    expect((await kofi.batches.counts('bt-restart')).counts).toMatchObject({ pending: 1, unknown: 0 });

    // Another console of fatou's (B) is not touched by ending A.
    await fatou.batches.keepRunAlive!('bt-restart', `${B}/run-1`, 0);
    const lost = await fatou.batches.endStoppedConsoles!([A], 2_200);
    expect(lost).toEqual([{ batchId: 'bt-restart', rowNumber: 2, journalId: expect.any(String) }]);
    const sql = await workspaces.connectAs('tester', database);
    try {
      expect((await sql.query('SELECT run FROM batch_runs ORDER BY run')).rows).toEqual([{ run: `${B}/run-1` }]);
      expect((await sql.query(`SELECT count(*)::int AS n FROM batch_rows WHERE claim_holder IS NOT NULL OR lease_until IS NOT NULL`)).rows).toEqual([{ n: 0 }]);
      const { rows: timeline } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM timeline WHERE message = $1', [CONSOLE_STOPPED_MESSAGE]);
      expect(timeline).toEqual([{ n: 1 }]);
    } finally {
      await sql.end();
    }
    // The row in flight is looked up before anything is sent again; the one not begun is free to send.
    const { counts } = await kofi.batches.counts('bt-restart');
    expect(counts).toMatchObject({ pending: 0, unknown: 1, notSent: 3 });
    expect((await kofi.batches.rowsInState('bt-restart', ['unknown'])).map((row) => row.rowNumber)).toEqual([2]);
    // No run alive and no lease: a start interrupts it (resumable).
    expect(await kofi.batches.markInterrupted(2_300)).toContain('bt-restart');
    expect((await kofi.batches.summary('bt-restart'))?.state).toBe('interrupted');
    // Ending it again finds nothing.
    expect(await fatou.batches.endStoppedConsoles!([A], 2_400)).toEqual([]);
  });

  it('leaves the batch sending when another desktop\'s run is alive: that desktop looks the row up', async () => {
    const fatou = workspaces.storeAs('fatou', database);
    const kofi = workspaces.storeAs('kofi', database);
    await heldBatch(fatou, 'bt-shared', B);
    await kofi.batches.keepRunAlive!('bt-shared', 'console-kofi/run-1', 60_000);
    expect(await fatou.batches.endStoppedConsoles!([B], 3_000)).toHaveLength(1);
    expect(await fatou.batches.markInterrupted(3_100)).not.toContain('bt-shared');
    expect((await kofi.batches.rowsInState('bt-shared', ['unknown'])).map((row) => row.rowNumber)).toEqual([2]);
  });
});

describe('the record of a desktop\'s consoles', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-consoles-'));
    dirs.push(dir);
    return dir;
  };
  const warnings: string[] = [];
  const logger = { info: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined };

  it('names the earlier console stopped only once its process is gone, and forgets it once ended or closed', () => {
    const dir = folder();
    const first = takeConsoleHolder(dir, logger, () => false);
    expect(first.stopped).toEqual([]);
    // Its process still running (a second console on the folder): nothing is taken for stopped.
    expect(takeConsoleHolder(dir, logger, () => true).stopped).toEqual([]);
    // Its process gone: the earlier console stopped.
    const second = takeConsoleHolder(dir, logger, () => false);
    expect(second.stopped).toEqual([first.holder]);
    // Not ended yet (the workspace away) and this one stops too: the next names both.
    const third = takeConsoleHolder(dir, logger, () => false);
    expect([...third.stopped].sort()).toEqual([first.holder, second.holder].sort());
    third.ended(third.stopped);
    third.close();
    expect(takeConsoleHolder(dir, logger, () => false).stopped).toEqual([]);
  });

  it('tells a running process from one that has ended', () => {
    expect(processAlive(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '']);
    expect(ended.status).toBe(0);
    expect(processAlive(ended.pid!)).toBe(false);
  });

  it('reads a damaged record as empty, says so in the log, and trusts no id it did not make', () => {
    const dir = folder();
    writeFileSync(join(dir, CONSOLES_FILE), '{not json');
    expect(takeConsoleHolder(dir, logger, () => false).stopped).toEqual([]);
    expect(warnings.some((warning) => /not valid JSON/.test(warning))).toBe(true);
    writeFileSync(join(dir, CONSOLES_FILE), JSON.stringify({ pid: 1, current: "x' OR true --", stopped: ['%', A] }));
    expect(takeConsoleHolder(dir, logger, () => false).stopped).toEqual([A]);
    expect(JSON.parse(readFileSync(join(dir, CONSOLES_FILE), 'utf8'))).toMatchObject({ pid: process.pid, stopped: [A] });
  });
});
