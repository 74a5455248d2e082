/**
 * History store: the journal search with its filters, fetched page by page as the virtual list
 * scrolls (a 100,000-row journal is never loaded at once), and the CSV export.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, JournalTransaction, PaydeskApi, SearchQuery } from '../../../shared/api';
import { currentLanguage } from '../i18n';
import { createPager, emptyPages, type PagedRows } from './pages';

export const HISTORY_PAGE_SIZE = 200;

export interface HistoryState extends PagedRows<JournalTransaction> {
  query: SearchQuery;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: ApiFailure | null;
  exporting: { rows: number | null; done: boolean; error: ApiFailure | null; filename: string | null } | null;
  search(query: SearchQuery): Promise<void>;
  refresh(): Promise<void>;
  ensureRows(first: number, last: number): Promise<void>;
  rowAt(index: number): JournalTransaction | undefined;
  exportCsv(): Promise<{ filename: string; csv: string } | null>;
}

export function createHistoryStore(api: PaydeskApi) {
  return createStore<HistoryState>()((set, get) => {
    const pager = createPager<JournalTransaction>({
      pageSize: HISTORY_PAGE_SIZE,
      get,
      set,
      fetch: (offset, limit) => api.invoke('transactions:search', { query: get().query, offset, limit }),
      answered: (failure) => set(failure ? { status: 'error', error: failure } : { status: 'ready', error: null }),
    });
    return {
      ...emptyPages<JournalTransaction>(),
      query: {},
      status: 'idle',
      error: null,
      exporting: null,
      async search(query) {
        set({ query, total: null, status: 'loading', error: null });
        await pager.restart();
      },
      // Keeps the rows on screen while the new ones load, so the list does not flash.
      refresh: () => pager.refreshShown(),
      ensureRows: (first, last) => pager.ensureRows(first, last),
      rowAt: (index) => pager.rowAt(index),
      async exportCsv() {
        set({ exporting: { rows: get().total, done: false, error: null, filename: null } });
        const result = await api.invoke('transactions:export', { query: get().query, language: currentLanguage() });
        if (!result.ok) {
          set({ exporting: { rows: null, done: true, error: result.error, filename: null } });
          return null;
        }
        set({ exporting: { rows: result.value.rows, done: true, error: null, filename: result.value.filename } });
        return { filename: result.value.filename, csv: result.value.csv };
      },
    };
  });
}
export type HistoryStore = ReturnType<typeof createHistoryStore>;
