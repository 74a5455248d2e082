/**
 * A team workspace that goes wrong after it was opened (issue 24 item 7), on a real PostgreSQL
 * with password logins read from the real OS keychain (run under scripts/with-keyring.sh):
 * a role that may not write, a connection cut while a claim is held, the server stopped while a
 * write is half-way. Money rule: nothing is kept to send later while the database is away;
 * sending stops, what was read stays readable, and work resumes from what the database holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault, type Vault } from '../../electron/console/vault';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { poolConfig } from '../../electron/console/storage/postgres/connection';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { openWorkspaceSession, WorkspaceFaultError, type WorkspaceSession } from '../../electron/console/storage/postgres/workspace-session';
import { forgetWorkspacePassword, saveWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import type { WorkspaceConnection } from '../../electron/console/storage/postgres/connection';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';
import { expectFault, expectNoSecret } from './session-helpers';

let workspace: PasswordWorkspace;
let vault: Vault;
const sessions: WorkspaceSession[] = [];
const saved: WorkspaceConnection[] = [];
const log: string[] = [];

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
  vault = createVault();
}, 120_000);
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
  for (const connection of saved) await forgetWorkspacePassword(vault, connection);
  await workspace?.stop();
});

const secrets = () => Object.values(workspace.passwords);

/** A new, migrated workspace database on the server. */
async function freshWorkspace(name: string): Promise<string> {
  const root = await workspace.owner('postgres');
  await root.query(`CREATE DATABASE ${name}`);
  await migrateWorkspace(await workspace.owner(name));
  return name;
}

/** Opens `database` as `login`, its password saved in the OS keychain first. */
async function open(login: string, database: string): Promise<WorkspaceSession> {
  const connection = workspace.connection(login, { database });
  await saveWorkspacePassword(vault, connection, workspace.passwords[login]!);
  saved.push(connection);
  const session = await openWorkspaceSession({ connection, vault, log: (line) => log.push(line) });
  sessions.push(session);
  return session;
}

