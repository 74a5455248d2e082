/**
 * Bulk payouts store: the past batches, the open batch (its summary; its rows come page by page,
 * `batches:rows`, as the virtual table shows them: a batch holds up to 10,000), the preview, the
 * rehearsal, the confirmation, and the progress main pushes while sending. A push carries the rows
 * that changed since the previous one (a delta): the rows held are patched in place, nothing is
 * fetched for them. Pushes are coalesced: applied at most every PROGRESS_FLUSH_MS; the summary's
 * counts and the rows on screen are fetched again at most every ROWS_REFRESH_MS when a push cannot
 * say which rows changed (a filtered list, a state change, a status seen after sending).
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, BatchConfirmation, BatchDetail, BatchPreview, BatchProgress, BatchRow, BatchRowFilter, BatchSummary, JournalChanged, PaydeskApi, RenewedIds, Result } from '../../../shared/api';
import { currentLanguage } from '../i18n';
import { createPager, emptyPages, type PagedRows } from './pages';

export const PROGRESS_FLUSH_MS = 200;
export const ROWS_REFRESH_MS = 1500;
/** The open batch read again this soon when the journal names it and no push of this desktop carries it (another desktop sends). */
export const LIVE_REFRESH_MS = 500;
/** Rows per `batches:rows` page (a screen shows about 15). */
export const BATCH_PAGE_SIZE = 100;
/** The rehearsal card lists this many failing rows; the table's filter has all of them. */
export const WOULD_FAIL_LISTED = 100;

/** The columns the table shows and lets the user fix in place, in file order. */
export const EDITABLE_COLUMNS = ['phone_number', 'amount', 'first_name', 'last_name', 'email', 'description', 'external_id'] as const;
export type EditableColumn = (typeof EDITABLE_COLUMNS)[number];

export type RowFilter = BatchRowFilter;

export const rowInvalid = (row: BatchRow) => Object.keys(row.errors).length > 0;

interface Loadable<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  value: T | null;
  error: ApiFailure | null;
}
const idle = <T,>(): Loadable<T> => ({ status: 'idle', value: null, error: null });

export interface BatchState extends PagedRows<BatchRow> {
  list: Loadable<BatchSummary[]>;
  importing: { status: 'idle' | 'reading' | 'error'; fileName: string | null; error: ApiFailure | null };
  openId: string | null;
  detail: Loadable<BatchDetail>;
  /** The rows the table lists (`batches:rows` filter); `total` counts them. */
  filter: RowFilter;
  /** The first rows the rehearsal says would fail, and how many there are. */
  wouldFail: { rows: BatchRow[]; total: number } | null;
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
  ensureRows(first: number, last: number): Promise<void>;
  rowAt(index: number): BatchRow | undefined;
  editCell(rowNumber: number, column: string, value: string): Promise<ApiFailure | null>;
  dropRows(rows: number[] | 'invalid' | 'sent'): Promise<void>;
  invalidRowsCsv(): Promise<{ filename: string; csv: string } | null>;
  /** The new external ids the open draft's rows sent earlier would take (nothing written): the dialog lists them. */
  planRenewal(): Promise<Result<RenewedIds> | null>;
  /** The open draft's rows sent earlier take new external ids: paid again as new payouts once the draft is confirmed. */
  renewSentIds(): Promise<void>;
  /** `keepShown`: the totals stay on screen while they are computed again (Check the balance again). */
  runPreview(keepShown?: boolean): Promise<void>;
  rehearse(): Promise<void>;
  setAcceptDuplicateFile(accept: boolean): void;
  prepare(typedTotal?: number): Promise<Result<BatchConfirmation>>;
  start(confirmationToken: string, concurrency: number): Promise<Result<BatchSummary>>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Team workspace: this desktop also sends the open batch another desktop is sending. */
  join(): Promise<void>;
  cancel(): Promise<void>;
  retryFailed(): Promise<void>;
  /** A cancelled batch's rows never sent, as a new draft with their own external ids (opened). */
  sendRemaining(): Promise<void>;
  reportCsv(): Promise<{ filename: string; csv: string } | null>;
  /** A `batch:progress` push arrived (any batch). */
  progressed(event: BatchProgress): void;
  /** A journal entry changed: a sent batch's rows may show a new status. */
  transactionChanged(): void;
  /** The journal said what changed (any desktop's writes on a workspace): the open batch or the list reads again if named. */
  journalChanged(changed: JournalChanged): void;
}

