/**
 * The team sender, as separate processes (issue 38 items 1, 2 and 5): the sandbox engine over HTTP
 * (in this process), a throwaway PostgreSQL workspace, and two sender processes
 * (electron/sender/cli.ts, each its own sender login and data folder, the keys in a 0600 file). A
 * finance person (no keys) asks for a confirmed 400-row batch of a team profile whose keys are with
 * the sender; both senders send it; one of them, chosen by the seed, is SIGKILLed at a seeded
 * moment mid-batch. The survivor waits out the dead sender's leases, looks its rows in flight up by
 * external id and sends only what was never sent: every row final, each external id asked to be
 * created once (the engine accepts duplicates: only the journal keeps a row from being paid twice),
 * totals exact. The same finance person's raw SQL (a pending entry, a row claim) moves no money.
 * Nothing waits on a timer: the kill moment is seeded (PAYDESK_SEED=<n> replays it).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { LEASE_LOST_MESSAGE, type StoragePort } from '../../electron/console/storage/port';
import { askSender, readAsk } from '../../electron/console/storage/postgres/send-asks';
import { SENDER_HELD_SQLSTATE } from '../../electron/console/storage/postgres/schema-names';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { createAsks, createdFor, recordPayoutPosts, waitFor as waitUntil, type PayoutPost } from '../helpers/engine-posts';
import { seeded, seedFromEnv, teamBatchRows } from '../helpers/desktop-process';
import { spawnSender, type SenderProcess } from '../helpers/sender-process';
import { tempDir } from './helpers';

const ROWS = 400;
const LEASE_MS = 4_000;
const PROFILE_ID = 'team-sandbox';

const seed = seedFromEnv();
console.log(`team sender, one batch: seed ${seed} (PAYDESK_SEED=${seed} replays it)`);
const random = seeded(seed);

const dir = tempDir('paydesk-team-sender-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let store: StoragePort;
let fatou: pg.Client;
let root: pg.Client;
let posts: PayoutPost[] = [];
const senders: SenderProcess[] = [];
let keysFile: string;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  root = await workspaces.server.connect(undefined, database);
  for (const login of ['sender_one', 'sender_two']) {
    await root.query(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${login}') THEN CREATE ROLE ${login} LOGIN; END IF; END $$`);
    await root.query(`GRANT paydesk_sender TO ${login}`);
  }
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 20_000 }, variants: ['duplicates-accepted'] });
  posts = recordPayoutPosts(engine);
  const adele = await workspaces.connectAs('adele', database);
  await adele.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, 'Team sandbox', 'sandbox', $2, 'SVC', 1, 'sender')`, [PROFILE_ID, engine.api.url]);
  await adele.end();
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
  keysFile = join(dir, 'sender-keys.json');
  writeFileSync(keysFile, JSON.stringify({ profiles: { [PROFILE_ID]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }), { mode: 0o600 });
  chmodSync(keysFile, 0o600);
  store = workspaces.storeAs('fatou', database);
  fatou = await workspaces.connectAs('fatou', database);
}, 60_000);

afterAll(async () => {
  for (const sender of senders) sender.child.kill('SIGKILL');
  await Promise.all(senders.map((sender) => sender.exited));
  await engine?.stop();
  await workspaces?.stop();
});

function startSender(name: string, login: string): SenderProcess {
  const { host, port } = workspaces.server.config(login, database) as { host: string; port: number };
  const url = `postgres://${login}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
  const sender = spawnSender(name, ['--workspace', url, '--keys', keysFile, '--data', join(dir, name), '--watch-ms', '300', '--lease-ms', String(LEASE_MS)]);
  senders.push(sender);
  return sender;
}

const created = (prefix: string) => createdFor(engine, prefix);
const situation = async (batchId: string) => {
  const summary = await store.batches.summary(batchId).catch(() => null);
  return `batch ${summary?.state} ${JSON.stringify(summary?.counts)}; ${posts.length} POSTs\n${senders.map((s) => `${s.name}: ${JSON.stringify(s.events.slice(-5))}\n${s.stderr.slice(-10).join('\n')}`).join('\n')}`;
};
const waitFor = (check: () => boolean | Promise<boolean>, what: string, batchId: string, ms = 150_000) => waitUntil(check, what, () => situation(batchId), ms);

it('sends a batch a finance desktop asked for through two senders, one SIGKILLed mid-batch: each row paid once, every row final, totals exact; the desktop\'s raw SQL moves no money', async () => {
  const prefix = `TS${seed}`;
  const rows = teamBatchRows(prefix, ROWS, 1000);
  const total = rows.reduce((sum, row) => sum + row.request!.amount, 0);
  const batchId = `batch-${seed}`;
  await store.batches.create({ id: batchId, fileName: 'team.csv', fileHash: `hash-${seed}`, profile: { id: PROFILE_ID, name: 'Team sandbox', environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 4, retryOf: null, rows, at: Date.now() });

  const one = startSender('sender-one', 'sender_one');
  const two = startSender('sender-two', 'sender_two');
  await Promise.all([one.next((e) => e.event === 'ready'), two.next((e) => e.event === 'ready')]);

  // The finance desktop has no key: it asks.
  const ask = await askSender(fatou, { kind: 'batch', profileId: PROFILE_ID, batchId });
  await Promise.all([one.next((e) => e.event === 'batch-sending'), two.next((e) => e.event === 'batch-sending')]);

  // Its raw SQL while the batch is sent: no pending entry of its own, no claim of a row.
  await expect(
    fatou.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, request, created_at, updated_at)
       VALUES ('RAW', $1, 'Team sandbox', 'sandbox', 'payout', 'pending', 'RAW-1', 999999, 'XAF', '+237650000001', 'momo_cm', 'A', 'B', 'a@example.com', $2, 1, 1)`,
      [PROFILE_ID, JSON.stringify({ payment_method: 'momo_cm', amount: 999999, phone_number: '+237650000001', external_id: 'RAW-1', customer: { first_name: 'A', last_name: 'B', email: 'a@example.com' } })],
    ),
  ).rejects.toEqual(expect.objectContaining({ code: SENDER_HELD_SQLSTATE }));
  await expect(
    fatou.query(`UPDATE batch_rows SET claim_holder = 'desk', lease_until = paydesk_now_ms() + 60000 WHERE batch_seq = (SELECT seq FROM batches WHERE id = $1) AND journal_id IS NULL`, [batchId]),
  ).rejects.toEqual(expect.objectContaining({ code: SENDER_HELD_SQLSTATE }));

  const victim = random() < 0.5 ? one : two;
  const survivor = victim === one ? two : one;
  const killAt = 20 + Math.floor(random() * (ROWS - 120));
  const extraMs = Math.floor(random() * 200);
  console.log(`seed ${seed}: kill ${victim.name} at ${killAt} created + ${extraMs} ms`);
  await waitFor(() => created(prefix).length >= killAt, `${killAt} rows created`, batchId);
  await new Promise((resolve) => setTimeout(resolve, extraMs));
  victim.child.kill('SIGKILL');
  expect(await victim.exited).toBe('SIGKILL');

  // The survivor alone ends the batch and answers the ask.
  await waitFor(async () => (await readAsk(fatou, ask.id))?.state === 'done', 'the batch ask answered', batchId);
  const final = (await store.batches.summary(batchId))!;
  expect(final.state).toBe('done');
  expect(final.counts).toMatchObject({ rows: ROWS, valid: ROWS, accepted: ROWS, notSent: 0, pending: 0, unknown: 0, rejected: 0 });
  expect(final.totalAmount).toBe(total);
  expect(survivor.events.some((e) => e.event === 'ask-answered' && e.askId === ask.id)).toBe(true);

  // The engine: one transaction per external id, each asked to be created once, amounts summing to the total.
  const transactions = created(prefix);
  expect(transactions).toHaveLength(ROWS);
  expect(transactions.filter((tx) => tx.n !== 1)).toEqual([]);
  expect(transactions.reduce((sum, tx) => sum + tx.amount, 0)).toBe(total);
  const asked = createAsks(posts.filter((post) => post.externalId.startsWith(`${prefix}-`)));
  expect([...asked].filter(([, n]) => n !== 1)).toEqual([]);
  expect(asked.size).toBe(ROWS);
  expect(posts.some((post) => post.externalId === 'RAW-1')).toBe(false);
  // Every entry written by a sender login, and each row's entry holds the engine's transaction.
  const { rows: writers } = await root.query<{ created_by: string }>(`SELECT DISTINCT created_by FROM entries WHERE batch_id = $1`, [batchId]);
  expect(writers.map((w) => w.created_by).every((login) => login === 'sender_one' || login === 'sender_two')).toBe(true);
  const sentRows = await store.batches.rowsInState(batchId, ['accepted']);
  const engineIds = new Map((engineInternals(engine).db.prepare(`SELECT external_id, id FROM transactions WHERE external_id LIKE ?`).all(`${prefix}-%`) as { external_id: string; id: string }[]).map((tx) => [tx.external_id, tx.id]));
  expect(sentRows.filter((row) => row.transactionId !== engineIds.get(row.externalId))).toEqual([]);
  // What the kill left (printed: it depends on the moment): who wrote how many rows, rows in flight looked up after the lease.
  const { rows: byLogin } = await root.query<{ created_by: string; n: number }>(`SELECT created_by, count(*)::int AS n FROM entries WHERE batch_id = $1 GROUP BY 1 ORDER BY 1`, [batchId]);
  const { rows: lost } = await root.query<{ n: number }>('SELECT count(DISTINCT entry_seq)::int AS n FROM timeline WHERE message = $1', [LEASE_LOST_MESSAGE]);
  console.log(`seed ${seed}: entries by login ${JSON.stringify(byLogin)}; ${lost[0]!.n} row(s) in flight when ${victim.name} was killed, looked up by external id after its lease ran out`);
  const { rows: lines } = await root.query<{ action: string; actor: string }>(`SELECT action, actor FROM audit_log WHERE action IN ('sender_start', 'send_ask', 'send_ask_answered') ORDER BY id`);
  expect(lines.filter((line) => line.action === 'sender_start')).toHaveLength(2);
  expect(lines.find((line) => line.action === 'send_ask')).toEqual({ action: 'send_ask', actor: 'fatou' });

  // A single payout asked by the desktop: sent once by the survivor, answered with its entry.
  const payout = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request: { ...rows[0]!.request!, external_id: `${prefix}-single` } });
  const answered = await survivor.next((e) => e.event === 'ask-answered' && e.askId === payout.id);
  expect(answered).toMatchObject({ state: 'done' });
  expect(createAsks(posts).get(`${prefix}-single`)).toBe(1);
  // Asked again with the same external id: the journal's guard answers with the first entry, nothing is POSTed.
  const again = await askSender(fatou, { kind: 'payout', profileId: PROFILE_ID, request: { ...rows[0]!.request!, external_id: `${prefix}-single` } });
  const second = await survivor.next((e) => e.event === 'ask-answered' && e.askId === again.id);
  expect(second).toMatchObject({ state: 'done', code: 'ALREADY_SENT', entryId: answered.entryId });
  expect(createAsks(posts).get(`${prefix}-single`)).toBe(1);
}, 300_000);
