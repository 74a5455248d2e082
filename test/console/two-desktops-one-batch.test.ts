/**
 * Several desktops, one batch, each row paid once (issue 24, item 4). Two console processes
 * (test/helpers/workspace-console.ts), logged in to one team workspace on a throwaway PostgreSQL
 * as two finance people, send the same confirmed 1,000-row batch to ONE sandbox engine in this
 * process, under its per-key rate limit (both desktops use the same key, so they share it):
 * - a Pause written by desktop A stops desktop B too;
 * - after both resume, one of them (the seed picks which, and when) is killed with SIGKILL;
 * - the survivor alone finishes: it waits for the dead desktop's leases to run out, looks its
 *   rows in flight up by external id, sends what was never sent, and marks the batch done;
 * - the killed desktop started again finds nothing to do.
 * Then: every row final, the engine holds exactly one transaction per external id and was
 * asked to create each exactly once (any other POST was a 429, which creates nothing), and the
 * counts and totals are exact. Nothing here depends on timing: the kill moment is random (seed
 * printed; PAYDESK_SEED=<n> replays it) and every assertion holds for every seed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { LEASE_LOST_MESSAGE, type StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import type { DesktopOptions } from '../helpers/workspace-console';
import { createAsks, createdFor, recordPayoutPosts, waitFor as waitUntil, type PayoutPost } from '../helpers/engine-posts';
import { desktopsSituation, seeded, seedFromEnv, spawnDesktop, teamBatchRows, type DesktopProcess } from '../helpers/desktop-process';
import { tempDir } from './helpers';

const ROWS = 1000;
/** Both desktops share one payout key, so one budget: 1,000 rows take two or three minutes' windows. */
const RATE_LIMIT_PER_MINUTE = 600;
/** A killed desktop's rows come back after this (a real desktop holds them 2 minutes). */
const LEASE_MS = 4_000;
const WATCH_MS = 500;
const PROFILE_ID = 'team-sandbox';

const seed = seedFromEnv();
console.log(`two desktops, one batch: seed ${seed} (PAYDESK_SEED=${seed} replays it)`);
const random = seeded(seed);

/** A desktop in a child process: commands on its stdin, its events read from its stdout. */
type Desktop = DesktopProcess;

const dir = tempDir('paydesk-two-desktops-');
let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
let store: StoragePort;
const desktops: Desktop[] = [];
/** Every POST of a payout the engine answered: its external id and HTTP status. */
let posts: PayoutPost[] = [];

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  store = workspaces.storeAs('tester', database);
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: RATE_LIMIT_PER_MINUTE }, variants: ['duplicates-accepted'] /* only the journal keeps a row from being paid twice */ });
  posts = recordPayoutPosts(engine);
}, 60_000);

afterAll(async () => {
  for (const desktop of desktops) desktop.child.kill('SIGKILL');
  await Promise.all(desktops.map((desktop) => desktop.exited));
  await engine?.stop();
  await workspaces?.stop();
});

function startDesktop(name: string, person: Person, userDataDir: string): Desktop {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const options: DesktopOptions = { userDataDir, workspace: workspaces.server.config(person, database), baseUrl: engine.api.url, profileId: PROFILE_ID, keys, leaseMs: LEASE_MS, watchMs: WATCH_MS };
  const desktop = spawnDesktop(name, options);
  desktops.push(desktop);
  return desktop;
}

/** Transactions the engine created for this batch's external ids. */
const created = (prefix: string) => createdFor(engine, prefix);

/** What the desktops and the workspace say, for a failure's message. */
async function situation(batchId: string): Promise<string> {
  const summary = await store.batches.summary(batchId).catch(() => null);
  return `batch ${summary?.state} ${JSON.stringify(summary?.counts)}; ${posts.length} POSTs (${posts.filter((post) => post.status === 429).length} × 429)\n${desktopsSituation(desktops)}`;
}

