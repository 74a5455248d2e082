/**
 * Team profiles in the workspace (migration 33; docs/decisions/team-profiles.md): the port on
 * PostgreSQL (definitions only, who wrote them from session_user), this desktop's SQLite journal
 * answering "unavailable", and raw SQL as each role: admin writes, finance and support read, and
 * nobody can store a key there because the table has no column for one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { openJournal } from '../../electron/console/journal/entries';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import { TeamProfilesUnavailable } from '../../electron/console/storage/team-profiles-port';
import { makeTempDir } from '../temp-dir';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';

let workspaces: TestWorkspaces;
let database: string;
const clients: pg.Client[] = [];
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await workspaces.stop();
});

async function sql(person: Person): Promise<pg.Client> {
  const client = await workspaces.connectAs(person, database);
  clients.push(client);
  return client;
}

const TEAM_SANDBOX = { id: 'team-sandbox', name: 'Team sandbox', environment: 'sandbox' as const, baseUrl: 'https://sandbox.example.com/', headerWord: 'SVC' };
const INSERT = `INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at) VALUES ($1, 'Forged', 'live', 'https://evil.example.com/', 'SVC', 1)`;

describe('the port on a team workspace', () => {
  it('an admin saves, lists (by name), changes and removes definitions; who wrote them is session_user', async () => {
    const adele = workspaces.storeAs('adele', database).teamProfiles!;
    expect(adele.available).toBe(true);
    const saved = await adele.save(TEAM_SANDBOX, 1_000);
    expect(saved).toEqual({ ...TEAM_SANDBOX, updatedAt: 1_000, updatedBy: 'adele', keysHeldBy: 'desktops' });
    await adele.save({ id: 'a-live', name: 'Acme live', environment: 'live', baseUrl: 'https://api.example.com/', headerWord: 'ACME' }, 2_000);
    // Finance and support read the same list.
    for (const person of ['fatou', 'samuel'] as const) {
      expect((await workspaces.storeAs(person, database).teamProfiles!.list()).map((p) => p.name)).toEqual(['Acme live', 'Team sandbox']);
    }
    const changed = await adele.save({ ...TEAM_SANDBOX, name: 'Team sandbox (shared engine)' }, 3_000);
    expect(changed).toMatchObject({ name: 'Team sandbox (shared engine)', updatedAt: 3_000 });
    expect(await adele.remove('a-live')).toBe(true);
    expect(await adele.remove('a-live')).toBe(false);
    expect((await adele.list()).map((p) => p.id)).toEqual(['team-sandbox']);
  });

  it('the database refuses a definition that is not one: an environment, a URL, an empty name', async () => {
    const adele = workspaces.storeAs('adele', database).teamProfiles!;
    await expect(adele.save({ ...TEAM_SANDBOX, id: 'bad-env', environment: 'production' as never }, 1)).rejects.toThrow(/team_profiles_environment_check/);
    await expect(adele.save({ ...TEAM_SANDBOX, id: 'bad-url', baseUrl: 'ftp://x' }, 1)).rejects.toThrow(/team_profiles_base_url_check/);
    await expect(adele.save({ ...TEAM_SANDBOX, id: 'bad-name', name: '' }, 1)).rejects.toThrow(/team_profiles_name_check/);
  });

  it('finance and support may not write through the port', async () => {
    for (const person of ['fatou', 'samuel'] as const) {
      const port = workspaces.storeAs(person, database).teamProfiles!;
      await expect(port.save({ ...TEAM_SANDBOX, id: `by-${person}` }, 1)).rejects.toThrow(/permission denied for table team_profiles/);
      await expect(port.remove('team-sandbox')).rejects.toThrow(/permission denied for table team_profiles/);
    }
  });
});

describe('raw SQL as each role (what a modified client could send)', () => {
  it('finance and support read; INSERT, UPDATE and DELETE are refused', async () => {
    for (const person of ['fatou', 'samuel'] as const) {
      const client = await sql(person);
      expect((await client.query('SELECT id FROM team_profiles')).rows).toEqual([{ id: 'team-sandbox' }]);
      await expect(client.query(INSERT, [`raw-${person}`])).rejects.toThrow(/permission denied for table team_profiles/);
      await expect(client.query(`UPDATE team_profiles SET base_url = 'https://evil.example.com/'`)).rejects.toThrow(/permission denied for table team_profiles/);
      await expect(client.query('DELETE FROM team_profiles')).rejects.toThrow(/permission denied for table team_profiles/);
    }
  });

  it('an admin writes, and the row says who, whatever the client claims', async () => {
    const client = await sql('adele');
    await client.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, updated_by) VALUES ('raw-admin', 'Raw', 'sandbox', 'http://127.0.0.1:1/', 'SVC', 5, 'fatou')`);
    expect((await client.query(`SELECT updated_by FROM team_profiles WHERE id = 'raw-admin'`)).rows).toEqual([{ updated_by: 'adele' }]);
    await client.query(`DELETE FROM team_profiles WHERE id = 'raw-admin'`);
  });

  it('row-level security still refuses a non-admin write when a grant is given by mistake', async () => {
    const root = await workspaces.server.connect(undefined, database);
    clients.push(root);
    await root.query('GRANT INSERT, UPDATE, DELETE ON team_profiles TO paydesk_finance');
    try {
      const fatou = await sql('fatou');
      await expect(fatou.query(INSERT, ['raw-granted'])).rejects.toThrow(/row-level security policy/);
      // An UPDATE or DELETE sees no row it may touch: nothing changes.
      expect((await fatou.query(`UPDATE team_profiles SET base_url = 'https://evil.example.com/'`)).rowCount).toBe(0);
      expect((await fatou.query('DELETE FROM team_profiles')).rowCount).toBe(0);
    } finally {
      await root.query('REVOKE INSERT, UPDATE, DELETE ON team_profiles FROM paydesk_finance');
    }
    expect((await root.query('SELECT id, base_url FROM team_profiles')).rows).toEqual([{ id: 'team-sandbox', base_url: TEAM_SANDBOX.baseUrl }]);
  });

  it('a login in no workspace role reads nothing', async () => {
    const root = await workspaces.server.connect(undefined, database);
    clients.push(root);
    await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'stranger') THEN CREATE ROLE stranger LOGIN; END IF; END $$`);
    const stranger = await workspaces.server.connect('stranger', database);
    clients.push(stranger);
    await expect(stranger.query('SELECT * FROM team_profiles')).rejects.toThrow(/permission denied for table team_profiles/);
  });

  it('has no column a key could go in: definitions only', async () => {
    const root = await workspaces.server.connect(undefined, database);
    clients.push(root);
    const { rows } = await root.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'team_profiles' ORDER BY ordinal_position`);
    expect(rows.map((row) => row.column_name)).toEqual(['id', 'name', 'environment', 'base_url', 'header_word', 'updated_at', 'updated_by', 'keys_held_by']); // who holds the keys (migration 48), never a key
  });
});

describe("this desktop's own journal (SQLite)", () => {
  it('has no team: an empty list, and writes refused as unavailable', async () => {
    const dir = makeTempDir('paydesk-team-profiles-');
    const store = sqliteStore(openJournal(join(dir, 'journal.db')), { settingsFile: join(dir, 'team-settings.json') });
    try {
      expect(store.teamProfiles!.available).toBe(false);
      expect(await store.teamProfiles!.list()).toEqual([]);
      await expect(store.teamProfiles!.save(TEAM_SANDBOX, 1)).rejects.toThrow(TeamProfilesUnavailable);
      await expect(store.teamProfiles!.remove('team-sandbox')).rejects.toThrow(/team workspace only/);
    } finally {
      await store.close();
    }
  });
});
