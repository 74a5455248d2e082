/**
 * History store: the journal search with its filters, fetched page by page as the virtual list
 * scrolls (a 100,000-row journal is never loaded at once), and the CSV export.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, JournalTransaction, PaydeskApi, SearchQuery } from '../../../shared/api';
import { currentLanguage } from '../i18n';

export const HISTORY_PAGE_SIZE = 200;

export interface HistoryState {
  query: SearchQuery;
  /** Bumped on every new query or refresh, so late pages of an old query are dropped. */
  generation: number;
  total: number | null;
  pages: Record<number, JournalTransaction[]>;
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
  const inFlight = new Set<string>();
  /** The rows on screen, so a refresh fetches only those pages (not every page ever scrolled past). */
  let onScreen: [number, number] = [0, HISTORY_PAGE_SIZE - 1];
  const pagesOf = ([first, last]: [number, number]) => {
    const pages: number[] = [];
    for (let page = Math.floor(first / HISTORY_PAGE_SIZE); page <= Math.floor(last / HISTORY_PAGE_SIZE); page += 1) pages.push(page);
    return pages;
  };
  return createStore<HistoryState>()((set, get) => {
    async function fetchPage(page: number, generation: number): Promise<void> {
      const key = `${generation}:${page}`;
      if (inFlight.has(key)) return;
      inFlight.add(key);
      try {
        const result = await api.invoke('transactions:search', {
          query: get().query,
          offset: page * HISTORY_PAGE_SIZE,
          limit: HISTORY_PAGE_SIZE,
        });
        if (generation !== get().generation) return;
        if (!result.ok) {
          set({ status: 'error', error: result.error });
          return;
        }
        set({
          status: 'ready',
          error: null,
          total: result.value.total,
          pages: { ...get().pages, [page]: result.value.rows },
        });
      } finally {
        inFlight.delete(key);
      }
    }
    return {
      query: {},
      generation: 0,
      total: null,
      pages: {},
      status: 'idle',
      error: null,
      exporting: null,
      async search(query) {
        const generation = get().generation + 1;
        set({ query, generation, pages: {}, total: null, status: 'loading', error: null });
        await fetchPage(0, generation);
      },
      async refresh() {
        // Keep the rows on screen while the new ones load, so the list does not flash.
        const generation = get().generation + 1;
        set({ generation });
        const pages = pagesOf(onScreen);
        const fresh: Record<number, JournalTransaction[]> = {};
        await Promise.all(
          pages.map(async (page) => {
            const result = await api.invoke('transactions:search', { query: get().query, offset: page * HISTORY_PAGE_SIZE, limit: HISTORY_PAGE_SIZE });
            if (result.ok) {
              fresh[page] = result.value.rows;
              if (generation === get().generation) set({ total: result.value.total });
            }
          }),
        );
        if (generation === get().generation) set({ pages: fresh, status: 'ready' });
      },
      async ensureRows(first, last) {
        onScreen = [first, Math.max(first, last)];
        const { generation, pages, total } = get();
        if (total === null) return;
        const lastPage = Math.floor(Math.min(last, Math.max(total - 1, 0)) / HISTORY_PAGE_SIZE);
        const wanted: number[] = [];
        for (let page = Math.floor(first / HISTORY_PAGE_SIZE); page <= lastPage; page += 1) {
          if (!pages[page]) wanted.push(page);
        }
        await Promise.all(wanted.map((page) => fetchPage(page, generation)));
      },
      rowAt(index) {
        return get().pages[Math.floor(index / HISTORY_PAGE_SIZE)]?.[index % HISTORY_PAGE_SIZE];
      },
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
