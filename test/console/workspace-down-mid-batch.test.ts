/**
 * The team workspace's server goes away in the middle of a batch (issue 24, item 7): a console
 * host on a real PostgreSQL (password logins), its batch runner sending to a real sandbox engine,
 * and the server stopped at a random moment while rows go out (seed printed; PAYDESK_SEED replays
 * it). Sending stops (every payout the engine holds had its entry recorded first: nothing was sent
 * that the workspace does not know of), what was read stays readable, a Resume or a payout while
 * the server is away is refused with the fault's words and nothing is kept to send later. When the
 * server is back, Try again finds it and the batch resumes from what the database holds: its rows
 * in flight looked up by external id, never sent twice; the engine ends with exactly one
 * transaction per external id. Only what holds for every moment is asserted.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { confSettingsBackend, createSettings } from '../../electron/console/settings';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import type { BatchState } from '../../shared/api';
import { makeTempDir } from '../temp-dir';
import { createAsks, recordPayoutPosts, type PayoutPost } from '../helpers/engine-posts';
import { memoryKeyring } from '../helpers/memory-keyring';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { BATCH_HEADER } from './batch-helpers';
import { expectFail, expectOk, paymentRequest } from './helpers';

const ROWS = 120;
const TEAM_SANDBOX = 'team-sandbox';
const seed = process.env.PAYDESK_SEED ? Number(process.env.PAYDESK_SEED) : randomInt(2 ** 31);
if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`PAYDESK_SEED must be a whole number of 0 or more, not "${process.env.PAYDESK_SEED}"`);
console.log(`workspace down mid-batch: seed ${seed} (PAYDESK_SEED=${seed} replays it)`);

let workspace: PasswordWorkspace;
let engine: EngineHandle;
let host: ConsoleHost | null = null;
const dir = makeTempDir('paydesk-down-mid-batch-');
/** Every POST of a payout the engine answered: its external id and HTTP status. */
let posts: PayoutPost[] = [];

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 } });
  posts = recordPayoutPosts(engine);
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  createSettings(confSettingsBackend(dir)).saveProfile({
    id: TEAM_SANDBOX,
    name: 'Team sandbox',
    baseUrl: engine.api.url,
    environment: 'sandbox',
    headerWord: 'SVC',
    paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
    payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
  });
  host = await startConsoleHost({
    userDataDir: dir,
    transport: 'browser',
    allowLive: false,
    version: '0.0.0-test',
    engine: false,
    keyring: memoryKeyring(),
    client: { retry: { attempts: 1 } },
    // A short lease: the rows in flight when the server went are looked up once it has run out.
    batchClaims: { leaseMs: 3_000, watchMs: 500 },
    workspace: workspace.connection('finance_demo', { tls: 'off' }),
    workspacePassword: workspace.passwords.finance_demo!,
  });
  expectOk(await host.handlers['profiles:activate']({ id: TEAM_SANDBOX }));
  for (const key of keys) expectOk(await host.handlers['secrets:set']({ profileId: TEAM_SANDBOX, keyType: key.type, secret: key.secretKey }));
}, 120_000);

afterAll(async () => {
  await host?.close();
  await engine?.stop();
  await workspace?.stop();
});

const created = (prefix = 'DOWN') => engineInternals(engine).db.prepare(`SELECT external_id FROM transactions WHERE external_id LIKE ?`).all(`${prefix}-%`) as { external_id: string }[];

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 1_200; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

/** A confirmed batch of `rows` sent from this console; the server stopped once `stopAt` payouts exist. Returns the batch and what the screen last read. */
async function sendUntilDown(prefix: string, rows: number, stopAt: number) {
  const lines = Array.from({ length: rows }, (_, index) => `+2376710${String(index).padStart(5, '0')},${100 + index},Person${index},Down,p${index}@example.com,Commission ${index},${prefix}-${index + 1}`);
  const text = `${[BATCH_HEADER, ...lines].join('\n')}\n`;
  const handlers = host!.handlers;
  const { batch } = expectOk(await handlers['batches:import']({ fileName: `${prefix}.csv`, text, paymentMethod: 'momo_cm' }));
  const batchId = batch.id;
  const { confirmationToken } = expectOk(await handlers['batches:prepare']({ batchId }));
  expectOk(await handlers['batches:start']({ batchId, confirmationToken, concurrency: 4 }));
  await until(`${stopAt} payouts created`, () => created(prefix).length >= stopAt);
  // The batch as the screen last read it, while it sends.
  const read = expectOk(await handlers['batches:get']({ batchId }));
  workspace.stopServer();
  const runner = host!.runtime()!.batchRunner;
  await until('the run ended', () => !runner.isRunning(batchId));
  await until('the console knows', async () => (expectOk(await handlers['workspace:status']({})) as { state: string }).state === 'lost');
  return { batchId, read, runner };
}

