/**
 * Audit store (issue 25 item 5): the workspace's audit log as the Audit screen reads it, a page at
 * a time, newest first, under the filters the person applied; and its export. On a single desktop
 * the channels answer APPROVALS_UNAVAILABLE: `available` turns false and the screen says why.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, AuditEntry, AuditFilter, PaydeskApi } from '../../../shared/api';
import type { Language } from '../../../shared/i18n/types';

/** The filters as typed: days (YYYY-MM-DD, this computer's days), the rest as text. */
export interface AuditFilterForm {
  actor: string;
  action: string;
  fromDay: string;
  toDay: string;
  subject: string;
}

export const EMPTY_AUDIT_FILTER: AuditFilterForm = { actor: '', action: '', fromDay: '', toDay: '', subject: '' };

/** The channel's filter: empty fields left out, a day from its local midnight, `toDay` included (to the next midnight). */
export function auditFilterOf(form: AuditFilterForm): AuditFilter {
  const midnight = (day: string, plusDays = 0) => {
    const [y, m, d] = day.split('-').map(Number);
    return new Date(y!, m! - 1, d! + plusDays).toISOString();
  };
  const filter: AuditFilter = {};
  if (form.actor.trim()) filter.actor = form.actor.trim();
  if (form.action) filter.action = form.action as AuditFilter['action'];
  if (form.fromDay) filter.from = midnight(form.fromDay);
  if (form.toDay) filter.to = midnight(form.toDay, 1);
  if (form.subject.trim()) filter.subject = form.subject.trim();
  return filter;
}

export interface AuditState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  available: boolean;
  form: AuditFilterForm;
  entries: AuditEntry[];
  nextBefore: number | null;
  error: ApiFailure | null;
  exported: { rows: number; filename: string } | null;
  /** Reads the first page under `form` (and keeps it as the applied filters). */
  load(form?: AuditFilterForm): Promise<void>;
  /** The page below the last one shown. */
  more(): Promise<void>;
  /** Lines were written (a change event): the newest are read again under the applied filters, older pages kept. */
  changed(): Promise<void>;
  exportCsv(language: Language): Promise<{ filename: string; csv: string } | null>;
}

/**
 * The first page read again, joined to what is shown: the log is append-only, so a line shown
 * never changes and new ones only come above it. When the new page does not reach what is shown
 * (more new lines than a page) the older pages are dropped and paged again from the new one.
 */
export function mergeNewest(shown: Pick<AuditState, 'entries' | 'nextBefore'>, page: AuditEntry[], pageNextBefore: number | null): Pick<AuditState, 'entries' | 'nextBefore'> {
  const newestShown = shown.entries[0]?.id;
  const oldestRead = page.at(-1)?.id;
  // Nothing shown, every kept line in one page, or a gap between the page and what is shown.
  if (newestShown === undefined || pageNextBefore === null || oldestRead === undefined || oldestRead > newestShown) return { entries: page, nextBefore: pageNextBefore };
  const above = page.filter((entry) => entry.id > newestShown);
  return { entries: [...above, ...shown.entries], nextBefore: shown.nextBefore };
}

export function createAuditStore(api: PaydeskApi) {
  return createStore<AuditState>()((set, get) => ({
    status: 'idle',
    available: true,
    form: EMPTY_AUDIT_FILTER,
    entries: [],
    nextBefore: null,
    error: null,
    exported: null,
    async load(form = get().form) {
      set({ status: 'loading', form, exported: null });
      const result = await api.invoke('audit:list', { filter: auditFilterOf(form) });
      if (!result.ok) {
        if (result.error.code === 'APPROVALS_UNAVAILABLE') return set({ status: 'ready', available: false, entries: [], nextBefore: null, error: null });
        return set({ status: 'error', error: result.error });
      }
      set({ status: 'ready', available: true, entries: result.value.entries, nextBefore: result.value.nextBefore, error: null });
    },
    async more() {
      const { nextBefore, form, entries } = get();
      if (nextBefore === null) return;
      const result = await api.invoke('audit:list', { filter: auditFilterOf(form), before: nextBefore });
      if (!result.ok) return set({ error: result.error });
      set({ entries: [...entries, ...result.value.entries], nextBefore: result.value.nextBefore, error: null });
    },
    async changed() {
      // Not read yet, or a read under way (it sees the new lines itself).
      if (get().status !== 'ready' || !get().available) return;
      const form = get().form;
      const result = await api.invoke('audit:list', { filter: auditFilterOf(form) });
      // The filters changed meanwhile: that read is the one to show.
      if (!result.ok || get().form !== form || get().status !== 'ready') return;
      set(mergeNewest(get(), result.value.entries, result.value.nextBefore));
    },
    async exportCsv(language) {
      const result = await api.invoke('audit:export', { filter: auditFilterOf(get().form), language });
      if (!result.ok) {
        set({ error: result.error });
        return null;
      }
      set({ exported: { rows: result.value.rows, filename: result.value.filename }, error: null });
      return { filename: result.value.filename, csv: result.value.csv };
    },
  }));
}
export type AuditStore = ReturnType<typeof createAuditStore>;
