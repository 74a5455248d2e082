/**
 * One sandbox for the team (issue 38 item 4; docs/team-sender.md "One sandbox for the team"): the
 * sender process started with `--sandbox` (no `--keys`, no webhook flag) runs the sandbox engine in
 * its own process and publishes it on the workspace. A finance desktop's payout on the team-sandbox
 * profile is asked of the sender, paid once by the engine, and goes final through the sender (the
 * engine's webhooks reach it with no flag); a second desktop sees the same entry; an admin reaches
 * the control API with the token read from the workspace; a restart keeps the engine's data and
 * keys. Real processes: a throwaway PostgreSQL, the sender spawned as `npm run sender` runs it.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { LOCAL_SANDBOX_ID, type SettingsBackend, type SettingsDocument } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { TEAM_SANDBOX } from '../../electron/console/storage/postgres/schema-names';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { waitFor } from '../helpers/engine-posts';
import { memoryKeyring } from '../helpers/memory-keyring';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { expectOk, tempDir } from '../console/helpers';

const dir = tempDir('paydesk-team-sandbox-');
const senderData = join(dir, 'sender');
let workspaces: TestWorkspaces;
let database: string;
let root: pg.Client;
let adele: pg.Client;
let sender: SenderProcess | null = null;
const desktops: ConsoleRuntime[] = [];

function memorySettings(document: SettingsDocument): SettingsBackend {
  let stored = document;
  return { path: null, read: () => structuredClone(stored), write: (next) => void (stored = structuredClone(next)) };
}

function senderUrl(login: string): string {
  const { host, port } = workspaces.server.config(login, database) as { host: string; port: number };
  return `postgres://${login}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
}

/** A desktop on the workspace with no key at all. */
async function desktopOf(person: 'fatou' | 'kofi' | 'adele'): Promise<ConsoleRuntime> {
  const desktop = await createConsoleRuntime({
    userDataDir: join(dir, `desk-${person}`),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend: memorySettings({ version: 1, activeProfileId: LOCAL_SANDBOX_ID, profiles: [] }),
    keyring: memoryKeyring(),
    client: { retry: { attempts: 1 } },
    openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)),
  });
  desktops.push(desktop);
  return desktop;
}

async function startSender(name: string): Promise<{ sandbox: { baseUrl: string; controlUrl: string }; webhookUrl: string }> {
  sender = spawnSender(name, ['--workspace', senderUrl('sender_sandbox'), '--sandbox', '--data', senderData, '--watch-ms', '200']);
  const published = (await sender.next((e) => e.event === 'team-sandbox')) as unknown as { baseUrl: string; controlUrl: string; profileId: string };
  expect(published.profileId).toBe(TEAM_SANDBOX.profileId);
  const ready = (await sender.next((e) => e.event === 'ready')) as { profiles?: string[]; webhookUrl?: string };
  expect(ready.profiles).toEqual([TEAM_SANDBOX.profileId]);
  return { sandbox: published, webhookUrl: ready.webhookUrl! };
}

async function stopSender(): Promise<void> {
  sender!.child.kill('SIGTERM');
  expect(await sender!.exited).toBe(0);
  sender = null;
}

/** The control API as an admin uses it: its URL and token read from the workspace as adele. */
async function control<T>(path: string): Promise<{ status: number; body: { data?: T } }> {
  const { rows } = await adele.query<{ control_url: string; control_token: string }>('SELECT control_url, control_token FROM team_sandbox');
  const answer = await fetch(`${rows[0]!.control_url}${path}`, { headers: { authorization: `Bearer ${rows[0]!.control_token}` } });
  return { status: answer.status, body: (await answer.json()) as { data?: T } };
}

async function payoutPosts(externalId: string): Promise<number> {
  const { body } = await control<{ requests: { method: string; path: string; body: string }[] }>('/requests?limit=500');
  return body.data!.requests.filter((r) => r.method === 'POST' && r.path.includes('payout') && (JSON.parse(r.body || '{}') as { external_id?: string }).external_id === externalId).length;
}

