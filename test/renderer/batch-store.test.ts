import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchDetail, BatchProgress, BatchRow } from '../../shared/api';
import { BATCH_PAGE_SIZE, PROGRESS_FLUSH_MS, ROWS_REFRESH_MS, createBatchStore } from '../../renderer/src/stores/batch';
import { countsOf } from './batchFake';
import { createFakeApi, ok } from './fakeApi';

function rowsOf(count: number): BatchRow[] {
  return Array.from({ length: count }, (_, i) => ({
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
}

/** Main's side of one batch: its summary (`batches:get`, no rows) and its rows page by page (`batches:rows`). */
function batchApi(count: number) {
  const main = { state: 'sending' as BatchDetail['batch']['state'], rows: rowsOf(count) };
  const at = '2026-11-23T09:00:00.000Z';
  const api = createFakeApi({
    'batches:get': () =>
      ok({
        batch: { id: 'B-1', fileName: 'f.csv', state: main.state, stateReason: null, profileId: 'local', profileName: 'Local sandbox', environment: 'sandbox', paymentMethod: 'momo_cm', concurrency: 4, totalAmount: 0, counts: countsOf(main.rows), fileHash: 'h', retryOf: null, createdAt: at, updatedAt: at, startedAt: at, finishedAt: null },
        importedBefore: [],
        rehearsal: null,
      }),
    'batches:rows': (input) => {
      const offset = input.offset ?? 0;
      const kept = input.filter === 'failed' ? main.rows.filter((row) => row.status === 'failed') : main.rows;
      return ok({ batchId: 'B-1', filter: input.filter ?? 'all', total: kept.length, offset, rows: kept.slice(offset, offset + (input.limit ?? 100)) });
    },
  });
  return { api, main };
}

const push = (state: BatchProgress['state'], sent: number, changedRows?: BatchRow[] | null): BatchProgress => ({
  batchId: 'B-1', mode: 'send', state, sent, accepted: sent, failed: 0, unknown: 0, remaining: 10_000 - sent, ratePerSecond: 10, etaSeconds: 1, final: 0,
  ...(changedRows === undefined ? {} : { changedRows }),
});
const accepted = (row: BatchRow, status: BatchRow['status'] = 'processing'): BatchRow => ({ ...row, state: 'accepted', status, transactionId: `T-${row.rowNumber}` });
const offsets = (api: ReturnType<typeof batchApi>['api']) => api.callsOf('batches:rows').map((input) => (input as { offset?: number }).offset ?? 0);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('batch store: rows page by page, progress as deltas', () => {
  it('opens a 10,000-row batch with one page of rows, and fetches only the pages the list shows', async () => {
    const { api } = batchApi(10_000);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().total).toBe(10_000);
    await store.getState().ensureRows(5_000, 5_020);
    expect(store.getState().rowAt(5_010)?.rowNumber).toBe(5_012);
    expect(offsets(api)).toEqual([0, 5_000]);
    expect(api.callsOf('batches:rows').every((input) => (input as { limit?: number }).limit === BATCH_PAGE_SIZE)).toBe(true);
  });

  it('applies a burst of pushes as one update, and patches the rows it holds with the changed rows pushed, fetching nothing', async () => {
    const { api, main } = batchApi(10_000);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    const updates: (BatchProgress | null)[] = [];
    store.subscribe((s, before) => s.progress !== before.progress && updates.push(s.progress));
    const calls = api.calls.length;
    for (let sent = 1; sent <= 1000; sent += 1) store.getState().progressed(push('sending', sent, [accepted(main.rows[sent - 1]!)]));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS);
    expect(updates.map((p) => p?.sent)).toEqual([1000]);
    // Rows 2..101 are on the page held; the other changed rows are fetched when scrolled to.
    expect(store.getState().rowAt(0)).toMatchObject({ rowNumber: 2, state: 'accepted', status: 'processing', transactionId: 'T-2' });
    expect(store.getState().rowAt(99)).toMatchObject({ rowNumber: 101, state: 'accepted' });
    await vi.advanceTimersByTimeAsync(ROWS_REFRESH_MS * 3);
    expect(api.calls.length).toBe(calls);
  });

  it('a push that cannot say which rows changed fetches the rows on screen and the summary, at most every ROWS_REFRESH_MS', async () => {
    const { api } = batchApi(10_000);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    await store.getState().ensureRows(3_000, 3_015);
    const before = api.callsOf('batches:rows').length;
    for (let i = 0; i < 10; i += 1) {
      store.getState().progressed(push('sending', i, null));
      await vi.advanceTimersByTimeAsync(ROWS_REFRESH_MS / 2);
    }
    const refreshed = offsets(api).slice(before);
    expect(new Set(refreshed)).toEqual(new Set([3_000]));
    expect(refreshed.length).toBeGreaterThanOrEqual(2);
    expect(refreshed.length).toBeLessThanOrEqual(Math.ceil((10 * ROWS_REFRESH_MS) / 2 / ROWS_REFRESH_MS) + 1);
  });

  it('when the batch ends, fetches its summary and the rows on screen at once, never the whole batch', async () => {
    const { api, main } = batchApi(10_000);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    const before = api.callsOf('batches:rows').length;
    main.state = 'done';
    main.rows = main.rows.map((row) => accepted(row, 'completed'));
    store.getState().progressed(push('done', 10_000, []));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS + 1);
    expect(store.getState().detail.value?.batch.state).toBe('done');
    expect(offsets(api).slice(before)).toEqual([0]);
    expect(store.getState().rowAt(0)?.status).toBe('completed');
  });

  it('rows fetched again keep their objects when unchanged (a memoised row is not drawn again), new ones where they changed', async () => {
    const { api, main } = batchApi(300);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    const [first, second] = [store.getState().rowAt(0), store.getState().rowAt(1)];
    main.state = 'done';
    main.rows = main.rows.map((row, index) => (index === 1 ? accepted(row, 'completed') : { ...row }));
    store.getState().progressed(push('done', 300, []));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS + 1);
    expect(store.getState().rowAt(1)?.status).toBe('completed');
    expect(store.getState().rowAt(1)).not.toBe(second);
    expect(store.getState().rowAt(0)).toBe(first);
  });

  it('a filtered list is fetched again (rows may join or leave it), not patched', async () => {
    const { api, main } = batchApi(300);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    await vi.advanceTimersByTimeAsync(0);
    store.getState().setFilter('failed');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().total).toBe(0);
    main.rows[4] = accepted(main.rows[4]!, 'failed');
    store.getState().progressed(push('sending', 5, [main.rows[4]!]));
    await vi.advanceTimersByTimeAsync(PROGRESS_FLUSH_MS + ROWS_REFRESH_MS);
    expect(store.getState().total).toBe(1);
    expect(store.getState().rowAt(0)?.rowNumber).toBe(6);
  });

  it('ignores pushes of another batch while one is open', async () => {
    const { api } = batchApi(10);
    const store = createBatchStore(api);
    await store.getState().open('B-1');
    store.getState().progressed({ ...push('done', 5), batchId: 'B-2' });
    await vi.advanceTimersByTimeAsync(ROWS_REFRESH_MS * 2);
    expect(store.getState().progress).toBeNull();
    expect(api.callsOf('batches:get')).toHaveLength(1);
  });
});