export function createBatchStore(api: PaydeskApi) {
  let pendingProgress: BatchProgress | null = null;
  /** Changed rows of the pushes not applied yet, by row number (a later push wins). */
  let pendingRows = new Map<number, BatchRow>();
  /** A push said rows changed without saying which: the rows on screen are fetched again. */
  let rowsUnknown = false;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let lastRefresh = 0;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  let listTimer: ReturnType<typeof setTimeout> | null = null;
  let lastProgressAt = -Infinity; // the open batch's last progress push (this desktop sends it)
  /** Bumped whenever another batch is opened, so a late answer for the old one is dropped. */
  let generation = 0;

  return createStore<BatchState>()((set, get) => {
    const pager = createPager<BatchRow>({
      pageSize: BATCH_PAGE_SIZE,
      get,
      set,
      fetch: (offset, limit) => {
        const batchId = get().openId;
        return batchId ? api.invoke('batches:rows', { batchId, filter: get().filter, offset, limit }) : null;
      },
      answered: (failure) => failure && set({ detail: { ...get().detail, error: failure } }),
    });

    /** A new draft made from the open batch (its failed rows, or a cancelled batch's remaining rows), opened. */
    async function openDraftOf(channel: 'batches:retryFailed' | 'batches:sendRemaining'): Promise<void> {
      const batchId = get().openId;
      if (!batchId) return;
      const result = await api.invoke(channel, { batchId });
      if (!result.ok) {
        set({ actionError: result.error });
        return;
      }
      generation += 1;
      set({ openId: result.value.batch.id, filter: 'all', total: null, pages: {}, wouldFail: null, preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null });
      applyDetail(result.value);
      void get().loadList();
    }

    /** The failing rows the rehearsal card lists (the first WOULD_FAIL_LISTED). */
    async function loadWouldFail(detail: BatchDetail): Promise<void> {
      if (!detail.rehearsal || detail.rehearsal.wouldFail === 0) return set({ wouldFail: null });
      const mine = generation;
      const result = await api.invoke('batches:rows', { batchId: detail.batch.id, filter: 'wouldFail', limit: WOULD_FAIL_LISTED });
      if (mine === generation && result.ok) set({ wouldFail: { rows: result.value.rows, total: result.value.total } });
    }
    /**
     * A batch's detail arrived: a batch just opened (import, retry) gets its rows from the top; after
     * an edit or a drop the rows on screen are fetched again and replace the old ones at once, so a
     * row that stays keeps its place and the keyboard focus.
     */
    function applyDetail(detail: BatchDetail, rows: 'opened' | 'changed' = 'opened') {
      if (detail.batch.id !== get().openId) return;
      set({ detail: { status: 'ready', value: detail, error: null } });
      void (rows === 'opened' ? pager.restart() : pager.refreshShown());
      void loadWouldFail(detail);
    }
    /** Answers that carry a whole detail (edit, drop, retry) replace the rows; the preview is stale then. */
    function tookDetail(result: Result<BatchDetail>): ApiFailure | null {
      if (!result.ok) return result.error;
      applyDetail(result.value, 'changed');
      set({ preview: idle() });
      return null;
    }
    /** `sendingHere`: this desktop's runner was just started on it (Start, Resume), before the detail is read again. */
    function patchSummary(summary: BatchSummary, sendingHere?: true) {
      const detail = get().detail.value;
      if (detail && detail.batch.id === summary.id) set({ detail: { ...get().detail, value: { ...detail, batch: summary, ...(sendingHere ? { sendingHere } : {}) } } });
    }
    /** The summary (counts, state, rehearsal) and the rows on screen again; the rest are fetched when scrolled to. */
    async function refreshOpen(): Promise<void> {
      const batchId = get().openId;
      if (!batchId) return;
      lastRefresh = Date.now();
      const mine = generation;
      const [detail] = await Promise.all([api.invoke('batches:get', { batchId }), pager.refreshShown()]);
      if (mine !== generation) return;
      if (detail.ok) set({ detail: { status: 'ready', value: detail.value, error: null } });
      else set({ detail: { ...get().detail, error: detail.error } });
    }
    /** refreshOpen soon, but never more often than every `gapMs` (`now`: at once). */
    function scheduleRefresh(now = false, gapMs = ROWS_REFRESH_MS) {
      if (refreshTimer) {
        if (!now) return;
        clearTimeout(refreshTimer);
      }
      const wait = now ? 0 : Math.max(0, lastRefresh + gapMs - Date.now());
      refreshTimer = setTimeout(() => {
        refreshTimer = null;
        void refreshOpen();
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
      const changed = pendingRows;
      const unknown = rowsUnknown;
      pendingProgress = null;
      pendingRows = new Map();
      rowsUnknown = false;
      if (!event) return;
      const before = get().progress;
      set({ progress: event });
      // The rows held are patched with the pushed ones; a filtered list may gain or lose rows, so it is fetched.
      if (changed.size > 0 && get().filter === 'all') pager.patch((row) => changed.get(row.rowNumber));
      const stateChanged = get().detail.value?.batch.state !== event.state || (before !== null && before.mode !== event.mode);
      if (stateChanged) scheduleRefresh(true);
      else if (unknown || (changed.size > 0 && get().filter !== 'all')) scheduleRefresh();
    }

    return {
      list: idle(),
      importing: { status: 'idle', fileName: null, error: null },
      openId: null,
      detail: idle(),
      filter: 'all',
      ...emptyPages<BatchRow>(),
      wouldFail: null,
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
        set({ openId: result.value.batch.id, filter: 'all', total: null, pages: {}, wouldFail: null, preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null });
        applyDetail(result.value);
        void get().loadList();
      },
      async open(batchId) {
        generation += 1;
        set({ openId: batchId, detail: idle(), filter: 'all', total: null, pages: {}, wouldFail: null, preview: idle(), progress: null, acceptDuplicateFile: false, actionError: null, exported: null, rehearsing: { running: false, error: null } });
        set({ detail: { status: 'loading', value: null, error: null } });
        const mine = generation;
        const result = await api.invoke('batches:get', { batchId });
        if (mine !== generation) return;
        if (result.ok) applyDetail(result.value);
        else set({ detail: { status: 'error', value: null, error: result.error } });
      },
      close() {
        generation += 1;
        set({ openId: null, detail: idle(), total: null, pages: {}, wouldFail: null, preview: idle(), progress: null, actionError: null, exported: null });
        void get().loadList();
      },
      async refresh() {
        await refreshOpen();
      },
      setFilter(filter) {
        if (filter === get().filter) return;
        set({ filter, total: null });
        void pager.restart();
      },
      ensureRows: (first, last) => pager.ensureRows(first, last),
      rowAt: (index) => pager.rowAt(index),
      async editCell(rowNumber, column, value) {
        const batchId = get().openId;
        if (!batchId) return null;
        return tookDetail(await api.invoke('batches:updateRow', { batchId, rowNumber, values: { [column]: value } }));
      },
      async dropRows(rows) {
        const batchId = get().openId;
        if (!batchId || rows.length === 0) return;
        const which = rows === 'invalid' ? { invalid: true as const } : rows === 'sent' ? { sent: true as const } : { rowNumbers: rows };
        const failure = tookDetail(await api.invoke('batches:dropRows', { batchId, ...which }));
        // "Send only the rows that never left" is the informed answer to "these rows were already sent".
        set(failure === null && rows === 'sent' ? { actionError: null, acceptDuplicateFile: true } : { actionError: failure });
      },
      async planRenewal() {
        const batchId = get().openId;
        return batchId ? api.invoke('batches:renewSentIds', { batchId, dryRun: true }) : null;
      },
      async renewSentIds() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:renewSentIds', { batchId });
        const failure = result.ok ? tookDetail({ ok: true, value: result.value.detail }) : result.error;
        // "Send them as new payouts" is the informed answer to "these rows were already sent", as dropping them is.
        set(failure === null ? { actionError: null, acceptDuplicateFile: true } : { actionError: failure });
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
      async runPreview(keepShown = false) {
        const batchId = get().openId;
        if (!batchId) return;
        set({ preview: { status: 'loading', value: keepShown ? get().preview.value : null, error: null } });
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
        await refreshOpen();
        const detail = get().detail.value;
        if (detail) await loadWouldFail(detail);
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
          patchSummary(result.value, true);
          scheduleRefresh(true);
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
        if (result.ok) patchSummary(result.value, true);
        set({ actionError: result.ok ? null : result.error });
        scheduleRefresh(true);
      },
      async join() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:join', { batchId });
        if (result.ok && batchId === get().openId) set({ detail: { status: 'ready', value: result.value, error: null } });
        set({ actionError: result.ok ? null : result.error });
        scheduleRefresh(true);
      },
      async cancel() {
        const batchId = get().openId;
        if (!batchId) return;
        const result = await api.invoke('batches:cancel', { batchId });
        if (result.ok) patchSummary(result.value);
        set({ actionError: result.ok ? null : result.error });
        scheduleRefresh(true);
      },
      async retryFailed() {
        await openDraftOf('batches:retryFailed');
      },
      async sendRemaining() {
        await openDraftOf('batches:sendRemaining');
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
        lastProgressAt = Date.now();
        if (event.changedRows === null) rowsUnknown = true;
        for (const row of event.changedRows ?? []) pendingRows.set(row.rowNumber, row);
        flushTimer ??= setTimeout(flushProgress, PROGRESS_FLUSH_MS);
      },
      transactionChanged() {
        const state = get().detail.value?.batch.state;
        if (state && state !== 'draft') scheduleRefresh();
      },
      journalChanged(changed) {
        const openId = get().openId;
        if (openId === null) return void (get().list.status !== 'idle' && (changed.everything || changed.batches.length > 0) && scheduleListReload());
        if (!changed.everything && !changed.batches.includes(openId)) return;
        // This desktop sending it: its own pushes carry the counters, the rows are read at the usual pace.
        const sendingHere = Date.now() - lastProgressAt < ROWS_REFRESH_MS;
        scheduleRefresh(false, sendingHere ? ROWS_REFRESH_MS : LIVE_REFRESH_MS);
      },
    };
  });
}
export type BatchStore = ReturnType<typeof createBatchStore>;
