/**
 * One follow-up round per team, whatever the number of senders (issue 38 items 3 and 5;
 * docs/decisions/one-follow-up-round-per-team.md): two sender processes send a 200-row batch of a
 * sender-held profile that the engine leaves processing; one sender holds the follow-up duty and
 * takes every round (each payout read once per round, the other sender reads none); SIGKILLed in
 * the middle of a round, it loses the duty, the other takes it and reads every open payout until
 * all are final. The engine over HTTP (its reads counted per payout at its request log), a
 * throwaway PostgreSQL, each sender its own process and login.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { REQUEST_EVENT_TOPIC } from '../../packages/sandbox/src/inspector';
import { askSender, readAsk } from '../../electron/console/storage/postgres/send-asks';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { waitFor } from '../helpers/engine-posts';
import { teamBatchRows } from '../helpers/desktop-process';
import { spawnSender, type SenderEventLine, type SenderProcess } from '../helpers/sender-process';
import { tempDir } from '../console/helpers';

const ROWS = 200;
const PROFILE_ID = 'team-round';
const BATCH_ID = 'batch-round';
const dir = tempDir('paydesk-sender-followround-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let keysFile: string;
let fatou: pg.Client;
const senders: SenderProcess[] = [];
/** Payout reads (GET) the engine answered, by path (one path per payout). */
const engineReads = new Map<string, number>();
/** Called at each engine read (the test's mid-round moment). */
let onRead: (total: number) => void = () => undefined;
let totalReads = 0;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  const root = await workspaces.server.connect(undefined, database);
  for (const login of ['round_one', 'round_two']) {
    await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${login}') THEN CREATE ROLE ${login} LOGIN; END IF; END $$`);
    await root.query(`GRANT paydesk_sender TO ${login}`);
  }
  await root.end();
  // Payouts stay processing until the engine's clock is moved on.
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 600_000, rateLimit: { perKeyPerMinute: 60_000 } });
  engine.onEvent((event) => {
    if (event.type !== 'extension' || event.topic !== REQUEST_EVENT_TOPIC) return;
    const request = event.data as { method: string; path: string };
    if (request.method !== 'GET' || !request.path.includes('payout')) return;
    engineReads.set(request.path, (engineReads.get(request.path) ?? 0) + 1);
    totalReads += 1;
    onRead(totalReads);
  });
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team round', 'sandbox', $2, 'SVC', 1, 'sender')`, [PROFILE_ID, engine.api.url]);
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }));
  chmodSync(keysFile, 0o600);
  fatou = await workspaces.connectAs('fatou', database);
}, 60_000);

afterAll(async () => {
  for (const sender of senders) sender.child.kill('SIGKILL');
  await Promise.all(senders.map((sender) => sender.exited));
  await fatou?.end();
  await engine?.stop();
  await workspaces?.stop();
});

function startSender(name: string, login: string): SenderProcess {
  const { host, port } = workspaces.server.config(login, database) as { host: string; port: number };
  const sender = spawnSender(name, ['--workspace', `postgres://${login}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`, '--keys', keysFile, '--data', join(dir, name), '--watch-ms', '300']);
  senders.push(sender);
  return sender;
}

const rounds = (sender: SenderProcess): SenderEventLine[] => sender.events.filter((e) => e.event === 'follow-up-round');
const open = async () => Number((await fatou.query<{ n: string }>(`SELECT count(*) AS n FROM entries WHERE batch_id = $1 AND status = 'processing'`, [BATCH_ID])).rows[0]!.n);
const situation = async () => `${await open()} open, ${totalReads} reads\n${senders.map((s) => `${s.name}: ${JSON.stringify(s.events.slice(-4))}\n${s.stderr.slice(-5).join('\n')}`).join('\n')}`;

it('reads each of 200 open payouts once per round with two senders (one holds the duty, the other reads none); the holder SIGKILLed mid-round, the other takes the duty and reads every open payout', async () => {
  const first = startSender('round-one', 'round_one');
  await first.next((e) => e.event === 'follow-up-duty' && e.held === true);
  await first.next((e) => e.event === 'ready');
  const second = startSender('round-two', 'round_two');
  await second.next((e) => e.event === 'ready');

  const store = workspaces.storeAs('fatou', database);
  await store.batches.create({ id: BATCH_ID, fileName: 'round.csv', fileHash: 'hash-round', profile: { id: PROFILE_ID, name: 'Team round', environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 4, retryOf: null, rows: teamBatchRows('FR', ROWS, 1000), at: Date.now() });
  const ask = await askSender(fatou, { kind: 'batch', profileId: PROFILE_ID, batchId: BATCH_ID });
  await waitFor(async () => (await readAsk(fatou, ask.id))?.state === 'done', 'the batch sent', situation, 120_000);
  expect(await open()).toBe(ROWS);
  // Both senders sent rows (their runs ended, each poked its follow-ups): the duty's holder takes the rounds.
  expect(second.events.some((e) => e.event === 'batch-sending')).toBe(true);

  // Two whole rounds (every open payout followed) by the holder; the rounds are seconds apart (the watch's backoff).
  await waitFor(() => rounds(first).filter((round) => round.followed === ROWS).length >= 2, 'two whole follow-up rounds', situation, 60_000);
  const taken = rounds(first);
  const reads = [...engineReads.values()];
  expect(reads).toHaveLength(ROWS);
  // Every payout read once per round of the holder's, no more: the other sender read nothing.
  expect(Math.max(...reads)).toBeLessThanOrEqual(taken.length);
  expect(Math.min(...reads)).toBeGreaterThanOrEqual(taken.filter((round) => round.followed === ROWS).length);
  expect(totalReads).toBe(taken.reduce((sum, round) => sum + round.followed!, 0));
  expect(rounds(second)).toEqual([]);

  // The holder is SIGKILLed in the middle of its next round (50 reads into it).
  const killAt = totalReads + 50;
  onRead = (total) => {
    if (total === killAt) first.child.kill('SIGKILL');
  };
  expect(await first.exited).toBe('SIGKILL');
  onRead = () => undefined;
  const before = new Map(engineReads);
  await second.next((e) => e.event === 'follow-up-duty' && e.held === true);
  await waitFor(() => rounds(second).some((round) => round.followed === ROWS), 'a whole round by the sender that took the duty', situation, 60_000);
  // Every open payout read again, by the sender that took the duty.
  expect([...engineReads].filter(([path, n]) => n <= (before.get(path) ?? 0))).toEqual([]);

  // The engine settles them: the new holder's rounds record every one final.
  engine.clock.advance(700);
  await waitFor(async () => (await open()) === 0, 'every payout final', situation, 120_000);
}, 300_000);
