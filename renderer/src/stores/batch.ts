/**
 * Bulk payouts store: the past batches, the open batch (all its rows: a batch holds at most 10,000,
 * shown through a virtual list), the preview, the rehearsal, the confirmation, and the progress main
 * pushes while sending. Progress pushes are coalesced: counters are applied at most every
 * PROGRESS_FLUSH_MS and the rows fetched again at most every ROWS_REFRESH_MS, so 10,000 pushes do not
 * mean 10,000 renders or 10,000 fetches.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, BatchConfirmation, BatchDetail, BatchPreview, BatchProgress, BatchRow, BatchSummary, PaydeskApi, Result } from '../../../shared/api';
import { currentLanguage } from '../i18n';

export const PROGRESS_FLUSH_MS = 200;
export const ROWS_REFRESH_MS = 1500;
/**
 * Above this many rows, fetching the whole batch costs a long frame (about 100 ms for 10,000 rows
 * through JSON on a busy 2-core machine, see bench/batch-ui.ts): while such a batch sends, its rows
 * are fetched when its state changes (and on demand), the counters staying live from the pushes;
 * once it has stopped, every BIG_ROWS_REFRESH_MS while statuses settle.
 */
export const LIVE_ROWS_MAX = 2000;
export const BIG_ROWS_REFRESH_MS = 10_000;

/** The columns the table shows and lets the user fix in place, in file order. */
export const EDITABLE_COLUMNS = ['phone_number', 'amount', 'first_name', 'last_name', 'email', 'description', 'external_id'] as const;
export type EditableColumn = (typeof EDITABLE_COLUMNS)[number];

export type RowFilter = 'all' | 'invalid' | 'duplicates' | 'wouldFail' | 'failed';

export const rowInvalid = (row: BatchRow) => Object.keys(row.errors).length > 0;
export const rowFailed = (row: BatchRow) =>
  row.state === 'rejected' || row.state === 'unknown' || row.status === 'failed' || row.status === 'cancelled';
const FILTERS: Record<Exclude<RowFilter, 'all'>, (row: BatchRow) => boolean> = {
  invalid: rowInvalid,
  duplicates: (row) => row.duplicates.length > 0,
  wouldFail: (row) => row.rehearsal?.wouldFail === true,
  failed: rowFailed,
};

interface Loadable<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  value: T | null;
  error: ApiFailure | null;
}
const idle = <T,>(): Loadable<T> => ({ status: 'idle', value: null, error: null });

export interface BatchState {
  list: Loadable<BatchSummary[]>;
  importing: { status: 'idle' | 'reading' | 'error'; fileName: string | null; error: ApiFailure | null };
  openId: string | null;
  detail: Loadable<BatchDetail>;
  filter: RowFilter;
  /** Indexes into detail.rows that the filter keeps (all rows: null, to spare a 10,000-entry array). */
  visible: number[] | null;
  preview: Loadable<BatchPreview>;
  rehearsing: { running: boolean; error: ApiFailure | null };
  /** The latest pushed progress of the open batch (send or rehearsal). */
  progress: BatchProgress | null;
  /** The user read that the same rows were imported before and wants to send them anyway. */
  acceptDuplicateFile: boolean;
  /** A failure of the last action on the open batch (drop, pause, resume, cancel, export...). */
  actionError: ApiFailure | null;
  exported: { filename: string; rows: number } | null;

  loadList(): Promise<void>;
  template(): Promise<{ filename: string; csv: string } | null>;
  importFile(fileName: string, text: string, paymentMethod?: string): Promise<void>;
  open(batchId: string): Promise<void>;
  close(): void;
  refresh(): Promise<void>;
  setFilter(filter: RowFilter): void;
  rowAt(index: number): BatchRow | undefined;
  visibleCount(): number;
  editCell(rowNumber: number, column: string, value: string): Promise<ApiFailure | null>;
  dropRows(rowNumbers: number[]): Promise<void>;
  invalidRowsCsv(): Promise<{ filename: string; csv: string } | null>;
  runPreview(): Promise<void>;
  rehearse(): Promise<void>;
  setAcceptDuplicateFile(accept: boolean): void;
  prepare(typedTotal?: number): Promise<Result<BatchConfirmation>>;
  start(confirmationToken: string, concurrency: number): Promise<Result<BatchSummary>>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  cancel(): Promise<void>;
  retryFailed(): Promise<void>;
  reportCsv(): Promise<{ filename: string; csv: string } | null>;
  /** A `batch:progress` push arrived (any batch). */
  progressed(event: BatchProgress): void;
  /** A journal entry changed: a sent batch's rows may show a new status. */
  transactionChanged(): void;
}

function visibleRows(detail: BatchDetail | null, filter: RowFilter): number[] | null {
  if (!detail || filter === 'all') return null;
  const keep = FILTERS[filter];
  const out: number[] = [];
  detail.rows.forEach((row, index) => keep(row) && out.push(index));
  return out;
}

