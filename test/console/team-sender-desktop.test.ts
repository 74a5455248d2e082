/**
 * A finance desktop on a team profile whose keys are with the team sender (docs/team-sender.md):
 * its payout form (payouts:prepare, payouts:initiate) asks the sender instead of signing, never
 * reads a secret key (its keyring stays untouched), and returns the entry the sender wrote, paid
 * once at the engine. The same desktop on a profile whose keys are with the desktops still needs
 * its own keys (TEAM_KEYS_MISSING): nothing changed there. The engine over HTTP, a throwaway
 * PostgreSQL, the sender in this process (its process form is test/console/team-sender-batch.test.ts).
 * Waiting for the sender's answer listens on the workspace's change events: a few reads of the ask,
 * not one every 200 ms (a profile whose payouts the service holds a moment, behind a small proxy).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { LOCAL_SANDBOX_ID, type SettingsBackend, type SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { payoutBySender } from '../../electron/console/handlers/team-sender-send';
import { readKeysFile } from '../../electron/sender/keys-file';
import { startTeamSender, type TeamSender } from '../../electron/sender/sender';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { createAsks, recordPayoutPosts, type PayoutPost } from '../helpers/engine-posts';
import { memoryKeyring } from '../helpers/memory-keyring';
import { expectFail, expectOk, tempDir } from './helpers';

const HELD = 'team-by-sender';
const DESKS = 'team-by-desks';
/** Sender-held too, its base URL the proxy that holds each payout POST `slowMs` before the engine answers. */
const SLOW = 'team-by-sender-slow';
const dir = tempDir('paydesk-sender-desktop-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let sender: TeamSender;
let desktop: ConsoleRuntime;
let posts: PayoutPost[] = [];
const keyring = memoryKeyring();
const secretReads: string[] = [];
/** The desktop's reads of its asks (send_asks) while it waits for the sender's answer. */
let askReads = 0;
let proxy: Server;
let slowMs = 0;

function memorySettings(document: SettingsDocument): SettingsBackend {
  let stored = document;
  return { path: null, read: () => structuredClone(stored), write: (next) => void (stored = structuredClone(next)) };
}

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_desk') THEN CREATE ROLE sender_desk LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_desk');
  await root.end();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, variants: ['duplicates-accepted'] });
  posts = recordPayoutPosts(engine);
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const forward = async () => {
        const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)) as [string, string][]);
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${engine.api.url}${request.url}`, { method: request.method, headers, ...(body ? { body } : {}) });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      };
      setTimeout(() => void forward(), request.method === 'POST' ? slowMs : 0);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(
    `INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES
       ($1, 'By the sender', 'sandbox', $3, 'SVC', 1, 'sender'), ($2, 'By the desktops', 'sandbox', $3, 'SVC', 1, 'desktops'),
       ($4, 'By the sender, slow service', 'sandbox', $5, 'SVC', 1, 'sender')`,
    [HELD, DESKS, engine.api.url, SLOW, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`],
  );
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  const keysFile = join(dir, 'keys.json');
  const profileKeys = { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey };
  writeFileSync(keysFile, JSON.stringify({ profiles: { [HELD]: profileKeys, [SLOW]: profileKeys } }));
  chmodSync(keysFile, 0o600);
  sender = await startTeamSender({ userDataDir: join(dir, 'sender'), workspace: workspaces.server.config('sender_desk', database), keys: readKeysFile(keysFile), version: 'test', watchMs: 100, });

  // fatou's desktop: no key at all; every keychain read is recorded.
  const watched = ((service: string, account: string) => {
    const entry = keyring(service, account);
    return { ...entry, getPassword: () => (secretReads.push(account), entry.getPassword()) };
  }) as typeof keyring;
  desktop = await createConsoleRuntime({
    userDataDir: join(dir, 'desk-fatou'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend: memorySettings({ version: 1, activeProfileId: LOCAL_SANDBOX_ID, profiles: [] }),
    keyring: watched,
    client: { retry: { attempts: 1 } },
    openStorage: async () => {
      const store = await openWorkspaceStore(workspaces.server.config('fatou', database));
      const asks = store.sendAsks!;
      return { ...store, sendAsks: { ask: (input) => asks.ask(input), read: (id) => ((askReads += 1), asks.read(id)) } };
    },
  });
}, 60_000);

