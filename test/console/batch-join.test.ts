/**
 * "Help send from this desktop" (issue 24 item 4): on a team workspace (a throwaway PostgreSQL
 * cluster), desktop B joins the batch desktop A is sending through `batches:join`, the real engine
 * behind one proxy per desktop (each desktop's profile of the same id points at its own proxy, so
 * the test knows who posted what). A's first POST is held until B has sent rows of its own: both
 * logins paid rows, every row ends accepted, and the engine holds one transaction per external id.
 * Each refusal is checked: a batch not `sending`, a desktop already sending it, a support login,
 * the approval rules, and one desktop's SQLite journal.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { systemClock } from '../../electron/console/deps';
import type { SettingsBackend, SettingsDocument } from '../../electron/console/settings';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { memoryKeyring } from '../helpers/memory-keyring';
import { setPolicy } from '../storage/approval-helpers';
import { makeTempDir } from '../temp-dir';
import { startGateProxy, type GateAction, type GateProxy } from './gate-proxy';
import type { BatchDetail, Result } from '../../shared/api';
import { file } from './never-twice-helpers';
import { withRows } from './batch-helpers';
import { expectFail, expectOk, startRuntime } from './helpers';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
const PROFILE = 'team-sandbox';

let workspaces: TestWorkspaces;
let database: string;
let engine: EngineHandle;
const proxies: GateProxy[] = [];
const runtimes: Runtime[] = [];

function settingsWith(document: SettingsDocument): SettingsBackend {
  let stored = document;
  return {
    path: null,
    read: () => structuredClone(stored),
    write(next) {
      stored = structuredClone(next);
    },
  };
}

/** A desktop of the team: its own data folder and keyring, the workspace as `person`, the team's sandbox profile through its own proxy. */
async function desktop(person: Person, proxy: GateProxy): Promise<Runtime> {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const runtime = await startRuntime({
    engine: false,
    clock: systemClock,
    keyring: memoryKeyring(),
    settingsBackend: settingsWith({
      version: 1,
      activeProfileId: PROFILE,
      profiles: [
        {
          id: PROFILE,
          name: 'Team sandbox',
          baseUrl: proxy.url,
          environment: 'sandbox',
          headerWord: 'SVC',
          paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
          payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
        },
      ],
    }),
    openStorage: async () => workspaces.storeAs(person, database),
    batchClaims: { leaseMs: 30_000, watchMs: 200 },
  });
  runtimes.push(runtime);
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: PROFILE, keyType: key.type, secret: key.secretKey }));
  return runtime;
}

let a: Runtime;
let b: Runtime;
let proxyA: GateProxy;
let proxyB: GateProxy;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-join-engine-'), 'sandbox.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, variants: ['duplicates-accepted'] /* only the journal keeps a row from being paid twice */ });
  proxyA = await startGateProxy(engine.api.url);
  proxyB = await startGateProxy(engine.api.url);
  proxies.push(proxyA, proxyB);
  a = await desktop('fatou', proxyA);
  b = await desktop('kofi', proxyB);
}, 120_000);

afterAll(async () => {
  for (const runtime of runtimes) {
    await runtime.close();
    rmSync(runtime.dir, { recursive: true, force: true });
  }
  for (const proxy of proxies) await proxy.close();
  await engine?.stop();
  await workspaces?.stop();
});