it('stops sending while the server is away, keeps nothing to send later, and resumes from what the workspace holds after Try again: each row paid once', async () => {
  const handlers = host!.handlers;
  const stopAt = 5 + (seed % (ROWS / 2));
  const { batchId, read, runner } = await sendUntilDown('DOWN', ROWS, stopAt);

  // Sending stopped: the run ended on its own and the console says the connection is lost.
  const sentWhileUp = created().length;
  console.log(`seed ${seed}: server stopped at ${stopAt} created, ${sentWhileUp} when the run ended`);
  expect(sentWhileUp).toBeLessThan(ROWS);

  // While it is away: what was read is still shown; a Resume and a payout are refused with the fault, nothing kept.
  // (The last read may be later than the test's own: the run kept reading until the server went.)
  const shown = expectOk(await handlers['batches:get']({ batchId })).batch;
  expect(shown.id).toBe(read.batch.id);
  expect(shown.counts.rows).toBe(read.batch.counts.rows);
  expect(shown.counts.accepted).toBeGreaterThanOrEqual(read.batch.counts.accepted);
  expect(expectOk(await handlers['batches:get']({ batchId })).batch).toEqual(shown);
  expectFail(await handlers['batches:resume']({ batchId }), 'WORKSPACE_CONNECTION_LOST');
  const payout = { ...paymentRequest({ external_id: 'DOWN-single' }), payment_method: 'momo_cm' };
  // The confirmation step writes nothing; the send is refused before its pending entry, so before any POST.
  const quote = expectOk(await handlers['payouts:prepare']({ request: payout }));
  expectFail(await handlers['payouts:initiate']({ request: payout, confirmationToken: quote.confirmationToken }), 'WORKSPACE_CONNECTION_LOST');
  expect(created().length).toBe(sentWhileUp);

  await workspace.startServer();
  expect(expectOk(await handlers['workspace:retry']({})).status).toMatchObject({ state: 'open' });
  // Every payout the engine holds had its entry recorded before its POST.
  const owner = await workspace.owner();
  const recorded = new Set((await owner.query<{ external_id: string }>('SELECT DISTINCT external_id FROM entries')).rows.map((row) => row.external_id));
  expect(created().filter((tx) => !recorded.has(tx.external_id))).toEqual([]);
  expect(recorded.has('DOWN-single')).toBe(false);

  // Try again sent the batch on from what the workspace holds (no Resume pressed): its rows in flight looked up, the rest sent.
  const state = async (): Promise<BatchState> => expectOk(await handlers['batches:get']({ batchId })).batch.state;
  expect(runner.isRunning(batchId)).toBe(true);
  await until('the batch done', async () => (await state()) === 'done').catch(async (error: unknown) => {
    // Where things stand, for the failure's message: rows still held or pending, and the console's log.
    const log = readFileSync(join(dir, 'logs', 'console.log'), 'utf8').split('\n').slice(-25).join('\n');
    const rows = (await owner.query(`SELECT br.row_number, br.claim_holder, br.lease_until, paydesk_now_ms() AS now, br.journal_id, e.state FROM batch_rows br LEFT JOIN entries e ON e.id = br.journal_id WHERE br.lease_until IS NOT NULL OR e.state = 'pending' OR br.journal_id IS NULL`)).rows;
    throw new Error(`${String(error)}: running ${runner.isRunning(batchId)} ${JSON.stringify(rows)} ${JSON.stringify(expectOk(await handlers['batches:get']({ batchId })).batch.counts)}\n${log}`);
  });
  const final = expectOk(await handlers['batches:get']({ batchId })).batch;
  expect(final.counts).toMatchObject({ rows: ROWS, accepted: ROWS, notSent: 0, pending: 0, unknown: 0 });
  const ids = created().map((tx) => tx.external_id);
  expect(ids).toHaveLength(ROWS);
  expect(new Set(ids).size).toBe(ROWS);
  const asked = createAsks(posts);
  expect([...asked].filter(([, n]) => n !== 1)).toEqual([]);
  await owner.end();
}, 240_000);

it('leaves a batch paused by another desktop while this one was away as it is: Try again sends nothing', async () => {
  const handlers = host!.handlers;
  const { batchId, runner } = await sendUntilDown('HELD', 40, 3);
  await workspace.startServer();
  // Another desktop of the team pauses it meanwhile (as its Pause writes it).
  const owner = await workspace.owner();
  await owner.query(`UPDATE batches SET state = 'paused' WHERE id = $1`, [batchId]);
  await owner.end();
  const sent = created('HELD').length;
  expect(expectOk(await handlers['workspace:retry']({})).status).toMatchObject({ state: 'open' });
  expect(runner.isRunning(batchId)).toBe(false);
  expect(expectOk(await handlers['batches:get']({ batchId })).batch.state).toBe('paused');
  expect(created('HELD').length).toBe(sent);
}, 120_000);
