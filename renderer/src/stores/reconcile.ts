/**
 * Reconcile store: sending the merchant's file in parts, the open reconciliation (summary pushed
 * by `reconcile:progress`, fetched again), its report rows fetched page by page for the virtual
 * list, the earlier runs, and the actions (cancel, resume, verify, export).
 */
import { createStore } from 'zustand/vanilla';
// Values from plain.ts, not shared/api: the stores are in the first chunk, zod is not (issue 28).
import { RECONCILE_PART_CHARS } from '../../../shared/api/plain';
import {
  type ApiFailure,
  type ChannelResults,
  type PaydeskApi,
  type ReconcileCategory,
  type ReconcileProgress,
  type ReconciliationRow,
  type ReconciliationSummary,
} from '../../../shared/api';
import type { Language } from '../../../shared/i18n';
import { createPager, emptyPages, type PagedRows } from './pages';

export const RECONCILE_PAGE_SIZE = 200;

type Rejected = Extract<ChannelResults['reconcile:import'], { accepted: false }>;

export interface ImportOptions {
  processingMinutes: number;
  period?: { from: string; to: string };
}

export interface ReconcileState extends PagedRows<ReconciliationRow> {
  upload: { phase: 'idle' | 'sending' | 'checking' | 'done'; percent: number; rejected: Rejected | null; failure: ApiFailure | null };
  list: ReconciliationSummary[];
  current: ReconciliationSummary | null;
  category: ReconcileCategory | undefined;
  failure: ApiFailure | null;
  exported: { rows: number; filename: string } | null;
  importFile(fileName: string, text: string, options: ImportOptions): Promise<void>;
  loadList(): Promise<void>;
  open(id: string): Promise<void>;
  /** No report open (Back to the screen without one). */
  close(): void;
  setCategory(category: ReconcileCategory | undefined): Promise<void>;
  ensureRows(first: number, last: number): Promise<void>;
  rowAt(index: number): ReconciliationRow | undefined;
  progress(event: ReconcileProgress): void;
  cancel(): Promise<void>;
  resume(): Promise<void>;
  verify(): Promise<void>;
  exportCsv(language: Language): Promise<{ filename: string; csv: string } | null>;
}

export function createReconcileStore(api: PaydeskApi) {
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  return createStore<ReconcileState>()((set, get) => {
    const pager = createPager<ReconciliationRow>({
      pageSize: RECONCILE_PAGE_SIZE,
      get,
      set,
      fetch: (offset, limit) => {
        const current = get().current;
        const category = get().category;
        return current ? api.invoke('reconcile:rows', { id: current.id, offset, limit, ...(category ? { category } : {}) }) : null;
      },
      answered: (failure) => failure && set({ failure }),
    });

    /** Summary and the first page again (after progress, a verify, a category change). */
    async function reload(id = get().current?.id): Promise<void> {
      if (!id) return;
      const summary = await api.invoke('reconcile:get', { id });
      if (!summary.ok) return set({ failure: summary.error });
      set({ current: summary.value });
      await pager.restart();
    }

    async function act(channel: 'reconcile:cancel' | 'reconcile:resume' | 'reconcile:verify'): Promise<void> {
      const current = get().current;
      if (!current) return;
      const result = await api.invoke(channel, { id: current.id });
      if (!result.ok) return set({ failure: result.error });
      set({ current: result.value, failure: null });
      await reload();
    }

    return {
      upload: { phase: 'idle', percent: 0, rejected: null, failure: null },
      list: [],
      current: null,
      category: undefined,
      ...emptyPages<ReconciliationRow>(),
      failure: null,
      exported: null,
      async importFile(fileName, text, options) {
        set({ upload: { phase: 'sending', percent: 0, rejected: null, failure: null }, exported: null });
        const fail = (failure: ApiFailure) => set({ upload: { phase: 'idle', percent: 0, rejected: null, failure } });
        const begun = await api.invoke('reconcile:begin', { fileName });
        if (!begun.ok) return fail(begun.error);
        for (let at = 0; at < text.length; at += RECONCILE_PART_CHARS) {
          const part = await api.invoke('reconcile:append', { uploadId: begun.value.uploadId, text: text.slice(at, at + RECONCILE_PART_CHARS) });
          if (!part.ok) return fail(part.error);
          set({ upload: { ...get().upload, percent: Math.round(((at + RECONCILE_PART_CHARS) / Math.max(text.length, 1)) * 100) } });
        }
        set({ upload: { ...get().upload, phase: 'checking', percent: 100 } });
        const imported = await api.invoke('reconcile:import', { uploadId: begun.value.uploadId, utcOffsetMinutes: new Date().getTimezoneOffset(), ...options });
        if (!imported.ok) return fail(imported.error);
        if (!imported.value.accepted) return set({ upload: { phase: 'done', percent: 100, rejected: imported.value, failure: null } });
        set({ upload: { phase: 'done', percent: 100, rejected: null, failure: null }, current: imported.value.reconciliation, category: undefined });
        await reload();
        await get().loadList();
      },
      async loadList() {
        const result = await api.invoke('reconcile:list', {});
        if (!result.ok) return;
        set({ list: result.value.reconciliations });
        // After a restart the screen opens on the run that was going, shown as interrupted with Resume.
        const latest = result.value.reconciliations[0];
        if (get().current === null && latest && (latest.status === 'running' || latest.status === 'interrupted')) await get().open(latest.id);
      },
      async open(id) {
        set({ current: get().list.find((r) => r.id === id) ?? null, category: undefined, total: null, pages: {}, exported: null, failure: null });
        await reload(id);
      },
      close() {
        set({ current: null, category: undefined, total: null, pages: {}, exported: null, failure: null });
      },
      async setCategory(category) {
        set({ category, total: null });
        await reload();
      },
      ensureRows: (first, last) => pager.ensureRows(first, last),
      rowAt: (index) => pager.rowAt(index),
      progress(event) {
        const current = get().current;
        if (current?.id === event.id) {
          set({ current: { ...current, status: event.status, phase: event.phase, checkedRows: event.checkedRows, verify: event.verify } });
          // Progress comes every few hundred rows: fetch the totals and rows at most every 300 ms.
          if (!refreshTimer) {
            refreshTimer = setTimeout(() => {
              refreshTimer = null;
              void reload();
            }, 300);
          }
        }
        if (event.status !== 'running') void get().loadList();
      },
      cancel: () => act('reconcile:cancel'),
      resume: () => act('reconcile:resume'),
      verify: () => act('reconcile:verify'),
      async exportCsv(language) {
        const current = get().current;
        if (!current) return null;
        const category = get().category;
        const result = await api.invoke('reconcile:export', { id: current.id, language, ...(category ? { category } : {}) });
        if (!result.ok) {
          set({ failure: result.error });
          return null;
        }
        set({ exported: { rows: result.value.rows, filename: result.value.filename } });
        return { filename: result.value.filename, csv: result.value.csv };
      },
    };
  });
}
export type ReconcileStore = ReturnType<typeof createReconcileStore>;