const posts = (proxy: GateProxy) => proxy.seen.filter((request) => request.method === 'POST' && request.externalId !== null);
const engineCount = (externalId: string) => (engineInternals(engine).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

async function importBatch(runtime: Runtime, tag: string, count: number): Promise<{ batchId: string; ids: string[] }> {
  const ids = Array.from({ length: count }, (_, index) => `${tag}-${index + 1}`);
  const draft = expectOk(await runtime.handlers['batches:import']({ fileName: `${tag}.csv`, text: file(count, tag, { ids: (index) => ids[index]! }), paymentMethod: 'momo_cm' }));
  return { batchId: draft.batch.id, ids };
}

async function start(runtime: Runtime, batchId: string): Promise<void> {
  const { confirmationToken } = expectOk(await runtime.handlers['batches:prepare']({ batchId }));
  expectOk(await runtime.handlers['batches:start']({ batchId, confirmationToken, concurrency: 1 }));
}

/** The batch's state, with the reason it was written when not `done` (a failure then says why). */
async function stateWithReason(batchId: string): Promise<string | undefined> {
  const summary = await a.storage.batches.summary(batchId);
  return summary?.state === 'done' || !summary?.stateReason ? summary?.state : `${summary.state}: ${summary.stateReason}`;
}

/** Resolves once a POST through `proxy` has been seen `count` times (now or later). */
async function postsReach(proxy: GateProxy, count: number): Promise<void> {
  // Polled: waitFor answers at once for a request already seen, which would never yield to the proxy.
  while (posts(proxy).length < count) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('Help send from this desktop', () => {
  it('B joins the batch A is sending: both send rows, each row paid once, the batch done', async () => {
    const { batchId, ids } = await importBatch(a, 'JOIN', 30);
    let joined = null as Result<BatchDetail> | null;
    let again = null as Result<BatchDetail> | null;
    // A's first row waits on the wire until B has joined and sent rows of its own.
    let first = true;
    proxyA.decide = async (request): Promise<GateAction> => {
      if (request.method !== 'POST' || !first) return 'forward';
      first = false;
      expect(expectOk(await b.handlers['batches:get']({ batchId })).sendingHere).toBe(false);
      joined = await b.handlers['batches:join']({ batchId });
      again = await b.handlers['batches:join']({ batchId });
      await postsReach(proxyB, 5);
      return 'forward';
    };
    await start(a, batchId);
    expect(expectOk(await a.handlers['batches:get']({ batchId })).sendingHere).toBe(true);
    await expect.poll(() => joined !== null, { timeout: 60_000 }).toBe(true);
    const detail = expectOk(joined!);
    expect(detail.sendingHere).toBe(true);
    expect(detail.batch.state).toBe('sending');
    // Joined twice: the second is refused, this desktop already sends it.
    const twice = expectFail(again!, 'CONFLICT');
    expect(twice.reason).toEqual({ key: 'joinSendingHere', params: {} });

    await expect.poll(() => stateWithReason(batchId), { timeout: 120_000, interval: 200 }).toBe('done');
    await a.batchRunner.settled(batchId);
    await b.batchRunner.settled(batchId);
    proxyA.decide = () => 'forward';

    const rows = (await withRows(a.handlers, batchId)).rows;
    expect(rows.map((row) => row.state)).toEqual(ids.map(() => 'accepted'));
    // One engine transaction and one creating POST per external id, whoever sent it.
    expect(ids.map(engineCount)).toEqual(ids.map(() => 1));
    const sentBy = [...posts(proxyA), ...posts(proxyB)].map((request) => request.externalId).filter((id) => id?.startsWith('JOIN-'));
    expect(sentBy.sort()).toEqual([...ids].sort());
    expect(posts(proxyB).length).toBeGreaterThanOrEqual(5);
    // The workspace says who wrote each row's entry: both logins paid rows.
    const raw = await workspaces.connectAs('tester', database);
    const { rows: writers } = await raw.query<{ created_by: string; n: string }>(`SELECT created_by, COUNT(*) AS n FROM entries WHERE external_id LIKE 'JOIN-%' GROUP BY created_by ORDER BY created_by`);
    await raw.end();
    expect(writers.map((row) => row.created_by)).toEqual(['fatou', 'kofi']);
    expect(writers.reduce((sum, row) => sum + Number(row.n), 0)).toBe(ids.length);
    expect(expectOk(await b.handlers['batches:get']({ batchId })).sendingHere).toBe(false);

    // Done: nothing left to join.
    const ended = expectFail(await b.handlers['batches:join']({ batchId }), 'CONFLICT');
    expect(ended.reason).toEqual({ key: 'joinNotSending', params: { state: 'done' } });
  }, 90_000);

  it('refuses a draft, a support login and a batch the approval rules hold back, and sends nothing for them', async () => {
    const draft = await importBatch(a, 'DRAFT', 2);
    expect(expectFail(await b.handlers['batches:join']({ batchId: draft.batchId }), 'CONFLICT').reason).toEqual({ key: 'joinNotSending', params: { state: 'draft' } });
    expectFail(await b.handlers['batches:join']({ batchId: 'B-none' }), 'NOT_FOUND');

    const proxyS = await startGateProxy(engine.api.url);
    proxies.push(proxyS);
    const support = await desktop('samuel', proxyS);
    const { batchId, ids } = await importBatch(a, 'HELD', 3);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    let onWire: () => void = () => undefined;
    const heldOnWire = new Promise<void>((resolve) => {
      onWire = resolve;
    });
    proxyA.decide = async (request): Promise<GateAction> => {
      if (request.method !== 'POST' || !first) return 'forward';
      first = false;
      onWire();
      await released;
      return 'forward';
    };
    await start(a, batchId);
    // A's rows are claimed and its first POST is on the wire (held: the proxy records it once decided).
    await heldOnWire;

    // A support login may not send: refused before anything runs.
    const refused = expectFail(await support.handlers['batches:join']({ batchId }), 'WORKSPACE_NO_PERMISSION');
    expect(refused.reason).toEqual({ key: 'joinMayNotSend', params: {} });
    expect(support.batchRunner.isRunning(batchId)).toBe(false);

    // The policy now asks one approval for every sandbox amount: B's join is refused as Start and Resume are.
    await setPolicy(workspaces, database, [{ minAmount: 1, approvals: 1 }]);
    const held = expectFail(await b.handlers['batches:join']({ batchId }), 'APPROVAL_REQUIRED');
    expect(held.approval).toMatchObject({ subject: 'batch', rows: 3, approvals: 1 });
    expect(b.batchRunner.isRunning(batchId)).toBe(false);
    const admin = await workspaces.connectAs('adele', database);
    await admin.query('DELETE FROM approval_tiers');
    await admin.end();

    release();
    await expect.poll(() => stateWithReason(batchId), { timeout: 60_000, interval: 200 }).toBe('done');
    await a.batchRunner.settled(batchId);
    proxyA.decide = () => 'forward';
    // Nothing went through B or the support desktop.
    expect(posts(proxyB).filter((request) => request.externalId?.startsWith('HELD-'))).toEqual([]);
    expect(posts(proxyS)).toEqual([]);
    expect(ids.map(engineCount)).toEqual([1, 1, 1]);
  }, 90_000);
});

describe('on one desktop (SQLite)', () => {
  it('refuses to join: a batch there is sent here or interrupted', async () => {
    const alone = await startRuntime({ engine: false, keyring: memoryKeyring() });
    runtimes.push(alone);
    const draft = expectOk(await alone.handlers['batches:import']({ fileName: 'alone.csv', text: file(1, 'ALONE', { ids: () => 'ALONE-1' }), paymentMethod: 'momo_cm' }));
    const refused = expectFail(await alone.handlers['batches:join']({ batchId: draft.batch.id }), 'CONFLICT');
    expect(refused.reason).toEqual({ key: 'joinDesktop', params: {} });
    expect(alone.storage.kind).toBe('sqlite');
    expectFail(await alone.handlers['batches:join']({ batchId: '' } as never), 'INVALID_INPUT');
  });
});
