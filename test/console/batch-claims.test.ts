/**
 * The batch runner takes its rows through the storage port's row claims (issue 24), against the
 * real engine behind a proxy, the journal a real SQLite file, the store the one the console's
 * runner uses. While row 1's POST is on the wire, time passes its claim's lease (the store's
 * expireClaims, as a workspace does for a desktop that stopped renewing) and another sender
 * claims the rows after it:
 * - row 1 (its entry pending) becomes outcome unknown, and the answer that comes after does not
 *   decide it: it is looked up by its external id and adopted, never sent again;
 * - the rows the other sender holds are not sent by this console while its lease lives, and are
 *   sent once each when it lets them go.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../electron/console/batch/claims';
import { LEASE_LOST_MESSAGE } from '../../electron/console/storage/port';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { batchReaches, sendConfirmed, withRows } from './batch-helpers';
import { activateEngineProfile, expectOk, startRuntime, virtualClock } from './helpers';
import { file } from './never-twice-helpers';
import { SERVER_ERROR, startGateProxy, type GateProxy } from './gate-proxy';

type Runtime = Awaited<ReturnType<typeof startRuntime>>;
let runtime: Runtime;
let proxy: GateProxy;
/** The runner's clock (startRuntime's own `clock` is not the one given to the runtime). */
const clock = virtualClock();

beforeAll(async () => {
  runtime = await startRuntime({ clock, engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } } });
  proxy = await startGateProxy(runtime.engineUrl!);
  await activateEngineProfile(runtime, proxy.url, 'Finance, claims');
});

afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  rmSync(runtime.dir, { recursive: true, force: true });
});

const OTHER = 'another-desktop';
const posts = (externalId: string) => proxy.seen.filter((request) => request.method === 'POST' && request.externalId === externalId).length;
const engineCount = (externalId: string) =>
  (engineInternals(runtime.engine!).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n;

describe('a claim lost while a row is on the wire', () => {
  it('makes that row outcome unknown, looked up and adopted, not resent; rows another sender holds are left to it', async () => {
    const ids = ['CL-1', 'CL-2', 'CL-3', 'CL-4'];
    const draft = expectOk(await runtime.handlers['batches:import']({ fileName: 'claims.csv', text: file(4, 'claims', { ids: (index) => ids[index]! }), paymentMethod: 'momo_cm' }));
    const batchId = draft.batch.id;
    const numbers = (await withRows(runtime.handlers, batchId)).rows.map((row) => row.rowNumber);
    const { storage } = runtime;
    let lost: Awaited<ReturnType<typeof storage.batches.expireClaims>> = [];
    let taken: number[] = [];
    proxy.decide = async (request) => {
      if (request.method !== 'POST' || request.externalId !== 'CL-1' || posts('CL-1') > 0) return 'forward';
      // Row 1 is on the wire long enough for this console's lease to run out, and another sender claims the rest.
      clock.advance(LEASE_MS + 1);
      lost = await storage.batches.expireClaims(clock.now());
      taken = (await storage.batches.claimRows(batchId, OTHER, 10, 100 * LEASE_MS, clock.now())).rows.map((row) => row.rowNumber);
      // The service took it, but its answer says nothing certain (a 500).
      return SERVER_ERROR({ forward: true });
    };
    const first = await sendConfirmed(runtime, batchId, { concurrency: 1 });
    proxy.decide = () => 'forward';

    expect(lost.map((row) => row.rowNumber)).toEqual(numbers.slice(0, 1));
    expect(taken).toEqual(numbers.slice(1));
    // Row 1 was looked up in the same run and adopted; the rows the other sender holds were not sent.
    expect(first.state).toBe('interrupted');
    const after = await withRows(runtime.handlers, batchId);
    expect(after.rows.map((row) => row.state)).toEqual(['accepted', 'not_sent', 'not_sent', 'not_sent']);
    expect(ids.map(posts)).toEqual([1, 0, 0, 0]);
    const timeline = await storage.journal.getTimeline(after.rows[0]!.journalId!);
    expect(timeline.filter((event) => event.type === 'request_sent')).toHaveLength(1);
    expect(timeline.some((event) => event.message === LEASE_LOST_MESSAGE)).toBe(true);

    // The other sender lets its rows go: a Resume sends each once.
    await storage.batches.releaseClaims(batchId, OTHER, taken);
    const done = batchReaches(runtime, batchId, ['done', 'interrupted']);
    expectOk(await runtime.handlers['batches:resume']({ batchId }));
    expect((await done).state).toBe('done');
    expect(ids.map(posts)).toEqual([1, 1, 1, 1]);
    expect(ids.map(engineCount)).toEqual([1, 1, 1, 1]);
    expect((await withRows(runtime.handlers, batchId)).rows.every((row) => row.state === 'accepted')).toBe(true);
  });
});