export function createBatchStore(api: PaydeskApi) {
  let pendingProgress: BatchProgress | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let lastRowsFetch = 0;
  let rowsTimer: ReturnType<typeof setTimeout> | null = null;
  let listTimer: ReturnType<typeof setTimeout> | null = null;
  let fetching = false;
  /** Bumped whenever another batch is opened, so a late answer for the old one is dropped. */
  let generation = 0;

  return createStore<BatchState>()((set, get) => {
    function applyDetail(detail: BatchDetail) {
      if (detail.batch.id !== get().openId) return;
      set({ detail: { status: 'ready', value: detail, error: null }, visible: visibleRows(detail, get().filter) });
    }
    /** Answers that carry a whole detail (edit, drop, retry) replace the rows; the preview is stale then. */
    function tookDetail(result: Result<BatchDetail>): ApiFailure | null {
      if (!result.ok) return result.error;
      applyDetail(result.value);
      set({ preview: idle() });
      return null;
    }
    function patchSummary(summary: BatchSummary) {
      const detail = get().detail.value;
      if (detail && detail.batch.id === summary.id) set({ detail: { ...get().detail, value: { ...detail, batch: summary } } });
    }
    async function fetchRows() {
      const batchId = get().openId;
      if (!batchId || fetching) return;
      fetching = true;
      lastRowsFetch = Date.now();
      const mine = generation;
      try {
        const result = await api.invoke('batches:get', { batchId });
        if (mine !== generation) return;
        if (result.ok) applyDetail(result.value);
        else set({ detail: { ...get().detail, error: result.error } });
      } finally {
        fetching = false;
      }
    }
    /** Rows again soon, but never more often than ROWS_REFRESH_MS (BIG_ROWS_REFRESH_MS for a large batch). */
    function scheduleRows(now = false) {
      if (rowsTimer) {
        if (!now) return;
        clearTimeout(rowsTimer);
      }
      const detail = get().detail.value;
      const big = (detail?.rows.length ?? 0) > LIVE_ROWS_MAX;
      if (!now && big && detail?.batch.state === 'sending') return;
      const wait = now ? 0 : Math.max(0, lastRowsFetch + (big ? BIG_ROWS_REFRESH_MS : ROWS_REFRESH_MS) - Date.now());
      rowsTimer = setTimeout(() => {
        rowsTimer = null;
        void fetchRows();
      }, wait);
    }
    function scheduleListReload() {
      listTimer ??= setTimeout(() => {
        listTimer = null;
        void get().loadList();
      }, ROWS_REFRESH_MS);
    }
    function flushProgress() {
      flushTimer = null;
      const event = pendingProgress;
      pendingProgress = null;
      if (!event) return;
      const before = get().progress;
      set({ progress: event });
      // The first push of a run only confirms the state the rows already have: no fetch for it.
      const stateChanged = get().detail.value?.batch.state !== event.state || (before !== null && before.mode !== event.mode);
      scheduleRows(stateChanged);
    }

    return {
      list: idle(),
      importing: { status: 'idle', fileName: null, error: null },
      openId: null,
      detail: idle(),
      filter: 'all',
      visible: null,
      preview: idle(),
      rehearsing: { running: false, error: null },
      progress: null,
      acceptDuplicateFile: false,
      actionError: null,
      exported: null,

      async loadList() {
        set({ list: { ...get().list, status: get().list.value ? 'ready' : 'loading' } });
        const result = await api.invoke('batches:list', {});
        set({ list: result.ok ? { status: 'ready', value: result.value.batches, error: null } : { status: 'error', value: get().list.value, error: result.error } });
      },
      async template() {
        const result = await api.invoke('batches:template', { language: currentLanguage() });
        if (!result.ok) {
          set({ actionError: result.error });
          return null;
        }
        return result.value;
      },
      async importFile(fileName, text, paymentMethod) {
        set({ importing: { status: 'reading', fileName, error: null } });
        const result = await api.invoke('batches:import', { fileName, text, ...(paymentMethod ? { paymentMethod } : {}) });
        if (!result.ok) {
          set({ importing: { status: 'error', fileName, error: result.error } });
          return;
        }
        set({ importing: { status: 'idle', fileName: null, error: null } });
        generation += 1;
        set({ openId: result.value.batch.id, filter: 'all', preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null });
        applyDetail(result.value);
        void get().loadList();
      },
      async open(batchId) {
        generation += 1;
        set({ openId: batchId, detail: idle(), filter: 'all', visible: null, preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null, rehearsing: { running: false, error: null } });
        set({ detail: { status: 'loading', value: null, error: null } });
        const mine = generation;
        const result = await api.invoke('batches:get', { batchId });
        if (mine !== generation) return;
        if (result.ok) applyDetail(result.value);
        else set({ detail: { status: 'error', value: null, error: result.error } });
      },
      close() {
        generation += 1;
        set({ openId: null, detail: idle(), visible: null, preview: idle(), progress: null, actionError: null, exported: null });
        void get().loadList();
      },
      async refresh() {
        await fetchRows();
      },
      setFilter(filter) {
        set({ filter, visible: visibleRows(get().detail.value, filter) });
      },
      rowAt(index) {
        const { visible, detail } = get();
        const rows = detail.value?.rows;
        if (!rows) return undefined;
        return visible ? rows[visible[index] ?? -1] : rows[index];
      },
      visibleCount() {
        const { visible, detail } = get();
        return visible ? visible.length : (detail.value?.rows.length ?? 0);
      },
      async editCell(rowNumber, column, value) {
        const batchId = get().openId;
        if (!batchId) return null;
        return tookDetail(await api.invoke('batches:updateRow', { batchId, rowNumber, values: { [column]: value } }));
      },
      async dropRows(rowNumbers) {
        const batchId = get().openId;
        if (!batchId || rowNumbers.length === 0) return;
        set({ actionError: tookDetail(await api.invoke('batches:dropRows', { batchId, rowNumbers })) });
      },
      async invalidRowsCsv() {
        const batchId = get().openId;
        if (!batchId) return null;
        const result = await api.invoke('batches:invalidRows', { batchId, language: currentLanguage() });
        if (!result.ok) {
          set({ actionError: result.error });
          return null;
        }
        return result.value;
      },
      async runPreview() {
        const batchId = get().openId;
        if (!batchId) return;
        set({ preview: { status: 'loading', value: null, error: null } });
        const result = await api.invoke('batches:preview', { batchId });
        if (batchId !== get().openId) return;
        set({ preview: result.ok ? { status: 'ready', value: result.value, error: null } : { status: 'error', value: null, error: result.error } });
      },
      async rehearse() {
        const batchId = get().openId;
        if (!batchId || get().rehearsing.running) return;
        set({ rehearsing: { running: true, error: null } });
        const result = await api.invoke('batches:rehearse', { batchId });
        if (batchId !== get().openId) return;
        set({ rehearsing: { running: false, error: result.ok ? null : result.error } });
        await fetchRows();
      },
      setAcceptDuplicateFile(accept) {
        set({ acceptDuplicateFile: accept });
      },
      async prepare(typedTotal) {
        const batchId = get().openId ?? '';
        const accept = get().acceptDuplicateFile;
        return api.invoke('batches:prepare', {
          batchId,
          ...(typedTotal === undefined ? {} : { typedTotal }),
          ...(accept ? { acceptDuplicateFile: true } : {}),
        });
      },
      async start(confirmationToken, concurrency) {
        const batchId = get().openId ?? '';
        const result = await api.invoke('batches:start', { batchId, confirmationToken, concurrency });
        if (result.ok) {
          patchSummary(result.value);
          scheduleRows(true);
        }
        return result;
      },
      async pause() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:pause', { batchId });
        if (result.ok) patchSummary(result.value);
        set({ actionError: result.ok ? null : result.error });
      },
      async resume() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:resume', { batchId });
        if (result.ok) patchSummary(result.value);
        set({ actionError: result.ok ? null : result.error });
        scheduleRows(true);
      },
      async cancel() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:cancel', { batchId });
        if (result.ok) patchSummary(result.value);
        set({ actionError: result.ok ? null : result.error });
        scheduleRows(true);
      },
      async retryFailed() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:retryFailed', { batchId });
        if (!result.ok) {
          set({ actionError: result.error });
          return;
        }
        generation += 1;
        set({ openId: result.value.batch.id, filter: 'all', preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null });
        applyDetail(result.value);
        void get().loadList();
      },
      async reportCsv() {
        const batchId = get().openId;
        if (!batchId) return null;
        const result = await api.invoke('batches:report', { batchId, language: currentLanguage() });
        if (!result.ok) {
          set({ actionError: result.error, exported: null });
          return null;
        }
        set({ actionError: null, exported: { filename: result.value.filename, rows: result.value.rows } });
        return result.value;
      },
      progressed(event) {
        if (event.batchId !== get().openId) {
          // Another batch (e.g. one running while the user looks at the list): the list shows its state.
          if (get().openId === null && get().list.status !== 'idle') scheduleListReload();
          return;
        }
        pendingProgress = event;
        flushTimer ??= setTimeout(flushProgress, PROGRESS_FLUSH_MS);
      },
      transactionChanged() {
        const state = get().detail.value?.batch.state;
        if (state && state !== 'draft') scheduleRows();
      },
    };
  });
}
export type BatchStore = ReturnType<typeof createBatchStore>;
