/**
 * `npm run team:local`: a lasting workspace in a folder, with password logins over TCP, migrated,
 * one demo login per role; started again, the same port, logins and schema.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../electron/console/storage/postgres/migrations';
import { startLocalWorkspace, stopLocalWorkspace, type LocalWorkspace } from '../../electron/console/storage/postgres/local-workspace';
import { describeWorkspaceError } from '../../electron/console/storage/postgres/connection';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { makeTempDir } from '../temp-dir';
import { payoutRequest, PROFILE } from './fixtures';

const parent = makeTempDir('paydesk-team-local-');
// As root the server runs as `postgres`, which must be able to pass through the parent folder.
chmodSync(parent, 0o711);
const dir = join(parent, 'team-pg');
afterAll(() => {
  stopLocalWorkspace(dir);
});

async function asPerson(workspace: LocalWorkspace, login: string, password: string): Promise<pg.Client> {
  const client = new pg.Client({ host: workspace.host, port: workspace.port, user: login, password, database: workspace.database });
  await client.connect();
  return client;
}

describe('team:local', () => {
  it('starts a migrated workspace with one password login per role, and starts the same one again', async () => {
    const first = await startLocalWorkspace(dir, { durable: false });
    expect(first.migrated.at(-1)).toBe(PG_MIGRATIONS.at(-1)!.version);
    expect(first.people.map((person) => [person.login, person.role])).toEqual([
      ['finance_demo', 'paydesk_finance'],
      ['support_demo', 'paydesk_support'],
      ['admin_demo', 'paydesk_admin'],
      ['admin2_demo', 'paydesk_admin'],
      ['sender_demo', 'paydesk_sender'],
    ]);
    const support = first.people[1]!;
    const client = await asPerson(first, support.login, support.password);
    expect((await client.query('SELECT session_user AS who')).rows[0].who).toBe('support_demo');
    await expect(client.query(`INSERT INTO team_settings VALUES ('k', '1', 1)`)).rejects.toThrow(/permission denied/);
    await client.end();
    const refused = await asPerson(first, support.login, 'wrong password').then(
      () => null,
      (error: unknown) => error,
    );
    expect(describeWorkspaceError(refused).code).toBe('LOGIN_REFUSED');

    // A journal write goes through the group commit's own connections: they log in with the password too.
    const finance = first.people[0]!;
    const store = await openWorkspaceStore({ host: first.host, port: first.port, user: finance.login, password: finance.password, database: first.database });
    try {
      const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'PW-1' }), currency: 'XAF', at: 1 });
      expect((await store.journal.getEntry(id))?.state).toBe('pending');
    } finally {
      await store.close();
    }

    const again = await startLocalWorkspace(dir, { durable: false });
    expect({ port: again.port, migrated: again.migrated, passwords: again.people.map((p) => p.password) }).toEqual({ port: first.port, migrated: [], passwords: first.people.map((p) => p.password) });
  }, 60_000);

  it('moves to another port when its saved one has been taken by another program', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as AddressInfo).port;
    const other = join(parent, 'busy');
    mkdirSync(other, { mode: 0o700 });
    writeFileSync(join(other, 'port'), String(taken));
    try {
      const workspace = await startLocalWorkspace(other, { durable: false });
      expect(workspace.port).not.toBe(taken);
      expect(readFileSync(join(other, 'port'), 'utf8')).toBe(String(workspace.port));
    } finally {
      stopLocalWorkspace(other);
      busy.close();
    }
  }, 60_000);
});
