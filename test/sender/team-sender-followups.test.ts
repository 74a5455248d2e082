/**
 * Following up open payouts runs once per team, in the team sender (issue 38 item 3;
 * docs/team-sender.md): a batch of a sender-held profile sent by the sender process leaves 200
 * payouts processing at the engine; two desktop consoles then start on the workspace (a finance
 * and a support login, both holding the profile's keys, both with the right to follow up): they
 * read none of those payouts, the sender does, each payout once per follow-up round, until all are
 * final. The engine over HTTP, a throwaway PostgreSQL, the sender as its own process; each
 * desktop's reads counted at its HTTP dispatcher, the engine's at its request log.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { REQUEST_EVENT_TOPIC } from '../../packages/sandbox/src/inspector';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import type { SettingsBackend } from '../../electron/console/settings';
import { openWorkspaceStore } from '../../electron/console/storage/postgres/store';
import { askSender, readAsk } from '../../electron/console/storage/postgres/send-asks';
import { readKeysFile } from '../../electron/sender/keys-file';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { waitFor } from '../helpers/engine-posts';
import { teamBatchRows } from '../helpers/desktop-process';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { tempDir } from '../console/helpers';

const ROWS = 200;
const PROFILE_ID = 'team-followed';
const dir = tempDir('paydesk-sender-followups-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let sender: SenderProcess | null = null;
let keysFile: string;
const desktops: ConsoleRuntime[] = [];
/** Payout reads (GET) the engine answered, by path. */
const engineReads = new Map<string, number>();

/** An undici agent that counts the GETs of its console (its follow-up reads). */
class CountingAgent extends Agent {
  gets = 0;
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (options.method === 'GET') this.gets += 1;
    return super.dispatch(options, handler);
  }
}
const agents: CountingAgent[] = [];

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_follow') THEN CREATE ROLE sender_follow LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_follow');
  await root.end();
  // Payouts stay processing until the engine's clock is moved on.
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 600_000, rateLimit: { perKeyPerMinute: 60_000 } });
  engine.onEvent((event) => {
    if (event.type !== 'extension' || event.topic !== REQUEST_EVENT_TOPIC) return;
    const request = event.data as { method: string; path: string };
    if (request.method === 'GET' && request.path.includes('payout')) engineReads.set(request.path, (engineReads.get(request.path) ?? 0) + 1);
  });
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team followed', 'sandbox', $2, 'SVC', 1, 'sender')`, [PROFILE_ID, engine.api.url]);
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }));
  chmodSync(keysFile, 0o600);
}, 60_000);

afterAll(async () => {
  for (const desktop of desktops) await desktop.close();
  for (const agent of agents) await agent.close();
  sender?.child.kill('SIGKILL');
  await sender?.exited;
  await engine?.stop();
  await workspaces?.stop();
});

/** A desktop console on the workspace that holds the team profile's keys itself (as before the profile moved to the sender). */
async function startDesktop(person: Person): Promise<{ runtime: ConsoleRuntime; agent: CountingAgent }> {
  const keys = readKeysFile(keysFile);
  let document = { version: 1 as const, activeProfileId: PROFILE_ID, profiles: [], teamKeys: { [PROFILE_ID]: keys.publicKeysOf(PROFILE_ID)! } };
  const settings: SettingsBackend = { path: null, read: () => structuredClone(document), write: (next) => void (document = structuredClone(next) as typeof document) };
  const agent = new CountingAgent();
  agents.push(agent);
  const runtime = await createConsoleRuntime({
    userDataDir: join(dir, `desk-${person}`),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    settingsBackend: settings,
    keyring: keys.keyring,
    client: { retry: { attempts: 1 }, dispatcher: agent },
    watch: { initialDelayMs: 50, maxDelayMs: 100, limitMs: 2_000 },
    openStorage: () => openWorkspaceStore(workspaces.server.config(person, database)),
  });
  desktops.push(runtime);
  return { runtime, agent };
}