/** Waits for a state of the server (never for a fixed time); fails naming what never came. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

/** Waits until a write of finance_demo on `database` waits on a lock (asked outside the locking transaction: its view of pg_stat_activity is fixed). */
async function waitsOnLock(database: string): Promise<void> {
  const watcher = await workspace.owner(database);
  await until('the batch write waits on the lock', async () => (await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = 'finance_demo' AND datname = $1 AND wait_event_type = 'Lock'`, [database])).rows[0].n === 1);
  await watcher.end();
}

const batchInput = (id: string, rows: number) => ({ id, fileName: `${id}.csv`, fileHash: id, profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(rows), at: 0 });

describe('a workspace that goes wrong once open', () => {
  it('refuses a support login writing an entry (NO_PERMISSION), writes nothing, and stays open for reading', async () => {
    const database = await freshWorkspace('team_roles');
    const support = await open('support_demo', database);
    const entry = { profile: PROFILE, kind: 'payout' as const, request: payoutRequest({ external_id: 'SUP-1' }), currency: 'XAF', at: 1 };
    await expectFault(
      support.write((store) => store.journal.writeRequest(entry)),
      'WORKSPACE_NO_PERMISSION',
      secrets(),
    );
    expect(support.state).toBe('open');
    expect(await support.read('batches', (store) => store.batches.list())).toEqual({ value: [], fresh: true });
    const owner = await workspace.owner(database);
    expect((await owner.query('SELECT count(*)::int AS n FROM entries')).rows[0].n).toBe(0);
  });

  it('stops sending when the connection holding a claim is cut: the lease is not renewed, its row in flight becomes outcome unknown', async () => {
    const database = await freshWorkspace('team_claim');
    const fatou = await open('finance_demo', database);
    const lost: string[] = [];
    fatou.onLost((why) => lost.push(why.code));
    await fatou.write((store) => store.batches.create(batchInput('payday', 3)));
    await fatou.write((store) => store.batches.setState('payday', 'sending', 0));
    const LEASE = 1_500;
    const claim = await fatou.write((store) => store.batches.claimRows('payday', 'desk-fatou', 2, LEASE, 0));
    const inFlight = claim.rows[0]!;
    // Its pending entry is written, so its POST may have left before the connection was cut.
    const journalId = await fatou.write((store) => store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: inFlight.request!, currency: 'XAF', at: 1, batch: { id: 'payday', row: inFlight.rowNumber } }));
    const owner = await workspace.owner(database);
    const leases = async () => (await owner.query('SELECT row_number, lease_until FROM batch_rows WHERE claim_holder IS NOT NULL ORDER BY row_number')).rows;
    const held = await leases();
    expect(held.map((row) => row.row_number)).toEqual(claim.rows.map((row) => row.rowNumber));

    // Every connection of this desktop ended by the server, waited for until gone.
    await owner.query(`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE usename = 'finance_demo' AND datname = $1`, [database]);
    await expectFault(
      fatou.write((store) => store.batches.renewClaims('payday', 'desk-fatou', LEASE, 2)),
      'WORKSPACE_CONNECTION_LOST',
      secrets(),
    );
    expect([fatou.state, lost]).toEqual(['lost', ['WORKSPACE_CONNECTION_LOST']]);
    // Lost: the next renewal is not even tried, though the server is up and a new connection would work.
    let tried = false;
    const again = fatou.write((store) => {
      tried = true;
      return store.batches.renewClaims('payday', 'desk-fatou', LEASE, 3);
    });
    await expectFault(again, 'WORKSPACE_CONNECTION_LOST', secrets());
    expect(tried).toBe(false);
    expect(await leases()).toEqual(held);
    // What was read stays readable: the server is there, so it is read again, fresh.
    const counts = await fatou.read('payday', (store) => store.batches.counts('payday'));
    expect([counts.fresh, counts.value.counts.pending, counts.value.counts.notSent]).toEqual([true, 1, 2]);

    await until('the lease ran out on the database clock', async () => (await owner.query('SELECT bool_and(lease_until <= paydesk_now_ms()) AS over FROM batch_rows WHERE claim_holder IS NOT NULL')).rows[0].over === true);
    await fatou.reconnect();
    expect(fatou.state).toBe('open');
    // Resuming from what the database holds: the row in flight is to be looked up, never claimed to send again.
    expect(await fatou.write((store) => store.batches.expireClaims(4))).toEqual([{ batchId: 'payday', rowNumber: inFlight.rowNumber, journalId }]);
    const entry = (await fatou.read('entry', (store) => store.journal.getEntry(journalId))).value;
    expect(entry?.state).toBe('outcome_unknown');
    const next = await fatou.write((store) => store.batches.claimRows('payday', 'desk-fatou', 5, 60_000, 5));
    expect(next.rows.map((row) => row.externalId)).toEqual(['B-2', 'B-3']);
    expect((await owner.query('SELECT count(*)::int AS n FROM entries')).rows[0].n).toBe(1);
    expectNoSecret(log, secrets());
  }, 60_000);

  it('fails a store write whose connection is cut inside its transaction, without throwing out of the process', async () => {
    // The port without a session (as the contract suite uses it): the pool must hear a connection in use end.
    const database = await freshWorkspace('team_cut');
    const store = workspaceStore(openWorkspacePool(poolConfig(workspace.connection('finance_demo', { database }), workspace.passwords.finance_demo)));
    const owner = await workspace.owner(database);
    await owner.query('BEGIN');
    await owner.query('LOCK TABLE batch_rows IN ACCESS EXCLUSIVE MODE');
    const cut = store.batches.create(batchInput('cut', 5));
    cut.catch(() => undefined);
    await waitsOnLock(database);
    await owner.query(`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE usename = 'finance_demo' AND datname = $1`, [database]);
    await expect(cut).rejects.toThrow(/terminat/);
    await owner.query('ROLLBACK');
    expect((await owner.query('SELECT count(*)::int AS n FROM batches')).rows[0].n).toBe(0);
    await store.close();
  });

  it('refuses writes while the server is down (nothing kept to send later), shows what was read, and finds nothing half-written when it returns', async () => {
    const database = await freshWorkspace('team_down');
    const fatou = await open('finance_demo', database);
    await fatou.write((store) => store.batches.create(batchInput('kept', 2)));
    const read = await fatou.read('batches', (store) => store.batches.list());
    expect(read.value.map((batch) => batch.id)).toEqual(['kept']);

    // A batch being written when the server stops: held half-way (its batch row in, its rows waiting on a lock).
    const owner = await workspace.owner(database);
    await owner.query('BEGIN');
    await owner.query('LOCK TABLE batch_rows IN ACCESS EXCLUSIVE MODE');
    const halfway = fatou.write((store) => store.batches.create(batchInput('half', 50)));
    halfway.catch(() => undefined);
    await waitsOnLock(database);
    workspace.stopServer();
    await expectFault(halfway, 'WORKSPACE_CONNECTION_LOST', secrets());
    expect(fatou.state).toBe('lost');

    // While it is away: a payout is refused at once, not kept; what was read is still shown, marked not fresh.
    let ran = false;
    const payout = { profile: PROFILE, kind: 'payout' as const, request: payoutRequest({ external_id: 'WHILE-DOWN' }), currency: 'XAF', at: 9 };
    await expectFault(
      fatou.write((store) => {
        ran = true;
        return store.journal.writeRequest(payout);
      }),
      'WORKSPACE_CONNECTION_LOST',
      secrets(),
    );
    const stale = await fatou.read('batches', (store) => store.batches.list());
    expect(stale).toEqual({ value: read.value, fresh: false, fault: expect.any(WorkspaceFaultError) });
    await expectFault(fatou.read('never read', (store) => store.batches.counts('kept')), 'WORKSPACE_CONNECTION_LOST', secrets());
    // Trying again while it is still away says the connection is lost (not "unreachable": it was open).
    await expectFault(fatou.reconnect(), 'WORKSPACE_CONNECTION_LOST', secrets());

    await workspace.startServer();
    // Back, but nothing resumes on its own: writes wait for the desktop to find the workspace again.
    await expectFault(
      fatou.write((store) => {
        ran = true;
        return store.journal.writeRequest(payout);
      }),
      'WORKSPACE_CONNECTION_LOST',
      secrets(),
    );
    expect(ran).toBe(false);
    const root = await workspace.owner(database);
    const held = await root.query(`SELECT (SELECT array_agg(id ORDER BY id) FROM batches) AS batches, (SELECT count(*)::int FROM batch_rows) AS rows, (SELECT count(*)::int FROM entries) AS entries`);
    expect(held.rows[0]).toEqual({ batches: ['kept'], rows: 2, entries: 0 });

    await fatou.reconnect();
    expect(fatou.state).toBe('open');
    expect((await fatou.read('batches', (store) => store.batches.list())).fresh).toBe(true);
    await fatou.write((store) => store.journal.writeRequest(payout));
    expect((await root.query('SELECT external_id FROM entries')).rows).toEqual([{ external_id: 'WHILE-DOWN' }]);
    expect(log.some((line) => line.includes('connection lost, sending stopped'))).toBe(true);
    expectNoSecret(log, secrets());
  }, 90_000);
});