/** The promise, or a failure that says where things stand after `ms`. */
async function within<T>(promise: Promise<T>, what: string, batchId: string, ms = 150_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => void situation(batchId).then((text) => reject(new Error(`gave up waiting: ${what}\n${text}`))), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const waitFor = (check: () => boolean | Promise<boolean>, what: string, batchId: string, ms = 150_000) => waitUntil(check, what, () => situation(batchId), ms);

it('sends one 1,000-row batch from two desktops, one killed mid-batch: each row paid once, every row final, counts and totals exact; a Pause on one stops both', async () => {
  const prefix = `TD${seed}`;
  const rows = teamBatchRows(prefix, ROWS, 1000);
  const total = rows.reduce((sum, row) => sum + row.request!.amount, 0);
  const batchId = `batch-${seed}`;
  await store.batches.create({ id: batchId, fileName: 'team.csv', fileHash: `hash-${seed}`, profile: { id: PROFILE_ID, name: 'Team sandbox', environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 4, retryOf: null, rows, at: Date.now() });

  const a = startDesktop('A', 'fatou', join(dir, 'desktop-a'));
  const b = startDesktop('B', 'kofi', join(dir, 'desktop-b'));
  await Promise.all([a.next((e) => e.event === 'ready'), b.next((e) => e.event === 'ready')]);

  // Both send; A pauses once a few rows are paid: B stops too, nothing is left in flight.
  a.send(`run ${batchId}`);
  b.send(`run ${batchId}`);
  const pauseAt = 40 + Math.floor(random() * 60);
  await waitFor(() => created(prefix).length >= pauseAt, `${pauseAt} rows created`, batchId);
  a.send(`pause ${batchId}`);
  const [pausedA, pausedB] = await within(Promise.all([a.next((e) => e.event === 'ended'), b.next((e) => e.event === 'ended')]), 'both desktops paused', batchId);
  expect([pausedA.state, pausedB.state]).toEqual(['paused', 'paused']);
  const paused = (await store.batches.summary(batchId))!;
  expect(paused.state).toBe('paused');
  expect(paused.counts.pending).toBe(0);
  // Each desktop sends at most the rows it had claimed when the Pause came (claims of 10).
  expect(paused.counts.notSent).toBeGreaterThan(0);
  expect(created(prefix).length).toBe(paused.counts.accepted + paused.counts.unknown);

  // Both resume; at a random moment one of them is killed.
  const victim = random() < 0.5 ? a : b;
  const survivor = victim === a ? b : a;
  const killAt = paused.counts.accepted + 20 + Math.floor(random() * (ROWS - paused.counts.accepted - 120));
  const extraMs = Math.floor(random() * 300);
  console.log(`seed ${seed}: paused at ${pauseAt} created, kill ${victim.name} at ${killAt} created + ${extraMs} ms`);
  a.send(`run ${batchId}`);
  b.send(`run ${batchId}`);
  await waitFor(() => created(prefix).length >= killAt, `${killAt} rows created`, batchId);
  await new Promise((resolve) => setTimeout(resolve, extraMs));
  victim.child.kill('SIGKILL');
  expect(await victim.exited).toBe('SIGKILL');

  // The survivor alone ends the batch.
  const ended = await within(survivor.next((e) => e.event === 'ended' && survivor.events.filter((x) => x.event === 'ended').indexOf(e) === 1), 'the survivor ends the batch', batchId);
  expect(ended.state).toBe('done');

  // The killed desktop, started again on its folder and login, finds nothing left to do.
  const again = startDesktop(`${victim.name} again`, victim === a ? 'fatou' : 'kofi', join(dir, victim === a ? 'desktop-a' : 'desktop-b'));
  const ready = await again.next((e) => e.event === 'ready');
  expect(ready.notices).not.toContain('BATCH_INTERRUPTED');
  expect(ready.notices).not.toContain('OUTCOME_UNKNOWN');
  again.send('close');
  survivor.send('close');
  await Promise.all([again.next((e) => e.event === 'closed'), survivor.next((e) => e.event === 'closed')]);

  // Every row final, counts and totals exact.
  const final = (await store.batches.summary(batchId))!;
  expect(final.state).toBe('done');
  expect(final.counts).toMatchObject({ rows: ROWS, valid: ROWS, accepted: ROWS, notSent: 0, pending: 0, unknown: 0, rejected: 0 });
  expect(final.totalAmount).toBe(total);
  const sentRows = await store.batches.rowsInState(batchId, ['accepted']);
  expect(sentRows).toHaveLength(ROWS);

  // The engine: exactly one transaction per external id, the batch's ids and no other, the amounts summing to the total.
  const transactions = created(prefix);
  expect(transactions).toHaveLength(ROWS);
  expect(transactions.filter((tx) => tx.n !== 1)).toEqual([]);
  expect(new Set(transactions.map((tx) => tx.external_id))).toEqual(new Set(rows.map((row) => row.externalId)));
  expect(transactions.reduce((sum, tx) => sum + tx.amount, 0)).toBe(total);
  // Each row's entry holds the engine's transaction for its external id.
  const engineIds = new Map((engineInternals(engine).db.prepare(`SELECT external_id, id FROM transactions WHERE external_id LIKE ?`).all(`${prefix}-%`) as { external_id: string; id: string }[]).map((tx) => [tx.external_id, tx.id]));
  expect(sentRows.filter((row) => row.transactionId !== engineIds.get(row.externalId))).toEqual([]);
  // Never sent blindly: each external id was asked to be created once; every other POST met the rate limit (nothing created).
  const asked = createAsks(posts);
  expect([...asked].filter(([, n]) => n !== 1)).toEqual([]);
  expect(asked.size).toBe(ROWS);
  // What the kill left (printed: it depends on the moment): rows in flight made outcome unknown by the lost lease.
  const sql = await workspaces.connectAs('tester', database);
  const { rows: lost } = await sql.query<{ n: number }>('SELECT count(DISTINCT entry_seq)::int AS n FROM timeline WHERE message = $1', [LEASE_LOST_MESSAGE]);
  console.log(`seed ${seed}: ${lost[0]!.n} row(s) in flight when ${victim.name} was killed, looked up by external id after its lease ran out`);
  // How often the shared rate limit was met: printed, not asserted (it depends on the moment).
  console.log(`seed ${seed}: ${posts.length} POSTs, ${posts.filter((post) => post.status === 429).length} met the rate limit`);
  // Every payout settles at the engine (its final status).
  await waitFor(() => created(prefix).every((tx) => tx.status === 'completed'), 'every payout completed at the engine', batchId, 30_000);
}, 300_000);
