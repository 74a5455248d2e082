/**
 * The change events' contract (electron/console/storage/changes-port.ts) on both stores: a write
 * committed through the port is heard by a subscriber as small events naming what changed (an
 * entry and its batch, a batch, a reconcile run, a team setting); a write that failed is heard by
 * no one; a burst reaches a listener with each id once per delivery; an unsubscribed listener
 * hears nothing more. On one desktop's SQLite journal these are its own commits; on a workspace,
 * every desktop's (test/console/live-desktops.test.ts has two consoles).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, payoutRequest, PROFILE, serviceTx, storesUnderTest, writeRowRequest } from './fixtures';
import { hear, named } from './hear-changes';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

const keyOf = (change: { kind: string; id?: string }) => `${change.kind}:${change.id ?? ''}`;

describe.each(storesUnderTest(() => workspaces))('$name store: change events', ({ open }) => {
  let store: StoragePort;
  beforeAll(async () => {
    store = await open();
  });

  it('names what was committed: an entry with its batch, the batch, a reconcile run, a team setting', async () => {
    const hearing = hear(store.changes);
    await store.changes.ready();
    const single = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'CH-1' }), currency: 'XAF', at: 1_000 });
    await hearing.until((heard) => named(heard, 'entry', single));
    expect(hearing.heard().find((change) => change.kind === 'entry' && change.id === single)).toEqual({ kind: 'entry', id: single, batchId: null });

    await store.batches.create({ id: 'ch-b', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(2), at: 1_000 });
    await hearing.until((heard) => named(heard, 'batch', 'ch-b'));
    await store.batches.setState('ch-b', 'sending', 1_100, { started: true });
    const [row] = await store.batches.rowsInState('ch-b', ['not_sent']);
    const rowEntry = await writeRowRequest(store, { profile: PROFILE, kind: 'payout', request: row!.request!, currency: 'XAF', at: 1_200, batch: { id: 'ch-b', row: row!.rowNumber } });
    // A workspace tells its listener a moment after the write resolved: heard, then forgotten.
    await hearing.until((heard) => named(heard, 'entry', rowEntry));
    hearing.clear();
    // The answer names the entry only; the store says which batch it belongs to.
    await store.journal.writeInitiateOutcome(rowEntry, { kind: 'accepted', tx: serviceTx(row!.request!), httpStatus: 201, message: null }, 1_300);
    await hearing.until((heard) => named(heard, 'entry', rowEntry));
    expect(hearing.heard().filter((change) => change.kind === 'entry' && change.id === rowEntry)).toEqual([{ kind: 'entry', id: rowEntry, batchId: 'ch-b' }]);

    const run = await store.reconcile.create({ fileName: 'r.csv', profile: PROFILE, rows: [], processingMinutes: 30, period: null, currency: 'XAF', at: 1_000 });
    await hearing.until((heard) => named(heard, 'reconciliation', run));
    await store.settings.set('ch.key', 1, 1_000);
    await hearing.until((heard) => named(heard, 'setting', 'ch.key'));
    expect(hearing.heard().some((change) => change.kind === 'everything')).toBe(false);
    hearing.stop();
  });

  it('tells no one of a write that failed: the next change heard is the next one committed', async () => {
    const refused = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'CH-2' }), currency: 'XAF', at: 1_000 });
    await store.journal.writeInitiateOutcome(refused, { kind: 'accepted', tx: serviceTx(payoutRequest({ external_id: 'CH-2' })), httpStatus: 200, message: null }, 1_100);
    const hearing = hear(store.changes);
    await store.changes.ready();
    // A workspace tells its listener a moment after the write resolved: what came before is heard first, then forgotten.
    await store.settings.set('ch.before', true, 1_150);
    await hearing.until((heard) => named(heard, 'setting', 'ch.before'));
    hearing.clear();
    await expect(store.journal.writeResend(refused, 1_200)).rejects.toThrow(/known/);
    await expect(store.batches.setState('ch-none', 'sending', 1_200)).rejects.toThrow();
    await store.settings.set('ch.after', true, 1_300);
    await hearing.until((heard) => named(heard, 'setting', 'ch.after'));
    expect(hearing.heard().map(keyOf)).toEqual(['setting:ch.after']);
    hearing.stop();
  });

  it('hears a burst with each id once per delivery, in fewer deliveries than writes', async () => {
    const request = payoutRequest({ external_id: 'CH-3' });
    const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 });
    const tx = serviceTx(request);
    await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx, httpStatus: 201, message: null }, 1_100);
    const hearing = hear(store.changes);
    await store.changes.ready();
    const writes = 20;
    await Promise.all(Array.from({ length: writes }, (_, i) => store.journal.recordObserved(id, { ...tx, status: i % 2 ? 'processing' : 'completed' }, { type: 'sandbox_status' }, 1_200 + i)));
    await store.settings.set('ch.burst-end', true, 2_000);
    await hearing.until((heard) => named(heard, 'setting', 'ch.burst-end'));
    for (const delivery of hearing.deliveries) expect(new Set(delivery.map(keyOf)).size).toBe(delivery.length);
    const withEntry = hearing.deliveries.filter((delivery) => named(delivery, 'entry', id));
    expect(withEntry.length).toBeGreaterThan(0);
    expect(withEntry.length).toBeLessThan(writes);
    hearing.stop();
  });

  it('hears nothing more once unsubscribed; other listeners still hear', async () => {
    const gone = hear(store.changes);
    const staying = hear(store.changes);
    await store.changes.ready();
    gone.stop();
    await store.settings.set('ch.later', 1, 1_000);
    await staying.until((heard) => named(heard, 'setting', 'ch.later'));
    expect(gone.heard()).toEqual([]);
    staying.stop();
  });
});