afterAll(async () => {
  await desktop?.close();
  await sender?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await engine?.stop();
  await workspaces?.stop();
});

const request = (externalId: string) => ({
  payment_method: 'momo_cm',
  amount: 4_200,
  phone_number: '+237670000042',
  customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' },
  description: 'Asked of the sender',
  external_id: externalId,
});

it('sends a payout of a sender-held profile through the sender: no key read on the desktop, one POST, the sender\'s entry returned', async () => {
  expectOk(await desktop.handlers['profiles:activate']({ id: HELD }));
  const quote = expectOk(await desktop.handlers['payouts:prepare']({ request: request('DESK-1') }));
  const entry = expectOk(await desktop.handlers['payouts:initiate']({ request: request('DESK-1'), confirmationToken: quote.confirmationToken }));
  expect(entry).toMatchObject({ externalId: 'DESK-1', amount: 4_200, profileId: HELD });
  expect(entry.transactionId).not.toBeNull();
  expect(secretReads).toEqual([]);
  expect(keyring.entries.size).toBe(0);
  expect(createAsks(posts).get('DESK-1')).toBe(1);
  const sql = await workspaces.connectAs('tester', database);
  const { rows } = await sql.query<{ created_by: string }>(`SELECT created_by FROM entries WHERE external_id = 'DESK-1'`);
  expect(rows).toEqual([{ created_by: 'sender_desk' }]);
  const asked = await sql.query<{ asked_by: string; state: string }>(`SELECT asked_by, state FROM send_asks WHERE request->>'external_id' = 'DESK-1'`);
  expect(asked.rows).toEqual([{ asked_by: 'fatou', state: 'done' }]);
  await sql.end();

  // The same external id again: refused on the desktop before any ask (the journal knows it), nothing POSTed.
  expectFail(await desktop.handlers['payouts:prepare']({ request: request('DESK-1') }), 'ALREADY_SENT');
  expect(createAsks(posts).get('DESK-1')).toBe(1);
}, 90_000);

it('still needs this desktop\'s own keys for a profile whose keys are with the desktops', async () => {
  expectOk(await desktop.handlers['profiles:activate']({ id: DESKS }));
  expectFail(await desktop.handlers['payouts:prepare']({ request: request('DESK-3') }), 'TEAM_KEYS_MISSING');
});

it('waits for the sender\'s answer by listening: a payout the service holds 1.5 s costs at most three reads of the ask', async () => {
  slowMs = 1_500;
  expectOk(await desktop.handlers['profiles:activate']({ id: SLOW }));
  const quote = expectOk(await desktop.handlers['payouts:prepare']({ request: request('DESK-SLOW-1') }));
  const before = askReads;
  const entry = expectOk(await desktop.handlers['payouts:initiate']({ request: request('DESK-SLOW-1'), confirmationToken: quote.confirmationToken }));
  expect(entry).toMatchObject({ externalId: 'DESK-SLOW-1', profileId: SLOW });
  // The read after the ask, the read when the sender took it, the read when it answered.
  expect(askReads - before).toBeLessThanOrEqual(3);
  expect(createAsks(posts).get('DESK-SLOW-1')).toBe(1);
}, 60_000);

it('hears the sender\'s answer though its own read of the ask is ten minutes away', async () => {
  slowMs = 1_500;
  const ports = { asks: desktop.storage.sendAsks, changes: desktop.storage.changes };
  const entry = await payoutBySender(ports, { id: SLOW, name: 'By the sender, slow service' }, request('DESK-SLOW-2'), async (id) => expectOk(await desktop.handlers['transactions:get']({ journalId: id })).transaction, { everyMs: 600_000, forMs: 600_000 });
  expect(entry).toMatchObject({ externalId: 'DESK-SLOW-2', profileId: SLOW });
  expect(createAsks(posts).get('DESK-SLOW-2')).toBe(1);
}, 30_000);
