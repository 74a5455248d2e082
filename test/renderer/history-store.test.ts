import { describe, expect, it } from 'vitest';
import type { SearchQuery } from '../../shared/api';
import { HISTORY_PAGE_SIZE, createHistoryStore } from '../../renderer/src/stores/history';
import { createFakeApi, journal, ok } from './fakeApi';

const TOTAL = 100_000;

function journalApi() {
  return createFakeApi({
    'transactions:search': (input) => {
      const offset = input.offset ?? 0;
      const limit = input.limit ?? 100;
      const rows = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - offset)) }, (_, i) => journal({ id: `j${offset + i}` }));
      return ok({ rows, total: TOTAL, offset, limit });
    },
  });
}

describe('history store', () => {
  it('fetches only the pages the list shows, one page per range, never the whole journal', async () => {
    const api = journalApi();
    const store = createHistoryStore(api);
    await store.getState().search({ status: 'completed' } satisfies SearchQuery);
    expect(store.getState().total).toBe(TOTAL);
    expect(store.getState().rowAt(0)?.id).toBe('j0');
    await store.getState().ensureRows(50_010, 50_030);
    expect(store.getState().rowAt(50_020)?.id).toBe('j50020');
    const offsets = api.callsOf('transactions:search').map((input) => (input as { offset: number }).offset);
    expect(offsets).toEqual([0, 50_000]);
    expect((api.callsOf('transactions:search')[1] as { query: SearchQuery }).query).toEqual({ status: 'completed' });
    // Asking again for rows already there costs nothing.
    await store.getState().ensureRows(50_010, 50_030);
    expect(api.callsOf('transactions:search')).toHaveLength(2);
  });

  it('on a push refresh fetches again only the pages on screen', async () => {
    const api = journalApi();
    const store = createHistoryStore(api);
    await store.getState().search({});
    for (const first of [1000, 20_000, 70_000]) await store.getState().ensureRows(first, first + 15);
    const before = api.callsOf('transactions:search').length;
    await store.getState().refresh();
    const refreshed = api.callsOf('transactions:search').slice(before);
    expect(refreshed.map((input) => (input as { offset: number }).offset)).toEqual([Math.floor(70_000 / HISTORY_PAGE_SIZE) * HISTORY_PAGE_SIZE]);
    expect(store.getState().rowAt(70_001)?.id).toBe('j70001');
  });

  it('drops pages of an older search that arrive late', async () => {
    const api = journalApi();
    const store = createHistoryStore(api);
    const first = store.getState().search({ text: 'old' });
    const second = store.getState().search({ text: 'new' });
    await Promise.all([first, second]);
    expect(store.getState().query).toEqual({ text: 'new' });
    expect(store.getState().generation).toBe(2);
    expect(Object.keys(store.getState().pages)).toEqual(['0']);
  });
});
