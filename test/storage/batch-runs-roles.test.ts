/**
 * A batch's runs by role, in raw SQL (issue 24 item 3; workspace migration 29,
 * docs/decisions/batch-runs-row-security.md): what a modified client could send. Everyone reads
 * the runs; a finance login adds and renews only its own runs, never further ahead than ten
 * minutes, removes its own runs and anyone's lapsed run (the protocol's clean-up), never another
 * login's live run; support and admin write none.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ALIVE_MAX_AHEAD_MS } from '../../electron/console/storage/postgres/schema-names';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: StoragePort;
let fatouSql: pg.Client;
let kofiSql: pg.Client;
let samuelSql: pg.Client;
let adeleSql: pg.Client;
let testerSql: pg.Client;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = workspaces.storeAs('fatou', database);
  await fatou.batches.create({ id: 'runs-1', fileName: 'r.csv', fileHash: 'r1', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: [], at: 1_000 });
  fatouSql = await workspaces.connectAs('fatou', database);
  kofiSql = await workspaces.connectAs('kofi', database);
  samuelSql = await workspaces.connectAs('samuel', database);
  adeleSql = await workspaces.connectAs('adele', database);
  testerSql = await workspaces.connectAs('tester', database);
}, 60_000);
afterAll(async () => {
  await Promise.all([fatouSql, kofiSql, samuelSql, adeleSql, testerSql].map((client) => client?.end()));
  await workspaces?.stop();
});

const denied = /permission denied/;
const policy = /row-level security/;
const SEQ = `(SELECT seq FROM batches WHERE id = 'runs-1')`;
const runs = async () => (await testerSql.query<{ run: string; login: string }>('SELECT run, login FROM batch_runs ORDER BY run')).rows;

describe('finance', () => {
  it('adds, renews and removes its own run through the port (the runner\'s protocol)', async () => {
    await fatou.batches.keepRunAlive!('runs-1', 'fatou/run-1', 60_000);
    await fatou.batches.keepRunAlive!('runs-1', 'fatou/run-1', 60_000);
    expect(await runs()).toEqual([{ run: 'fatou/run-1', login: 'fatou' }]);
    expect(await fatou.batches.leaveRun!('runs-1', 'fatou/run-1')).toBe(false);
    expect(await runs()).toEqual([]);
  });

  it('cannot add a run under another login, nor one alive further ahead than ten minutes', async () => {
    await expect(kofiSql.query(`INSERT INTO batch_runs (batch_seq, run, login, alive_until) SELECT ${SEQ}, 'forged', 'fatou', paydesk_now_ms() + 60000`)).rejects.toThrow(policy);
    await expect(kofiSql.query(`INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT ${SEQ}, 'pinned', paydesk_now_ms() + ${RUN_ALIVE_MAX_AHEAD_MS + 60_000}`)).rejects.toThrow(policy);
    expect(await runs()).toEqual([]);
  });

  it('cannot renew, move or remove another login\'s live run: the statements change nothing or are refused', async () => {
    await fatouSql.query(`INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT ${SEQ}, 'fatou/run-2', paydesk_now_ms() + 60000`);
    expect((await kofiSql.query(`UPDATE batch_runs SET alive_until = paydesk_now_ms() + 120000 WHERE run = 'fatou/run-2'`)).rowCount).toBe(0);
    expect((await kofiSql.query(`UPDATE batch_runs SET alive_until = 0 WHERE run = 'fatou/run-2'`)).rowCount).toBe(0);
    expect((await kofiSql.query(`DELETE FROM batch_runs WHERE run = 'fatou/run-2'`)).rowCount).toBe(0);
    // Nor take it over (its own run renamed to another login is refused too).
    await kofiSql.query(`INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT ${SEQ}, 'kofi/run-1', paydesk_now_ms() + 60000`);
    await expect(kofiSql.query(`UPDATE batch_runs SET login = 'fatou' WHERE run = 'kofi/run-1'`)).rejects.toThrow(policy);
    await expect(kofiSql.query(`UPDATE batch_runs SET alive_until = paydesk_now_ms() + ${RUN_ALIVE_MAX_AHEAD_MS + 60_000} WHERE run = 'kofi/run-1'`)).rejects.toThrow(policy);
    expect(await runs()).toEqual([
      { run: 'fatou/run-2', login: 'fatou' },
      { run: 'kofi/run-1', login: 'kofi' },
    ]);
  });

  it('removes another login\'s run once it has lapsed (leaveRun\'s clean-up), and its own', async () => {
    await fatouSql.query(`UPDATE batch_runs SET alive_until = paydesk_now_ms() - 1 WHERE run = 'fatou/run-2'`);
    expect((await kofiSql.query(`DELETE FROM batch_runs WHERE run IN ('fatou/run-2', 'kofi/run-1')`)).rowCount).toBe(2);
    expect(await runs()).toEqual([]);
  });
});

describe('support and admin', () => {
  it('read every run and write none', async () => {
    await fatouSql.query(`INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT ${SEQ}, 'fatou/run-3', paydesk_now_ms() + 60000`);
    for (const client of [samuelSql, adeleSql]) {
      expect((await client.query('SELECT run FROM batch_runs')).rows).toEqual([{ run: 'fatou/run-3' }]);
      await expect(client.query(`INSERT INTO batch_runs (batch_seq, run, alive_until) SELECT ${SEQ}, 'mine', paydesk_now_ms() + 60000`)).rejects.toThrow(denied);
      await expect(client.query(`UPDATE batch_runs SET alive_until = 0`)).rejects.toThrow(denied);
      await expect(client.query(`DELETE FROM batch_runs`)).rejects.toThrow(denied);
    }
    expect(await runs()).toEqual([{ run: 'fatou/run-3', login: 'fatou' }]);
  });
});
