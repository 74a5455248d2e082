/**
 * A Local sandbox batch is sent from its own desktop only (workspace migration 50;
 * docs/decisions/local-sandbox-batch-stays-on-its-desktop.md), in raw SQL as the finance login that
 * tries, on the desktop it names (`paydesk.desktop`, as a console's startup option does): another
 * desktop's move to sending, row claim and row entry are refused with PD050 whatever the login; the
 * batch's own desktop's are accepted; the desktop is the database's stamp, never the client's; a
 * batch or a connection with no desktop goes by the login that imported the batch.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { LOCAL_SANDBOX_BATCH_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { LOCAL_SANDBOX_PROFILE_ID } from '../../shared/api';
import type { StoragePort } from '../../electron/console/storage/port';
import { claimRow, insertRowEntry } from './gate-helpers';
import { checkedRows, PROFILE } from './fixtures';

const A = `desktop-${randomUUID()}`;
const B = `desktop-${randomUUID()}`;
const LOCAL = { id: LOCAL_SANDBOX_PROFILE_ID, name: 'Local sandbox', environment: 'sandbox' as const };

let workspaces: TestWorkspaces;
let database: string;
let root: pg.Client;
const clients: pg.Client[] = [];

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.end();
  await workspaces.stop();
});

/** A raw connection as `person`, naming `desktop` as a console does (none: a script's). */
async function rawAs(person: Person, desktop: string | null): Promise<pg.Client> {
  const client = await workspaces.connectAs(person, database);
  clients.push(client);
  if (desktop) await client.query(`SELECT set_config('paydesk.desktop', $1, false)`, [desktop]);
  return client;
}

async function sendingBatch(store: StoragePort, id: string, profile = LOCAL): Promise<void> {
  await store.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(3), at: 1 });
  await store.batches.setState(id, 'sending', 1);
}

const refusedAs = (code: string) => expect.objectContaining({ code });
const desktopOf = async (batchId: string) => (await root.query<{ desktop_id: string | null }>('SELECT desktop_id FROM batches WHERE id = $1', [batchId])).rows[0]!.desktop_id;

describe('a Local sandbox batch on the workspace', () => {
  it('is stamped with the desktop that made it; another desktop (same login or not) claims no row and writes no row entry; its own desktop does', async () => {
    await sendingBatch(workspaces.storeAs('fatou', database, A), 'ls-1');
    expect(await desktopOf('ls-1')).toBe(A);
    const fatouOnB = await rawAs('fatou', B);
    const kofiOnB = await rawAs('kofi', B);
    await expect(claimRow(fatouOnB, 'ls-1', 2)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    await expect(claimRow(kofiOnB, 'ls-1', 2)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    await expect(insertRowEntry(fatouOnB, 'ls-1-b', 'ls-1', 2)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    const fatouOnA = await rawAs('fatou', A);
    expect((await claimRow(fatouOnA, 'ls-1', 2)).rowCount).toBe(1);
    await expect(insertRowEntry(fatouOnA, 'ls-1-a', 'ls-1', 2)).resolves.toBeTruthy();
    // Another login on the same desktop uses the same engine: it may send the batch too.
    const kofiOnA = await rawAs('kofi', A);
    expect((await claimRow(kofiOnA, 'ls-1', 3)).rowCount).toBe(1);
    const { rows } = await root.query<{ n: number }>(`SELECT count(*)::int AS n FROM entries WHERE batch_id = 'ls-1'`);
    expect(rows[0]!.n).toBe(1);
  });

  it('is not moved to sending from another desktop (Start, Resume, a raw UPDATE forging who made it); Pause is; its own desktop sends it again', async () => {
    await sendingBatch(workspaces.storeAs('fatou', database, A), 'ls-2');
    const kofiOnB = await rawAs('kofi', B);
    expect((await kofiOnB.query(`UPDATE batches SET state = 'paused' WHERE id = 'ls-2'`)).rowCount).toBe(1);
    await expect(kofiOnB.query(`UPDATE batches SET state = 'sending' WHERE id = 'ls-2'`)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    await expect(kofiOnB.query(`UPDATE batches SET state = 'sending', created_by = 'kofi', desktop_id = '${B}' WHERE id = 'ls-2'`)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    // The desktop is never the client's: naming it changes nothing.
    await kofiOnB.query(`UPDATE batches SET desktop_id = '${B}' WHERE id = 'ls-2'`);
    expect(await desktopOf('ls-2')).toBe(A);
    const fatouOnA = await rawAs('fatou', A);
    expect((await fatouOnA.query(`UPDATE batches SET state = 'sending' WHERE id = 'ls-2'`)).rowCount).toBe(1);
  });

  it('is stamped by the database, not by the INSERT, and stamped again when moved to another profile', async () => {
    const kofiOnB = await rawAs('kofi', B);
    await kofiOnB.query(
      `INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at, desktop_id)
       VALUES ('ls-3', 'f.csv', 'ls-3', 'draft', 'p1', 'Acme', 'sandbox', 1, 1, 1, $1)`,
      [A],
    );
    expect(await desktopOf('ls-3')).toBe(B);
    // Confirmed onto the Local sandbox on desktop A: it is desktop A's now, and B may not start it.
    const kofiOnA = await rawAs('kofi', A);
    await kofiOnA.query(`UPDATE batches SET profile_id = 'local-sandbox', profile_name = 'Local sandbox' WHERE id = 'ls-3'`);
    expect(await desktopOf('ls-3')).toBe(A);
    await expect(kofiOnB.query(`UPDATE batches SET state = 'sending' WHERE id = 'ls-3'`)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
  });

  it('goes by the login that imported it when the batch or the connection names no desktop', async () => {
    await sendingBatch(workspaces.storeAs('fatou', database), 'ls-4');
    expect(await desktopOf('ls-4')).toBeNull();
    await expect(claimRow(await rawAs('kofi', A), 'ls-4', 2)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    expect((await claimRow(await rawAs('fatou', B), 'ls-4', 2)).rowCount).toBe(1);
    // Who imported it is read as it was, not as the UPDATE says.
    const kofi = await rawAs('kofi', null);
    await kofi.query(`UPDATE batches SET state = 'paused' WHERE id = 'ls-4'`);
    await expect(kofi.query(`UPDATE batches SET state = 'sending', created_by = 'kofi' WHERE id = 'ls-4'`)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    await sendingBatch(workspaces.storeAs('fatou', database, A), 'ls-5');
    await expect(claimRow(await rawAs('kofi', null), 'ls-5', 2)).rejects.toEqual(refusedAs(LOCAL_SANDBOX_BATCH_SQLSTATE));
    expect((await claimRow(await rawAs('fatou', null), 'ls-5', 2)).rowCount).toBe(1);
  });

  it('is told to the console as another desktop\'s (sandboxElsewhereBy), and a shared profile\'s batch is sent from any desktop', async () => {
    const onB = workspaces.storeAs('kofi', database, B);
    expect((await onB.batches.summary('ls-1'))!.sandboxElsewhereBy).toBe('fatou');
    expect((await workspaces.storeAs('kofi', database, A).batches.summary('ls-1'))!.sandboxElsewhereBy).toBeUndefined();
    expect((await onB.batches.list()).find((batch) => batch.id === 'ls-1')!.sandboxElsewhereBy).toBe('fatou');
    await sendingBatch(workspaces.storeAs('fatou', database, A), 'shared', PROFILE);
    expect((await onB.batches.summary('shared'))!.sandboxElsewhereBy).toBeUndefined();
    expect((await claimRow(await rawAs('kofi', B), 'shared', 2)).rowCount).toBe(1);
  });
});
