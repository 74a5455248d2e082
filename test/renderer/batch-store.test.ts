import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchDetail, BatchProgress, BatchRow } from '../../shared/api';
import { BIG_ROWS_REFRESH_MS, LIVE_ROWS_MAX, PROGRESS_FLUSH_MS, ROWS_REFRESH_MS, createBatchStore } from '../../renderer/src/stores/batch';
import { countsOf } from './batchFake';
import { createFakeApi, ok } from './fakeApi';

function detailOf(rows: number, state: BatchDetail['batch']['state'] = 'sending'): BatchDetail {
  const list: BatchRow[] = Array.from({ length: rows }, (_, i) => ({
    rowNumber: i + 2,
    values: { phone_number: `+2376700${String(i).padStart(5, '0')}`, amount: '1000', first_name: 'A', last_name: 'B', email: 'a@example.com', description: '', external_id: '', payment_method: '', meta: {} },
    request: null,
    errors: {},
    duplicates: [],
    externalId: `B-1-${i + 2}`,
    state: 'not_sent',
    journalId: null,
    transactionId: null,
    status: null,
    failedCode: null,
    fee: null,
    error: null,
    rehearsal: null,
  }));
  const at = '2026-11-23T09:00:00.000Z';
  return {
    batch: { id: 'B-1', fileName: 'f.csv', state, stateReason: null, profileId: 'local', profileName: 'Local sandbox', environment: 'sandbox', paymentMethod: 'momo_cm', concurrency: 4, totalAmount: 0, counts: countsOf(list), fileHash: 'h', retryOf: null, createdAt: at, updatedAt: at, startedAt: at, finishedAt: null },
    rows: list,
    importedBefore: [],
    rehearsal: null,
  };
}

const push = (state: BatchProgress['state'], sent: number): BatchProgress => ({ batchId: 'B-1', mode: 'send', state, sent, accepted: sent, failed: 0, unknown: 0, remaining: 100 - sent, ratePerSecond: 10, etaSeconds: 1, final: 0 });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('batch store: progress pushes', () => {
  it('applies a burst of pushes as one counter update after PROGRESS_FLUSH_MS, and fetches a small batch’s rows at most every ROWS_REFRESH_MS', async () => {
    let state: BatchDetail['batch']['state'] = 'sending';
    const api = createFakeApi({ 'batches:get': () => ok(detailOf(10, state)) });
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    const updates: (BatchProgress | null)[] = [];
    store.subscribe((s, before) => s.progress !== before.progress && updates.push(s.progress));
    for (let sent = 1; sent <= 1000; sent += 1) store.getState().progressed(push('sending', sent));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS);
    expect(updates.map((p) => p?.sent)).toEqual([1000]);
    for (let i = 0; i < 5; i += 1) {
      store.getState().progressed(push('sending', 1000 + i));
      await vi.advanceTimersByTimeAsync(ROWS_REFRESH_MS);
    }
    const fetches = api.callsOf('batches:get').length - 1;
    expect(fetches).toBeGreaterThanOrEqual(2);
    expect(fetches).toBeLessThanOrEqual(Math.ceil((PROGRESS_FLUSH_MS + 5 * ROWS_REFRESH_MS) / ROWS_REFRESH_MS));
    state = 'done';
    store.getState().progressed(push('done', 1010));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS + 1);
    expect(store.getState().detail.value?.batch.state).toBe('done');
  });

  it(`does not fetch the rows of a batch over ${LIVE_ROWS_MAX} rows while it sends, only when its state changes`, async () => {
    let state: BatchDetail['batch']['state'] = 'sending';
    const api = createFakeApi({ 'batches:get': () => ok(detailOf(LIVE_ROWS_MAX + 1, state)) });
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    for (let i = 0; i < 100; i += 1) {
      store.getState().progressed(push('sending', i));
      await vi.advanceTimersByTimeAsync(BIG_ROWS_REFRESH_MS / 10);
    }
    expect(store.getState().progress?.sent).toBe(99);
    expect(api.callsOf('batches:get')).toHaveLength(1);
    state = 'paused';
    store.getState().progressed(push('paused', 100));
    // The flush, then the fetch it schedules at once (a 0 ms timer).
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS + 1);
    expect(api.callsOf('batches:get')).toHaveLength(2);
    expect(store.getState().detail.value?.batch.state).toBe('paused');
  });

  it('ignores pushes of another batch while one is open', async () => {
    const api = createFakeApi({ 'batches:get': () => ok(detailOf(10)) });
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    store.getState().progressed({ ...push('done', 5), batchId: 'B-2' });
    await vi.advanceTimersByTimeAsync(ROWS_REFRESH_MS * 2);
    expect(store.getState().progress).toBeNull();
    expect(api.callsOf('batches:get')).toHaveLength(1);
  });
});
