/**
 * Team profiles live across desktops (issue 24; docs/decisions/team-profiles-live.md): an admin on
 * desktop A adds, edits and removes a team profile; desktop B, on the same workspace and never
 * restarted, hears each change (workspace migration 36 NOTIFYs it at commit), reads the
 * definitions again and pushes `profiles:changed`, after which its screens list profiles again.
 * B's console knows the profile before anything lists it: `secrets:has` resolves a profile from
 * the definitions kept in memory, without reading the workspace (it said NOT_FOUND before).
 * No time is asserted: each step waits for B's push.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { expectFail, expectOk, nextEvent, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let a: ConsoleRuntime;
let b: ConsoleRuntime;

async function desktop(person: Person): Promise<ConsoleRuntime> {
  return startRuntime({ engine: false, keyring: memoryKeyring(), openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)) });
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  // The tests' admin also holds finance (an admin-only login cannot open the console yet).
  a = await desktop('tester');
  b = await desktop('fatou');
  await b.storage.changes.ready();
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await workspaces?.stop();
});

const TEAM = 'team-live';
const definition = { id: TEAM, name: 'Team live sandbox', baseUrl: 'https://sandbox.example.com/', environment: 'sandbox' as const, headerWord: 'SVC' };

async function namesOnB(): Promise<string[]> {
  return expectOk(await b.handlers['profiles:list']({})).profiles.filter((profile) => profile.scope === 'team').map((profile) => profile.name);
}

describe("a team profile changed on desktop A", () => {
  it('reaches desktop B without a restart: added, edited, removed', async () => {
    expectFail(await b.handlers['secrets:has']({ profileId: TEAM, keyType: 'payout' }), 'NOT_FOUND');

    // Added: B hears it and knows it before anything lists profiles.
    let pushed = nextEvent(b, 'profiles:changed', () => true);
    expectOk(await a.handlers['teamProfiles:save'](definition));
    await pushed;
    expect(expectOk(await b.handlers['secrets:has']({ profileId: TEAM, keyType: 'payout' }))).toEqual({ stored: false });
    expect(await namesOnB()).toEqual(['Team live sandbox']);

    // Edited: B's list shows the new name.
    pushed = nextEvent(b, 'profiles:changed', () => true);
    expectOk(await a.handlers['teamProfiles:save']({ ...definition, name: 'Team sandbox (renamed)' }));
    await pushed;
    expect(await namesOnB()).toEqual(['Team sandbox (renamed)']);

    // Removed: B no longer resolves it.
    pushed = nextEvent(b, 'profiles:changed', () => true);
    expect(expectOk(await a.handlers['teamProfiles:delete']({ id: TEAM }))).toEqual({ deleted: true });
    await pushed;
    expectFail(await b.handlers['secrets:has']({ profileId: TEAM, keyType: 'payout' }), 'NOT_FOUND');
    expect(await namesOnB()).toEqual([]);
  }, 60_000);

  it('is not a journal change: B\'s journal:changed pushes name no team profile', async () => {
    const heard: unknown[] = [];
    const off = b.on('journal:changed', (changed) => heard.push(changed));
    const pushed = nextEvent(b, 'profiles:changed', () => true);
    expectOk(await a.handlers['teamProfiles:save']({ ...definition, id: 'team-quiet' }));
    await pushed;
    off();
    // A profile travels as profiles:changed only: no journal push names it (as an entry or a setting).
    for (const push of heard as { entries: string[]; settings: string[] }[]) expect([...push.entries, ...push.settings]).not.toContain('team-quiet');
  }, 60_000);
});