it('follows a batch\'s 200 open payouts up in the sender only: no read from the two desktops, each payout read once per round by the sender', async () => {
  const store = workspaces.storeAs('fatou', database);
  const rows = teamBatchRows('FU', ROWS, 1000);
  const batchId = 'batch-followed';
  await store.batches.create({ id: batchId, fileName: 'team.csv', fileHash: 'hash-followed', profile: { id: PROFILE_ID, name: 'Team followed', environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 4, retryOf: null, rows, at: Date.now() });
  const { host, port } = workspaces.server.config('sender_follow', database) as { host: string; port: number };
  sender = spawnSender('sender-follow', ['--workspace', `postgres://sender_follow@localhost:${port}/${database}?host=${encodeURIComponent(host)}`, '--keys', keysFile, '--data', join(dir, 'sender'), '--watch-ms', '300']);
  await sender.next((e) => e.event === 'ready');
  const fatou = await workspaces.connectAs('fatou', database);
  const ask = await askSender(fatou, { kind: 'batch', profileId: PROFILE_ID, batchId });
  const situation = async () => `${JSON.stringify((await store.batches.summary(batchId))?.counts)}; ${JSON.stringify(sender!.events.slice(-3))}\n${sender!.stderr.slice(-5).join('\n')}`;
  await waitFor(async () => (await readAsk(fatou, ask.id))?.state === 'done', 'the batch sent', situation, 120_000);
  const open = async () => Number((await fatou.query<{ n: string }>(`SELECT count(*) AS n FROM entries WHERE batch_id = $1 AND status = 'processing'`, [batchId])).rows[0]!.n);
  expect(await open()).toBe(ROWS);

  // Two desktops start while the 200 payouts are open: their start-up follow-up reads none of them.
  const desks = [await startDesktop('fatou'), await startDesktop('samuel')];
  await Promise.all(desks.map(({ runtime }) => runtime.followUpsIdle()));
  expect(desks.map(({ agent }) => agent.gets)).toEqual([0, 0]);

  // The engine settles them; the sender's follow-up rounds record every one (the desktops see it live).
  engine.clock.advance(700);
  await waitFor(async () => (await open()) === 0, 'every payout final', situation, 120_000);
  await Promise.all(desks.map(({ runtime }) => runtime.followUpsIdle()));
  expect(desks.map(({ agent }) => agent.gets)).toEqual([0, 0]);
  const reads = [...engineReads.values()];
  expect(reads).toHaveLength(ROWS);
  // Every round reads each open payout once: no payout read more than one round's worth more than another.
  expect(Math.max(...reads) - Math.min(...reads)).toBeLessThanOrEqual(1);
  await fatou.end();
}, 300_000);

it('leaves a sender-held payout\'s look-up to the sender: a desktop that still holds the keys is refused Look up (by id, and of an unknown outcome), reads nothing; the sender finds it', async () => {
  // The sender's POST is committed at the engine and its connection reset: the sender's entry is outcome unknown.
  engine.control.variants.set(['reset-after-create']);
  const fatou = await workspaces.connectAs('fatou', database);
  const request = { payment_method: 'momo_cm', amount: 3_100, phone_number: '+237670000099', customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' }, description: 'Lost answer', external_id: 'LOST-1' };
  const ask = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request });
  const answered = await sender!.next((e) => e.event === 'ask-answered' && e.askId === ask.id);
  engine.control.variants.set([]);
  const entryId = answered.entryId!;
  // Its answer lost: outcome unknown, which the sender's own round looks up at once (it may have already).
  expect(answered.code).toBeTruthy();
  expect(['outcome_unknown', 'known']).toContain((await fatou.query<{ state: string }>('SELECT state FROM entries WHERE id = $1', [entryId])).rows[0]!.state);

  // The finance desktop, which still holds the keys, is refused: the sender records what the service says (migration 51).
  const runtime = desktops[0]!;
  const agent = agents[0]!;
  const before = agent.gets;
  const refused = await runtime.handlers['transactions:resolveUnknown']({ journalId: entryId });
  expect(refused).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
  expect(JSON.stringify(refused)).toContain('team sender');
  expect(await runtime.handlers['transactions:lookup']({ id: 'LOST-2', by: 'external_id', kind: 'payout' })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
  await runtime.watchesIdle();
  expect(agent.gets - before).toBe(0);
  // The sender's follow-up round finds it (processing: known now, by the sender's login).
  await waitFor(async () => (await fatou.query<{ state: string }>('SELECT state FROM entries WHERE id = $1', [entryId])).rows[0]!.state === 'known', 'the sender found it', async () => JSON.stringify(sender!.events.slice(-5)), 60_000);
  expect((await fatou.query<{ updated_by: string }>('SELECT updated_by FROM entries WHERE id = $1', [entryId])).rows[0]!.updated_by).toBe('sender_follow');
  await fatou.end();
}, 120_000);
