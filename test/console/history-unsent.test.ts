/**
 * History on a team workspace shows the approval requests not sent (issue 37 item 1), through
 * fatou's console (the real handlers, the local engine, a real PostgreSQL workspace; one approval
 * from 100,000 XAF): awaiting and approved-ready-to-send always, a closed one (rejected) when a
 * search names it; a sent request never, it is its entry (once). Support reads them too, and Look
 * up by an external id still waiting says so instead of a plain "not found".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from '../storage/approval-helpers';
import { checkedRows } from '../storage/fixtures';
import { expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let runtime: Awaited<ReturnType<typeof startRuntime>>;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  runtime = await startRuntime({ openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config('fatou', database))) });
}, 120_000);
afterAll(async () => {
  await runtime?.close();
  await workspaces?.stop();
});

const unsent = async (filter: Parameters<(typeof runtime.handlers)['approvals:unsent']>[0] = {}) =>
  expectOk(await runtime.handlers['approvals:unsent'](filter)).requests.map((r) => [r.id, r.state]);

async function ask(externalId: string, amount: number, lastName = 'Nkemdirim') {
  const request = paymentRequest({ amount, external_id: externalId, customer: { first_name: 'Awa', last_name: lastName, email: 'awa@example.com' } });
  return expectOk(await runtime.handlers['approvals:askPayout']({ request })).request!;
}

describe('History’s requests not sent', () => {
  it('lists awaiting and approved-ready requests, newest first; a sent one leaves the group and is its one entry', async () => {
    const first = await ask('HU-SENT', 150_000);
    const second = await ask('HU-WAIT', 250_000, 'Mbappe');
    expect(await unsent()).toEqual([[second.id, 'awaiting'], [first.id, 'awaiting']]);
    // Support (samuel) reads the same group: a support agent is told the payout waits.
    expect((await workspaces.storeAs('samuel', database).approvals!.unsent({})).map((r) => [r.id, r.state])).toEqual([[second.id, 'awaiting'], [first.id, 'awaiting']]);

    await workspaces.storeAs('kofi', database).approvals!.approve(first.id, first.digest, 'ok');
    expect(await unsent()).toEqual([[second.id, 'awaiting'], [first.id, 'approved']]);
    const sent = expectOk(await runtime.handlers['approvals:send']({ id: first.id }));

    // Sent: the request is its entry in History, found once by its external id, never a second row above it.
    expect(await unsent()).toEqual([[second.id, 'awaiting']]);
    expect(await unsent({ text: 'HU-SENT' })).toEqual([]);
    const page = expectOk(await runtime.handlers['transactions:search']({ query: { text: 'HU-SENT' }, offset: 0, limit: 50 }));
    expect(page.rows.map((row) => row.id)).toEqual([sent.id]);
  }, 60_000);

  it('applies History’s search and filters: text (external id, name, request id), amounts, dates', async () => {
    const waiting = (await runtime.handlers['approvals:unsent']({ text: 'HU-WAIT' }));
    const [request] = expectOk(waiting).requests;
    expect(request).toMatchObject({ externalId: 'HU-WAIT', amount: 250_000, state: 'awaiting', phoneNumber: '+237650000001', sent: false });
    expect(await unsent({ text: 'hu-wait' })).toEqual([[request!.id, 'awaiting']]);
    expect(await unsent({ text: 'mbappe' })).toEqual([[request!.id, 'awaiting']]);
    expect(await unsent({ text: String(request!.id) })).toEqual([[request!.id, 'awaiting']]);
    // A typed % is a character, not a wildcard.
    expect(await unsent({ text: 'HU%' })).toEqual([]);
    expect(await unsent({ text: 'HU-WAIT', minAmount: 250_001 })).toEqual([]);
    expect(await unsent({ text: 'HU-WAIT', maxAmount: 250_000, minAmount: 250_000 })).toEqual([[request!.id, 'awaiting']]);
    expect(await unsent({ text: 'HU-WAIT', from: '2099-01-01T00:00:00Z' })).toEqual([]);
    expect(await unsent({ text: 'HU-WAIT', to: '2000-01-01T00:00:00Z' })).toEqual([]);
  });

  it('shows a rejected request only when a search names it, marked rejected; a new request for the same payout replaces it', async () => {
    const rejected = await ask('HU-NO', 300_000);
    await workspaces.storeAs('kofi', database).approvals!.reject(rejected.id, 'wrong supplier');
    expect((await unsent()).map(([id]) => id)).not.toContain(rejected.id);
    expect(await unsent({ text: 'HU-NO' })).toEqual([[rejected.id, 'rejected']]);
    // Asked again: the later request is the payout's, the rejected one its past.
    const again = await ask('HU-NO', 300_000);
    expect(await unsent({ text: 'HU-NO' })).toEqual([[again.id, 'awaiting']]);
  });

  it('finds a batch waiting for approval by one of its rows’ external ids', async () => {
    const profile = { id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' as const };
    await workspaces.storeAs('fatou', database).batches.create({ id: 'hu-batch', fileName: 'hu.csv', fileHash: 'hu', profile, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20, { prefix: 'HUB' }), at: 1 });
    const asked = expectOk(await runtime.handlers['approvals:askBatch']({ batchId: 'hu-batch' })).request!;
    expect(await unsent({ text: 'HUB-17' })).toEqual([[asked.id, 'awaiting']]);
    expect(await unsent({ text: 'hu-batch' })).toEqual([[asked.id, 'awaiting']]);
  });
});

describe('Look up by an external id not sent', () => {
  it('says the payout, or the batch row, awaits approval (request N), not a plain "not found"', async () => {
    const waiting = expectOk(await runtime.handlers['transactions:lookup']({ id: 'HU-WAIT', by: 'external_id', kind: 'payout' }));
    expect(waiting).toMatchObject({ found: false, approval: { state: 'awaiting', subject: 'payout' } });
    const batchRow = expectOk(await runtime.handlers['transactions:lookup']({ id: 'HUB-3', by: 'external_id', kind: 'payout' }));
    expect(batchRow).toMatchObject({ found: false, approval: { state: 'awaiting', subject: 'batch' } });
    // An id no request names is a plain "not found"; a sent one is found (the team's entry).
    const unknown = expectOk(await runtime.handlers['transactions:lookup']({ id: 'HU-NOBODY', by: 'external_id', kind: 'payout' }));
    expect(unknown).toMatchObject({ found: false });
    expect('approval' in unknown).toBe(false);
    expect(expectOk(await runtime.handlers['transactions:lookup']({ id: 'HU-SENT', by: 'external_id', kind: 'payout' }))).toMatchObject({ found: true, source: 'team_journal' });
  });
});
