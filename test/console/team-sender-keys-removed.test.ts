/**
 * Issue 38: moving a team profile to the team sender removes its secret keys from the desktops'
 * keychains on their next start (electron/console/vault.ts removeKeysHeldBySender). A finance
 * desktop on a throwaway PostgreSQL workspace with the console tests' memory keyring: its secrets for
 * the moved profile are gone after a restart, those of a profile still held by the desktops stay
 * (a public key both use stays too), and the log names the profile, never a secret.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { LOCAL_SANDBOX_ID, type SettingsBackend, type SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { KEYCHAIN_SERVICE } from '../../electron/console/vault';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { tempDir } from './helpers';

const MOVING = 'team-moving';
const STAYING = 'team-staying';
const dir = tempDir('paydesk-sender-keys-');
let workspaces: TestWorkspaces;
let database: string;
const keyring = memoryKeyring();
let settingsDocument: SettingsDocument = {
  version: 1,
  activeProfileId: LOCAL_SANDBOX_ID,
  profiles: [],
  teamKeys: {
    [MOVING]: { paymentPublicKey: 'pk_shared_payment', payoutPublicKey: 'pk_moving_payout' },
    [STAYING]: { paymentPublicKey: 'pk_shared_payment', payoutPublicKey: 'pk_staying_payout' },
  },
};
const settingsBackend: SettingsBackend = { path: null, read: () => structuredClone(settingsDocument), write: (next) => void (settingsDocument = structuredClone(next)) };
const stored = (publicKey: string) => keyring(KEYCHAIN_SERVICE, publicKey).getPassword();

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(
    `INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES
       ($1, 'Moving', 'sandbox', 'https://api.example.com', 'SVC', 1, 'desktops'), ($2, 'Staying', 'sandbox', 'https://api.example.com', 'SVC', 1, 'desktops')`,
    [MOVING, STAYING],
  );
  await adele.end();
  keyring(KEYCHAIN_SERVICE, 'pk_shared_payment').setPassword('sk_shared_payment_SECRET');
  keyring(KEYCHAIN_SERVICE, 'pk_moving_payout').setPassword('sk_moving_payout_SECRET');
  keyring(KEYCHAIN_SERVICE, 'pk_staying_payout').setPassword('sk_staying_payout_SECRET');
}, 60_000);

afterAll(async () => {
  await workspaces?.stop();
});

async function startDesktop(): Promise<ConsoleRuntime> {
  return createConsoleRuntime({
    userDataDir: join(dir, 'desk-fatou'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend,
    keyring,
    openStorage: () => openWorkspaceStore(workspaces.server.config('fatou', database)),
  });
}

it('removes the secrets of a profile moved to the team sender at the desktop\'s next start, keeps the others, logs no secret', async () => {
  // Held by the desktops: a start removes nothing.
  await (await startDesktop()).close();
  expect(keyring.entries.size).toBe(3);

  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`UPDATE team_profiles SET keys_held_by = 'sender' WHERE id = $1`, [MOVING]);
  await adele.end();

  await (await startDesktop()).close();
  expect(stored('pk_moving_payout')).toBeNull();
  // Still the secret of a profile held by the desktops: kept.
  expect(stored('pk_shared_payment')).toBe('sk_shared_payment_SECRET');
  expect(stored('pk_staying_payout')).toBe('sk_staying_payout_SECRET');

  const log = readFileSync(join(dir, 'desk-fatou', 'logs', 'console.log'), 'utf8');
  expect(log).toContain('removed a secret key of a team profile now held by the team sender');
  expect(log).toContain(MOVING);
  expect(log).not.toContain('SECRET');
}, 60_000);
