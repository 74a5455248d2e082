/**
 * A console on a team workspace whose policy asks one approval from 100,000 XAF in the sandbox:
 * the maker (fatou's console, the real handlers and local engine) cannot send a covered payout
 * alone by any path: single send, resend, batch start, resume, a retry's new batch, the runner
 * itself. Each answer is APPROVAL_REQUIRED with what is needed (never INTERNAL), nothing is
 * written, and the same payout goes once kofi (a second login) approved exactly it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalNeed } from '../../shared/api';
import type { StoragePort } from '../../electron/console/storage/port';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { approvalFailure } from '../../electron/console/handlers/approvals';
import { createBatchRunner } from '../../electron/console/batch/runner';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import type { ConsoleClient } from '../../electron/console/deps';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from '../storage/approval-helpers';
import { checkedRows } from '../storage/fixtures';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
let runtime: Awaited<ReturnType<typeof startRuntime>>;
let store: StoragePort;
const SANDBOX = { id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' as const };

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
  runtime = await startRuntime({
    openStorage: async () => {
      store = workspaceStore(openWorkspacePool(workspaces.server.config('fatou', database)));
      return store;
    },
  });
}, 120_000);
afterAll(async () => {
  await runtime?.close();
  await workspaces?.stop();
});

const as = (person: Person) => workspaces.storeAs(person, database).approvals!;

async function payoutsInWorkspace(): Promise<string[]> {
  const raw = await workspaces.connectAs('kofi', database);
  const { rows } = await raw.query<{ external_id: string }>(`SELECT external_id FROM entries WHERE kind = 'payout' ORDER BY external_id`);
  await raw.end();
  return rows.map((row) => row.external_id);
}

async function sendPayout(request: ReturnType<typeof paymentRequest>) {
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

describe('a single payout', () => {
  it('is refused to its maker alone with what it needs, nothing written; asked, approved by another login, it goes', async () => {
    const request = paymentRequest({ amount: 150_000 });
    const refused = expectFail(await sendPayout(request), 'APPROVAL_REQUIRED');
    const need = refused.approval!;
    expect(need).toMatchObject({ subject: 'payout', environment: 'sandbox', currency: 'XAF', amount: 150_000, rows: 1, approvals: 1, approverRole: 'finance' });
    expect(refused.message).toMatch(/needs 1 approval by finance before it is sent: ask for approval first\. Nothing was sent\./);
    expect(await payoutsInWorkspace()).toEqual([]);

    // Asked from the send form: the request keeps the external id the approval binds.
    const asked = expectOk(await runtime.handlers['approvals:askPayout']({ request, remark: 'supplier invoice' }));
    expect(asked.request).toMatchObject({ state: 'awaiting', requestedBy: 'fatou', amount: 150_000 });
    const withId = { ...request, external_id: asked.externalId };
    expect(expectFail(await sendPayout(withId), 'APPROVAL_REQUIRED').approval!.request).toEqual({ id: asked.request!.id, state: 'awaiting' });
    // The maker cannot approve it through the console either.
    expect(expectFail(await runtime.handlers['approvals:approve']({ id: asked.request!.id, digest: asked.request!.digest }), 'APPROVAL_OWN_REQUEST').message).toMatch(/cannot approve or reject their own request/);
    expect(expectOk(await runtime.handlers['approvals:list']({ scope: 'forMe' })).requests).toEqual([]);
    expect(expectOk(await runtime.handlers['approvals:list']({ scope: 'mine' })).requests.map((r) => r.id)).toEqual([asked.request!.id]);

    expect((await as('kofi').approve(asked.request!.id, asked.request!.digest, 'ok')).state).toBe('approved');
    // Another amount under the approved external id is still refused; exactly what was approved goes.
    expectFail(await sendPayout({ ...withId, amount: 150_001 }), 'APPROVAL_REQUIRED');
    const sent = expectOk(await sendPayout(withId));
    expect(sent.externalId).toBe(asked.externalId);
    expect(await payoutsInWorkspace()).toEqual([asked.externalId]);
    const about = expectOk(await runtime.handlers['approvals:about']({ environment: 'sandbox', externalId: asked.externalId }));
    expect(about.requests.map((r) => [r.state, r.decidedBy, r.votes.map((v) => v.voter)])).toEqual([['approved', 'kofi', ['kofi']]]);
  });

  it('maps the gate’s refusal of the entry’s write itself (a policy raised in between) to APPROVAL_REQUIRED with its need', async () => {
    const error = await store.journal
      .writeRequest({ profile: SANDBOX, kind: 'payout', request: paymentRequest({ amount: 400_000, external_id: 'RACE-1' }), currency: 'XAF', at: 1 })
      .then(() => null, (e: unknown) => e);
    const failure = approvalFailure(error)!;
    expect(failure.code).toBe('APPROVAL_REQUIRED');
    expect(failure.extra.approval).toMatchObject({ subject: 'payout', externalId: 'RACE-1', amount: 400_000, approvals: 1 } satisfies Partial<ApprovalNeed>);
    // Anything else is not an approval refusal: a role's refusal of the write stays the workspace's (WORKSPACE_NO_PERMISSION).
    expect(approvalFailure(new Error('connection lost'))).toBeNull();
    const support = workspaceStore(openWorkspacePool(workspaces.server.config('samuel', database)));
    const denied = await support.journal
      .writeRequest({ profile: SANDBOX, kind: 'payout', request: paymentRequest({ amount: 400_000, external_id: 'RACE-2' }), currency: 'XAF', at: 1 })
      .then(() => null, (e: unknown) => e);
    await support.close();
    expect(denied).toMatchObject({ code: '42501' });
    expect(approvalFailure(denied)).toBeNull();
  });
});

describe('a resend', () => {
  it('is refused for a payout written before the policy covered it, the entry left as it was', async () => {
    // The workspace's owner clears the policy (admins ask and approve: migration 46).
    const adele = await workspaces.server.connect(undefined, database);
    await adele.query('DELETE FROM approval_tiers');
    await adele.end();
    const id = await store.journal.writeRequest({ profile: SANDBOX, kind: 'payout', request: paymentRequest({ amount: 300_000, external_id: 'RS-1' }), currency: 'XAF', at: 1 });
    await store.journal.writeInitiateOutcome(id, { kind: 'may-exist', cause: 'no-answer', message: 'timed out', error: null, retryAfterSeconds: null }, 2);
    await store.journal.recordNotFound(id, 3, 'not found by its external id');
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    const refused = expectFail(await runtime.handlers['transactions:resend']({ journalId: id }), 'APPROVAL_REQUIRED');
    expect(refused.approval).toMatchObject({ subject: 'payout', externalId: 'RS-1', amount: 300_000, approvals: 1 });
    expect((await store.journal.getEntry(id))!.state).toBe('outcome_unknown');
  });
});

async function newBatch(id: string, rows = 20, retryOf: string | null = null): Promise<void> {
  await store.batches.create({ id, fileName: `${id}.csv`, fileHash: id, profile: SANDBOX, paymentMethod: null, concurrency: 2, retryOf, rows: checkedRows(rows), at: 1 });
}

describe('a batch', () => {
  it('is refused at Send (start) before the token or any state is touched', async () => {
    await newBatch('b-start');
    const refused = expectFail(await runtime.handlers['batches:start']({ batchId: 'b-start', confirmationToken: 'x'.repeat(20) }), 'APPROVAL_REQUIRED');
    expect(refused.approval).toMatchObject({ subject: 'batch', batchId: 'b-start', amount: 210_000, rows: 20, approvals: 1 });
    expect(refused.message).toMatch(/This batch \(20 rows, total 210,000\) needs 1 approval by finance/);
    expect((await store.batches.summary('b-start'))!.state).toBe('draft');
  });

  it('is refused at Resume, the batch left paused and no row claimed', async () => {
    await newBatch('b-resume');
    await store.batches.setState('b-resume', 'sending', 2, { started: true });
    await store.batches.setState('b-resume', 'paused', 3);
    expectFail(await runtime.handlers['batches:resume']({ batchId: 'b-resume' }), 'APPROVAL_REQUIRED');
    expect((await store.batches.summary('b-resume'))!.state).toBe('paused');
    expect(await store.batches.rowsInState('b-resume', ['not_sent'])).toHaveLength(20);
  });

  it('sends an approved batch’s retry only once the retry, with its own total, is approved too', async () => {
    await newBatch('b-first');
    const asked = (await as('fatou').askBatch('b-first', 'XAF'))!;
    await as('kofi').approve(asked.id, asked.digest);
    await newBatch('b-first-retry', 15, 'b-first');
    expect(expectFail(await runtime.handlers['batches:start']({ batchId: 'b-first-retry', confirmationToken: 'x'.repeat(20) }), 'APPROVAL_REQUIRED').approval).toMatchObject({
      batchId: 'b-first-retry',
      amount: 120_000,
      rows: 15,
    });
    const retry = expectOk(await runtime.handlers['approvals:askBatch']({ batchId: 'b-first-retry' })).request!;
    expect(retry).toMatchObject({ subject: 'batch', amount: 120_000, rows: 15, state: 'awaiting' });
    expect(expectFail(await runtime.handlers['batches:start']({ batchId: 'b-first-retry', confirmationToken: 'x'.repeat(20) }), 'APPROVAL_REQUIRED').approval!.request).toEqual({ id: retry.id, state: 'awaiting' });
  });

  it('sends a cancelled approved batch’s remaining rows, moved to a new batch, only once that batch is approved on its own (issue 37 item 3)', async () => {
    await store.batches.create({ id: 'b-cut', fileName: 'b-cut.csv', fileHash: 'b-cut', profile: SANDBOX, paymentMethod: 'momo_cm', concurrency: 2, retryOf: null, rows: checkedRows(20), at: 1 });
    const asked = (await as('fatou').askBatch('b-cut', 'XAF'))!;
    await as('kofi').approve(asked.id, asked.digest);
    await store.batches.setState('b-cut', 'sending', 2, { started: true });
    await store.batches.setState('b-cut', 'cancelled', 3, { finished: true });
    const moved = expectOk(await runtime.handlers['batches:sendRemaining']({ batchId: 'b-cut' }));
    expect((await store.batches.counts('b-cut')).counts).toMatchObject({ moved: 20, notSent: 0 });
    expect(expectFail(await runtime.handlers['batches:start']({ batchId: moved.batch.id, confirmationToken: 'x'.repeat(20) }), 'APPROVAL_REQUIRED').approval).toMatchObject({
      subject: 'batch',
      batchId: moved.batch.id,
      amount: 210_000,
      rows: 20,
    });
    expect((await store.batches.summary(moved.batch.id))!).toMatchObject({ state: 'draft', counts: { valid: 20 } });
  });

  it('stops in the runner with the approval’s reason when the claim is refused, nothing sent', async () => {
    await newBatch('b-runner');
    await store.batches.setState('b-runner', 'sending', 2, { started: true });
    await store.batches.setState('b-runner', 'interrupted', 3);
    const runner = createBatchRunner(
      {
        resolveProfile: () => ({ ...SANDBOX, baseUrl: 'http://127.0.0.1:9/', headerWord: 'SVC', paymentPublicKey: 'pk', payoutPublicKey: 'pk', builtIn: true }),
        requireAllowed: () => undefined,
        requireSecret: async () => undefined,
        clientFor: () => ({}) as ConsoleClient,
        deps: { journal: runtime.journal, clock: runtime.clock, emit: () => undefined, storage: store },
      },
      { afterRun: () => undefined },
    );
    runner.run('b-runner');
    await runner.settled('b-runner');
    const summary = (await store.batches.summary('b-runner'))!;
    expect(summary.state).toBe('interrupted');
    expect(summary.stateReason).toMatch(/^Sending stopped: This batch \(20 rows, total 210,000\) needs 1 approval by finance/);
    expect(summary.counts.notSent).toBe(20);
  });
});
