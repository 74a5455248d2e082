/**
 * The service's webhooks reach the team sender (issue 38 item 3; docs/team-sender.md): the sender
 * process (electron/sender/cli.ts) receives them on `POST /webhooks/service` at `--webhook-port`,
 * checks their signature with the `whsec_` secret of `--webhook-secret-file`, and follows the payout
 * up by reading the service (a trigger, never the truth: docs/decisions/webhooks-are-triggers.md).
 * The engine over HTTP delivers its own signed webhooks to the spawned sender; a payout a finance
 * login asked for stays processing at the engine until its clock is moved on, and the entry's final
 * status is then recorded by the webhook's follow-up (its timeline says so), not by the watch.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { askSender } from '../../electron/console/storage/postgres/send-asks';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { waitFor } from '../helpers/engine-posts';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { tempDir } from '../console/helpers';

const PROFILE_ID = 'team-sandbox';
const dir = tempDir('paydesk-sender-webhooks-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let root: pg.Client;
let fatou: pg.Client;
let sender: SenderProcess | null = null;
let appId: string;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
  await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sender_hooks') THEN CREATE ROLE sender_hooks LOGIN; END IF; END $$`);
  await root.query('GRANT paydesk_sender TO sender_hooks');
  // Payouts stay processing until the engine's clock is moved on (a settlement ten minutes away).
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 600_000 });
  appId = engine.api.applications()[0]!.id;
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team sandbox', 'sandbox', $2, 'SVC', 1, 'sender')`, [PROFILE_ID, engine.api.url]);
  await adele.end();
  fatou = await workspaces.connectAs('fatou', database);
}, 60_000);

afterAll(async () => {
  sender?.child.kill('SIGKILL');
  await sender?.exited;
  await fatou?.end();
  await root?.end();
  await engine?.stop();
  await workspaces?.stop();
});

function writeSecret(name: string, text: string, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
  return file;
}

function keysFile(): string {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  return writeSecret('sender-keys.json', JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }));
}

function senderUrl(login: string): string {
  const { host, port } = workspaces.server.config(login, database) as { host: string; port: number };
  return `postgres://${login}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
}

it('receives the engine\'s signed webhooks on POST /webhooks/service and completes a payout through them; unsigned deliveries and other paths are refused', async () => {
  const secretFile = writeSecret('webhook-secret', `${engine.webhooks.secret(appId)}\n`);
  sender = spawnSender('sender-hooks', ['--workspace', senderUrl('sender_hooks'), '--keys', keysFile(), '--data', join(dir, 'sender'), '--watch-ms', '200', '--webhook-port', '0', '--webhook-secret-file', secretFile]);
  const ready = (await sender.next((e) => e.event === 'ready')) as { webhookUrl?: string };
  expect(ready.webhookUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/service$/);
  const webhookUrl = ready.webhookUrl!;
  engine.webhooks.setUrl(appId, webhookUrl);

  // Not the path, not POST, not signed: refused before anything is read.
  expect((await fetch(webhookUrl.replace('/webhooks/service', '/other'), { method: 'POST', body: '{}' })).status).toBe(404);
  expect((await fetch(webhookUrl)).status).toBe(405);
  const unsigned = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'payout.success', data: { external_id: 'HOOK-1' } }) });
  expect(unsigned.status).toBe(401);

  const request = { payment_method: 'momo_cm', amount: 1500, phone_number: '+237670000001', customer: { first_name: 'Awa', last_name: 'Team', email: 'awa@example.com' }, description: 'Commission', external_id: 'HOOK-1' };
  const ask = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request });
  const answered = await sender.next((e) => e.event === 'ask-answered' && e.askId === ask.id);
  expect(answered).toMatchObject({ state: 'done' });
  const entryId = answered.entryId!;
  const entry = async () => (await root.query<{ status: string | null; transaction_id: string | null }>('SELECT status, transaction_id FROM entries WHERE id = $1', [entryId])).rows[0]!;
  expect((await entry()).status).toBe('processing');
  const transactionId = (await entry()).transaction_id!;

  // The engine settles it and delivers its signed webhook to the sender, which reads the service and records it.
  engine.clock.advance(700);
  const situation = async () => `entry ${JSON.stringify(await entry())}; deliveries ${JSON.stringify(engine.webhooks.deliveries(appId).map((d) => d.attempts))}\n${sender!.stderr.slice(-10).join('\n')}`;
  await waitFor(async () => (await entry()).status === 'completed', 'the payout recorded as completed', situation, 60_000);
  const { rows: timeline } = await root.query<{ status: string | null; message: string | null }>(
    `SELECT status, message FROM timeline WHERE entry_seq = (SELECT seq FROM entries WHERE id = $1) ORDER BY id`,
    [entryId],
  );
  // The final status came from the webhook's follow-up (the sweeper's read), not from the watch after the send.
  const final = timeline.find((line) => line.status === 'completed');
  expect(final?.message).toBe('status seen while following up');
  const delivered = engine.webhooks.deliveries(appId).filter((delivery) => delivery.transactionId === transactionId);
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.flatMap((delivery) => delivery.attempts).some((attempt) => attempt.url === webhookUrl && attempt.httpStatus === 202)).toBe(true);

  // SIGTERM: the receiver closes with the sender.
  sender.child.kill('SIGTERM');
  expect(await sender.exited).toBe(0);
  sender = null;
}, 120_000);
