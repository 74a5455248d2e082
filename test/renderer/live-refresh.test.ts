/**
 * The screens follow the journal's change events (`journal:changed`, issue 24 item 5): History,
 * an open transaction's page, the Overview and an open batch read again when a push names what
 * they show, debounced (a burst of pushes is one read), and not when it names something else.
 * No polling loop: with no push, nothing is read again however long the screens stay open.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchDetail, JournalChanged } from '../../shared/api';
import { createStores, wirePushEvents } from '../../renderer/src/stores';
import { LIVE_REFRESH_MS } from '../../renderer/src/stores/batch';
import { createFakeApi, journal, ok } from './fakeApi';

const changed = (overrides: Partial<JournalChanged> = {}): JournalChanged => ({ entries: [], batches: [], reconciliations: [], settings: [], approvals: [], audit: [], everything: false, ...overrides });

const detail = (id: string) => ({ batch: { id, state: 'sending', counts: {} }, importedBefore: [], rehearsal: null }) as unknown as BatchDetail;

async function openScreens() {
  const api = createFakeApi({
    'transactions:search': (input) => ok({ rows: [journal({ id: 'j1' })], total: 1, offset: input.offset ?? 0, limit: input.limit ?? 200 }),
    'transactions:get': () => ok({ transaction: journal({ id: 'j1' }), timeline: [] } as never),
    'overview:get': () => ok({} as never),
    'batches:get': (input) => ok(detail(input.batchId)),
    'batches:rows': () => ok({ rows: [], total: 0 } as never),
  });
  const stores = createStores(api);
  const off = wirePushEvents(api, stores);
  // What each screen does when shown: History's search, a transaction's page, the Overview, a batch.
  await stores.history.getState().search({});
  await stores.transactions.getState().load('j1');
  await stores.overview.getState().load();
  await stores.batch.getState().open('b1');
  await vi.advanceTimersByTimeAsync(5_000);
  api.calls.splice(0);
  return { api, stores, off };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('screens on journal:changed', () => {
  it('read History, the open transaction, the Overview and the open batch again when a push names them', async () => {
    const { api, off } = await openScreens();
    api.emit('journal:changed', changed({ entries: ['j1'], batches: ['b1'] }));
    await vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS + 1_000);
    expect(api.callsOf('transactions:search')).toHaveLength(1);
    expect(api.callsOf('transactions:get')).toEqual([{ journalId: 'j1' }]);
    expect(api.callsOf('overview:get')).toHaveLength(1);
    expect(api.callsOf('batches:get')).toEqual([{ batchId: 'b1' }]);
    off();
  });

  it('reads the open batch again within a second when another desktop sends it (no progress push here)', async () => {
    const { api, off } = await openScreens();
    api.emit('journal:changed', changed({ batches: ['b1'] }));
    await vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS);
    expect(api.callsOf('batches:get')).toEqual([{ batchId: 'b1' }]);
    // A later change: read again, never more often than LIVE_REFRESH_MS.
    api.emit('journal:changed', changed({ batches: ['b1'] }));
    await vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS);
    expect(api.callsOf('batches:get')).toHaveLength(2);
    off();
  });

  it('reads nothing again for a push naming other things, and everything for `everything`', async () => {
    const { api, off } = await openScreens();
    api.emit('journal:changed', changed({ entries: ['j2'], batches: ['b2'] }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(api.callsOf('transactions:get')).toEqual([]);
    expect(api.callsOf('batches:get')).toEqual([]);
    api.emit('journal:changed', changed({ settings: ['theme'] }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(api.callsOf('transactions:search')).toHaveLength(1);
    expect(api.callsOf('overview:get')).toHaveLength(1);

    api.calls.splice(0);
    api.emit('journal:changed', changed({ everything: true }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(api.callsOf('transactions:get')).toEqual([{ journalId: 'j1' }]);
    expect(api.callsOf('batches:get')).toEqual([{ batchId: 'b1' }]);
    expect(api.callsOf('transactions:search')).toHaveLength(1);
    expect(api.callsOf('overview:get')).toHaveLength(1);
    off();
  });

  it('reads once for a burst of pushes, and never without one (no polling loop)', async () => {
    const { api, off } = await openScreens();
    for (let i = 0; i < 50; i += 1) api.emit('journal:changed', changed({ entries: ['j1', `other-${i}`], batches: ['b1'] }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(api.callsOf('transactions:search')).toHaveLength(1);
    expect(api.callsOf('transactions:get')).toHaveLength(1);
    expect(api.callsOf('overview:get')).toHaveLength(1);
    expect(api.callsOf('batches:get')).toHaveLength(1);
    // A steady stream (a push every 20 ms for half a second: faster than main sends them): a few reads, not one per push.
    api.calls.splice(0);
    for (let i = 0; i < 25; i += 1) {
      api.emit('journal:changed', changed({ entries: ['j1'], batches: ['b1'] }));
      await vi.advanceTimersByTimeAsync(20);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    for (const channel of ['transactions:search', 'transactions:get', 'overview:get', 'batches:get'] as const) {
      expect(api.callsOf(channel).length, channel).toBeGreaterThan(0);
      expect(api.callsOf(channel).length, channel).toBeLessThanOrEqual(3);
    }
    api.calls.splice(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(api.calls).toEqual([]);
    off();
  });
});
