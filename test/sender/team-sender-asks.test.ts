/**
 * How the team sender takes payout asks (issue 38 item 3; docs/team-sender.md):
 * - it hears a new ask on the workspace's change channel (LISTEN), not only on its slow poll: a
 *   sender whose poll is an hour away answers an ask made after it started;
 * - it renews its ask's lease while it works on it: a payout whose POST is held at the service for
 *   longer than the lease is not taken by a second sender once the first lease would have run out,
 *   and the first sender answers it, paid once.
 * The engine over HTTP behind a proxy that can hold the payout POSTs, a throwaway PostgreSQL, the
 * sender in this process (its process form: test/sender/team-sender-webhooks.test.ts).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { askSender, readAsk, takeAsk } from '../../electron/console/storage/postgres/send-asks';
import { readKeysFile } from '../../electron/sender/keys-file';
import { startTeamSender, type SenderEvent, type TeamSender } from '../../electron/sender/sender';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { createAsks, recordPayoutPosts, waitFor, type PayoutPost } from '../helpers/engine-posts';
import { tempDir } from '../console/helpers';

const PROFILE_ID = 'team-held';
const dir = tempDir('paydesk-sender-asks-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let proxy: Server;
let fatou: pg.Client;
let rival: pg.Client;
let sender: TeamSender | null = null;
let posts: PayoutPost[] = [];
const events: SenderEvent[] = [];
/** Payout POSTs wait here while `holding` (the service is slow to answer). */
let holding = false;
let heldPosts = 0;
const held: (() => void)[] = [];

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  for (const login of ['sender_asks', 'sender_rival']) {
    await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${login}') THEN CREATE ROLE ${login} LOGIN; END IF; END $$`);
    await root.query(`GRANT paydesk_sender TO ${login}`);
  }
  await root.end();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0 });
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
      if (request.method === 'POST' && holding) {
        heldPosts += 1;
        held.push(() => void forward());
      } else void forward();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team held', 'sandbox', $2, 'SVC', 1, 'sender')`, [
    PROFILE_ID,
    `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
  ]);
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }));
  chmodSync(keysFile, 0o600);
  fatou = await workspaces.connectAs('fatou', database);
  rival = await workspaces.server.connect('sender_rival', database);
  // The poll is an hour away: only the change channel (and the read at start) brings it an ask.
  sender = await startTeamSender({
    userDataDir: join(dir, 'sender'),
    workspace: workspaces.server.config('sender_asks', database),
    keys: readKeysFile(keysFile),
    version: 'test',
    watchMs: 3_600_000,
    askLeaseMs: 1_500,
    report: (event) => events.push(event),
  });
}, 60_000);

afterAll(async () => {
  holding = false;
  for (const release of held.splice(0)) release();
  await sender?.close();
  await fatou?.end();
  await rival?.end();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await engine?.stop();
  await workspaces?.stop();
});

const request = (externalId: string) => ({
  payment_method: 'momo_cm',
  amount: 2_500,
  phone_number: '+237670000077',
  customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' },
  description: 'Asked of the sender',
  external_id: externalId,
});
const situation = async () => `events ${JSON.stringify(events.slice(-5))}; ${posts.length} POSTs, ${heldPosts} held`;

it('hears an ask on the change channel: answered though its poll is an hour away', async () => {
  const ask = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request: request('HEARD-1') });
  await waitFor(async () => (await readAsk(fatou, ask.id))?.state === 'done', 'the ask answered', situation, 30_000);
  expect(createAsks(posts).get('HEARD-1')).toBe(1);
}, 60_000);

it('renews its lease while the service holds the payout: no second sender takes the ask, the first answers it, paid once', async () => {
  holding = true;
  const ask = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request: request('SLOW-1') });
  await waitFor(() => heldPosts === 1, 'the payout POST held at the service', situation, 30_000);
  const first = (await readAsk(fatou, ask.id))!;
  expect(first.state).toBe('taken');
  const lease = async () => (await rival.query<{ lease_until: string; now: string }>('SELECT lease_until, paydesk_now_ms() AS now FROM send_asks WHERE id = $1', [ask.id])).rows[0]!;
  const firstLease = Number((await lease()).lease_until);
  // Wait on the database's clock until the first lease would have run out twice over.
  await waitFor(async () => Number((await lease()).now) > firstLease + 1_500, 'the first lease run out twice over', situation, 30_000);
  // A second sender looking for work finds none: the lease was renewed.
  expect(await takeAsk(rival, 'sender:rival', 60_000, [PROFILE_ID])).toBeNull();
  expect(Number((await lease()).lease_until)).toBeGreaterThan(Number((await lease()).now));

  holding = false;
  for (const release of held.splice(0)) release();
  await waitFor(async () => (await readAsk(fatou, ask.id))?.state === 'done', 'the ask answered by the first sender', situation, 30_000);
  const answered = (await readAsk(fatou, ask.id))!;
  expect(answered.entryResult).not.toBeNull();
  expect(events.some((event) => event.event === 'ask-answered' && event.askId === ask.id && event.state === 'done')).toBe(true);
  expect(createAsks(posts).get('SLOW-1')).toBe(1);
}, 60_000);
