/**
 * The storage contract, following entries up (storage/port.ts FollowUpJournal): the same
 * behaviours against a SQLite journal file and a PostgreSQL workspace, as contract.test.ts does,
 * so Look up, Verify, a resend and the watcher cannot behave differently on one store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx, storesUnderTest } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const MAY_EXIST = { kind: 'may-exist', cause: 'no-answer', message: 'timed out', error: null, retryAfterSeconds: null } as const;

describe.each(storesUnderTest(() => workspaces))('$name store', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });
  const accepted = async (externalId: string, at: number) => {
    const request = payoutRequest({ external_id: externalId });
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at });
    const tx = serviceTx(request);
    await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx, httpStatus: 201, message: null }, at + 1);
    return { id, tx };
  };

  it('gives an entry with the request as sent and its resolution once looked up and not found; nothing for an unknown id', async () => {
    const request = payoutRequest({ external_id: 'F-1', amount: 4200 });
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 });
    await store.journal.writeInitiateOutcome(id, MAY_EXIST, 1_100);
    expect(await store.journal.getForFollowUp(id)).toMatchObject({ entry: { id, state: 'outcome_unknown', externalId: 'F-1' }, request, resolution: null });
    await store.journal.recordNotFound(id, 1_200, 'no payout F-1');
    expect((await store.journal.getForFollowUp(id))?.resolution).toBe('not_found');
    expect(await store.journal.getForFollowUp('no-such-entry')).toBeNull();
  });

  it('finds the entries of a transaction id, newest first, within one profile and environment when scoped', async () => {
    const { id, tx } = await accepted('F-2', 2_000);
    const live = { ...PROFILE, environment: 'live' as const };
    const other = await store.journal.recordLookedUp({ profile: live, kind: 'payout', tx, httpStatus: 200, at: 3_000 });
    expect(other.id).not.toBe(id);
    expect((await store.journal.findByTransactionId(tx.transaction_id)).map((entry) => entry.id)).toEqual([other.id, id]);
    expect((await store.journal.findByTransactionId(tx.transaction_id, { profileId: PROFILE.id, environment: 'sandbox' })).map((entry) => entry.id)).toEqual([id]);
    expect(await store.journal.findByTransactionId('tr_none')).toEqual([]);
  });

  it('records a Look up on the entry that has its transaction id, once; a transaction the console never sent becomes one known entry', async () => {
    const { id, tx } = await accepted('F-3', 4_000);
    const same = await store.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: { ...tx, status: 'completed' }, httpStatus: 200, at: 4_100 });
    expect(same).toMatchObject({ id, status: 'completed' });
    expect((await store.journal.getTimeline(id)).map((event) => [event.type, event.message])).toEqual([
      ['status_seen', 'looked up'],
      ['response', 'payout created'],
      ['request_sent', 'payout request sent'],
    ]);

    const foreign = serviceTx(payoutRequest({ external_id: 'F-4', amount: 777, phone_number: '+237690000777' }), { status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' });
    const added = await store.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: foreign, httpStatus: 200, at: 5_000 });
    expect(added).toMatchObject({ state: 'known', transactionId: foreign.transaction_id, externalId: 'F-4', status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS', amount: 777, phoneNumber: '+237690000777' });
    expect((await store.journal.getForFollowUp(added.id))?.request).toBeNull();
    const again = await store.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: foreign, httpStatus: 200, at: 5_100 });
    expect(again.id).toBe(added.id);
    // Seen again unchanged: no second event.
    expect((await store.journal.getTimeline(added.id)).map((event) => [event.type, event.status, event.httpStatus])).toEqual([['status_seen', 'failed', 200]]);
    expect((await store.journal.findByTransactionId(foreign.transaction_id)).length).toBe(1);
  });

  it('records a failed Verify as an event only: the entry keeps its phase and status', async () => {
    const { id } = await accepted('F-5', 6_000);
    const afterApiError = await store.journal.recordReadFailure(id, { kind: 'api-error', error: { code: 'UNAUTHORIZED', message: 'bad key', httpStatus: 401 } }, 6_100);
    expect(afterApiError).toMatchObject({ state: 'known', status: 'processing' });
    const afterTransport = await store.journal.recordReadFailure(id, { kind: 'transport', outcome: 'unknown', message: 'timed out' }, 6_200);
    expect(afterTransport).toMatchObject({ state: 'known', status: 'processing', updatedAt: new Date(6_200).toISOString() });
    expect((await store.journal.getTimeline(id)).slice(0, 2).map((event) => [event.type, event.code ?? null, event.outcome ?? null, event.message])).toEqual([
      ['transport_failure', null, 'unknown', 'timed out'],
      ['api_error', 'UNAUTHORIZED', null, 'bad key'],
    ]);
    await expect(store.journal.recordReadFailure('no-such-entry', { kind: 'transport', outcome: 'unknown', message: 'x' }, 6_300)).rejects.toThrow(/does not exist/);
  });

  it('records a status known only by its status, says whether it changed, and adds its event each time', async () => {
    const { id } = await accepted('F-6', 7_000);
    expect(await store.journal.recordStatusEvent(id, 'processing', 'pushed; not read', 7_100)).toMatchObject({ changed: false, entry: { status: 'processing' } });
    expect(await store.journal.recordStatusEvent(id, 'completed', 'pushed; not read', 7_200)).toMatchObject({ changed: true, entry: { status: 'completed', state: 'known' } });
    expect((await store.journal.getTimeline(id)).slice(0, 2).map((event) => [event.type, event.status])).toEqual([
      ['sandbox_status', 'completed'],
      ['sandbox_status', 'processing'],
    ]);
  });

  it('records a sandbox status push only when it changed (grouped on SQLite, one transaction on PostgreSQL)', async () => {
    const { id, tx } = await accepted('F-7', 8_000);
    const quiet = { type: 'sandbox_status', message: 'status changed in the local sandbox', quietUnlessChanged: true } as const;
    expect((await store.journal.recordObserved(id, tx, quiet, 8_100)).changed).toBe(false);
    expect(await store.journal.recordObserved(id, { ...tx, status: 'completed' }, quiet, 8_200)).toMatchObject({ changed: true, entry: { status: 'completed' } });
    expect((await store.journal.getTimeline(id)).map((event) => event.type)).toEqual(['sandbox_status', 'response', 'request_sent']);
  });

  it('records a status seen whole: a failed code alone is a change, a Verify adds its event even unchanged, and an entry not yet known is moved (PostgreSQL: one statement, or the locking path)', async () => {
    const { id, tx } = await accepted('F-8', 9_000);
    const verify = { type: 'verify_result', httpStatus: 200, message: 'verified' } as const;
    // Unchanged, but a Verify is never quiet: its event is written.
    expect(await store.journal.recordObserved(id, tx, verify, 9_100)).toMatchObject({ changed: false, entry: { status: 'processing' } });
    const failed = { ...tx, status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS', fee: 35, net_amount: 665 } as typeof tx;
    expect(await store.journal.recordObserved(id, failed, { type: 'status_seen' }, 9_200)).toMatchObject({ changed: true, entry: { status: 'failed', failedCode: 'NOT_ENOUGH_FUNDS', fee: 35 } });
    // The same status with another failed code is a change too.
    const other = { ...failed, failed_code: 'EXPIRED' } as typeof tx;
    expect(await store.journal.recordObserved(id, other, { type: 'status_seen' }, 9_300)).toMatchObject({ changed: true, entry: { failedCode: 'EXPIRED' } });
    expect((await store.journal.getTimeline(id)).map((event) => [event.type, event.status])).toEqual([
      ['status_seen', 'failed'],
      ['status_seen', 'failed'],
      ['verify_result', 'processing'],
      ['response', 'processing'],
      ['request_sent', null],
    ]);
    expect((await store.journal.getEntry(id))?.updatedAt).toBe(new Date(9_300).toISOString());
    // An entry whose answer was lost (outcome unknown) becomes known by what was seen.
    const request = payoutRequest({ external_id: 'F-9' });
    const lost = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 9_400 });
    await store.journal.writeInitiateOutcome(lost, MAY_EXIST, 9_410);
    expect(await store.journal.recordObserved(lost, { ...serviceTx(request), status: 'completed' }, { type: 'status_seen' }, 9_500)).toMatchObject({
      changed: true,
      entry: { state: 'known', status: 'completed' },
    });
  });
});

describe('PostgreSQL store, as the support login (workspace migration 22)', () => {
  it('records a Look up of a transaction never sent from Paydesk, and a Verify of what finance sent', async () => {
    const database = await workspaces.create();
    const finance = workspaces.storeAs('fatou', database);
    const support = workspaces.storeAs('samuel', database);
    const foreign = serviceTx(payoutRequest({ external_id: 'SF-1', amount: 900 }), { status: 'processing' });
    const added = await support.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: foreign, httpStatus: 200, at: 1_000 });
    expect(added).toMatchObject({ state: 'known', externalId: 'SF-1', status: 'processing', amount: 900 });
    expect((await support.journal.recordLookedUp({ profile: PROFILE, kind: 'payout', tx: { ...foreign, status: 'completed' }, httpStatus: 200, at: 1_100 })).id).toBe(added.id);
    expect((await finance.journal.getEntry(added.id))?.status).toBe('completed');

    const request = payoutRequest({ external_id: 'SF-2' });
    const id = await finance.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 2_000 });
    // Verify reads the transaction the service created: its id, its amount (a sent payout's never change: migration 44).
    const created = serviceTx(request);
    await finance.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: created, httpStatus: 201, message: null }, 2_100);
    const verified = await support.journal.recordObserved(id, { ...created, status: 'failed', failed_code: 'NOT_ENOUGH_FUNDS' }, { type: 'status_seen', httpStatus: 200 }, 2_200);
    expect(verified).toMatchObject({ changed: true, entry: { id, status: 'failed' } });
    await expect(support.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'SF-3' }), currency: 'XAF', at: 3_000 })).rejects.toThrow(
      /row-level security|permission denied/,
    );
  });
});