const request = (externalId: string) => ({
  payment_method: 'momo_cm',
  amount: 2_500,
  phone_number: '+237670000025',
  customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' },
  description: 'On the team sandbox',
  external_id: externalId,
});

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_sandbox') THEN CREATE ROLE sender_sandbox LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_sandbox');
  adele = await workspaces.connectAs('adele', database);
}, 60_000);

afterAll(async () => {
  sender?.child.kill('SIGKILL');
  await sender?.exited;
  for (const desktop of desktops) await desktop.close();
  await adele?.end();
  await root?.end();
  await workspaces?.stop();
});

it('serves the team sandbox from the sender: a desktop\'s payout paid once and final through the sender, seen by a second desktop, the same engine after a restart', async () => {
  const first = await startSender('team-sandbox-1');

  // Its keys: made once in the sender's data folder (0600), never printed, never in the workspace.
  const keysFile = join(senderData, 'team-sandbox', 'keys.json');
  expect(statSync(keysFile).mode & 0o777).toBe(0o600);
  const stored = JSON.parse(readFileSync(keysFile, 'utf8')) as { adminToken: string; keys: Record<string, string> };
  const secrets = [stored.keys.paymentSecretKey!, stored.keys.payoutSecretKey!];
  const printed = JSON.stringify(sender!.events) + sender!.stderr.join('\n');
  for (const secret of [...secrets, stored.adminToken]) expect(printed).not.toContain(secret);
  const everywhere = JSON.stringify((await root.query(`SELECT (SELECT json_agg(t) FROM team_profiles t) AS p, (SELECT json_agg(a) FROM audit_log a) AS a, (SELECT json_agg(s) FROM send_asks s) AS s`)).rows);
  for (const secret of secrets) expect(everywhere).not.toContain(secret);

  // Published: the team profile on it, held by the sender; its control API for admins with the token only.
  const profile = await root.query('SELECT environment, base_url, keys_held_by FROM team_profiles WHERE id = $1', [TEAM_SANDBOX.profileId]);
  expect(profile.rows).toEqual([{ environment: 'sandbox', base_url: first.sandbox.baseUrl, keys_held_by: 'sender' }]);
  expect((await fetch(`${first.sandbox.controlUrl}/settings`)).status).toBe(401);
  expect((await control('/settings')).status).toBe(200);

  // A finance desktop asks; the sender sends on its own engine; the entry goes final through the sender.
  const fatou = await desktopOf('fatou');
  expectOk(await fatou.handlers['profiles:activate']({ id: TEAM_SANDBOX.profileId }));
  const quote = expectOk(await fatou.handlers['payouts:prepare']({ request: request('TEAM-SBX-1') }));
  const entry = expectOk(await fatou.handlers['payouts:initiate']({ request: request('TEAM-SBX-1'), confirmationToken: quote.confirmationToken }));
  expect(entry).toMatchObject({ externalId: 'TEAM-SBX-1', amount: 2_500, profileId: TEAM_SANDBOX.profileId });
  const row = async () => (await root.query<{ status: string | null; created_by: string; transaction_id: string | null }>('SELECT status, created_by, transaction_id FROM entries WHERE id = $1', [entry.id])).rows[0]!;
  expect((await row()).created_by).toBe('sender_sandbox');
  await waitFor(async () => (await row()).status === 'completed', 'the payout final (completed) in the workspace', async () => `${JSON.stringify(await row())}\n${sender!.stderr.slice(-10).join('\n')}`, 60_000);
  expect(await payoutPosts('TEAM-SBX-1')).toBe(1);
  // The engine's webhooks reached the sender's receiver with no flag given.
  const deliveries = await control<{ deliveries: { transactionId: string; attempts: { url: string; httpStatus: number | null }[] }[] }>(`/deliveries?app_id=app_team_sandbox&limit=500`);
  const delivered = deliveries.body.data!.deliveries.filter((d) => d.transactionId === entry.transactionId);
  await waitFor(async () => {
    const page = await control<{ deliveries: { transactionId: string; status: string }[] }>(`/deliveries?app_id=app_team_sandbox&limit=500`);
    return page.body.data!.deliveries.some((d) => d.transactionId === entry.transactionId && d.status === 'delivered');
  }, 'a delivery of the payout\'s webhook to the sender', async () => JSON.stringify(delivered), 60_000);
  const page = await control<{ deliveries: { id: string; transactionId: string }[] }>(`/deliveries?app_id=app_team_sandbox&limit=500`);
  const one = page.body.data!.deliveries.find((d) => d.transactionId === entry.transactionId)!;
  const detail = await control<{ attempts: { url: string; httpStatus: number | null }[] }>(`/deliveries/${one.id}`);
  expect(detail.body.data!.attempts.some((attempt) => attempt.url === first.webhookUrl && attempt.httpStatus === 202)).toBe(true);

  // A second desktop of the team sees the same entry.
  const kofi = await desktopOf('kofi');
  const seen = expectOk(await kofi.handlers['transactions:get']({ journalId: entry.id }));
  expect(seen).toMatchObject({ transaction: { externalId: 'TEAM-SBX-1', status: 'completed', transactionId: entry.transactionId } });

  // An admin's console uses the team sandbox's control API (main holds the token): a scenario fails the next payout to a number.
  const admin = await desktopOf('adele');
  expect(expectOk(await admin.handlers['teamSandbox:control']({ method: 'GET', path: '/settings' })).status).toBe(200);
  const scenario = expectOk(await admin.handlers['teamSandbox:control']({ method: 'POST', path: '/scenarios', body: JSON.stringify({ phone_number: '+237670000099', kind: 'payout', status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS', uses: 1 }) }));
  expect(scenario.status).toBe(201);
  expect(JSON.stringify(scenario)).not.toContain(stored.adminToken);
  // A finance login is refused the control API: the workspace does not give it the token.
  expect(await fatou.handlers['teamSandbox:control']({ method: 'GET', path: '/settings' })).toMatchObject({ ok: false, error: { code: 'WORKSPACE_NO_PERMISSION' } });
  const steered = { ...request('TEAM-SBX-F'), phone_number: '+237670000099' };
  const steeredQuote = expectOk(await fatou.handlers['payouts:prepare']({ request: steered }));
  const failed = expectOk(await fatou.handlers['payouts:initiate']({ request: steered, confirmationToken: steeredQuote.confirmationToken }));
  const failedRow = async () => (await root.query<{ status: string | null }>('SELECT status FROM entries WHERE id = $1', [failed.id])).rows[0]!;
  await waitFor(async () => (await failedRow()).status === 'failed', 'the steered payout final (failed)', async () => JSON.stringify(await failedRow()), 60_000);

  // Restarted: the same engine data (its transaction), the same keys, published again.
  await stopSender();
  const second = await startSender('team-sandbox-2');
  expect(JSON.parse(readFileSync(keysFile, 'utf8'))).toEqual(stored);
  const kept = await control<{ transaction: { status: string; external_id: string } }>(`/transactions/${entry.transactionId}`);
  expect(kept).toMatchObject({ status: 200, body: { data: { transaction: { status: 'completed', external_id: 'TEAM-SBX-1' } } } });
  expect((await adele.query('SELECT base_url FROM team_sandbox')).rows).toEqual([{ base_url: second.sandbox.baseUrl }]);
  // And it sends with the same keys: a second payout on the restarted engine.
  const again = expectOk(await fatou.handlers['payouts:prepare']({ request: request('TEAM-SBX-2') }));
  const entry2 = expectOk(await fatou.handlers['payouts:initiate']({ request: request('TEAM-SBX-2'), confirmationToken: again.confirmationToken }));
  expect(entry2.transactionId).not.toBeNull();
  expect(await payoutPosts('TEAM-SBX-2')).toBe(1);
  await stopSender();
}, 180_000);
