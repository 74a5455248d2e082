/**
 * The Reconcile store against a recording fake API: the file goes in parts small enough for the
 * browser host, the report is fetched a page at a time (never all 100,000 rows), a category
 * filters the pages, and progress pushes move the open run.
 */
import { describe, expect, it } from 'vitest';
import { RECONCILE_CATEGORIES, RECONCILE_PART_CHARS, type ReconciliationRow, type ReconciliationSummary } from '../../shared/api';
import { RECONCILE_PAGE_SIZE, createReconcileStore } from '../../renderer/src/stores/reconcile';
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach } from 'vitest';
import { createFakeApi, ok } from './fakeApi';
import { renderApp } from './render';
import { reconcileNote } from '../../renderer/src/screens/ReconcileReport';
import { applyLanguage, t as tg } from '../../renderer/src/i18n';

afterEach(cleanup);

const TOTAL = 100_000;

function summary(overrides: Partial<ReconciliationSummary> = {}): ReconciliationSummary {
  return {
    id: 'r1',
    fileName: 'orders.csv',
    profileId: 'local',
    profileName: 'Local sandbox',
    environment: 'sandbox',
    status: 'running',
    phase: 'matching',
    totalRows: TOTAL,
    checkedRows: 0,
    verify: null,
    processingMinutes: 30,
    period: null,
    currency: 'XAF',
    categories: Object.fromEntries(RECONCILE_CATEGORIES.map((c) => [c, { count: 0, amount: 0, serviceAmount: 0 }])) as ReconciliationSummary['categories'],
    rateLimitWaits: 0,
    ignoredColumns: [],
    createdAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: null,
    ...overrides,
  };
}

function row(n: number): ReconciliationRow {
  return { row: n + 2, externalId: `o-${n}`, kind: 'payment', amount: 100, expectedStatus: null, date: null, category: 'matched', journalId: `j${n}`, transactionId: `TE_${n}`, serviceStatus: 'completed', serviceAmount: 100, currency: 'XAF', detail: null };
}

function reconcileApi() {
  const appended: string[] = [];
  const api = createFakeApi({
    'reconcile:begin': () => ok({ uploadId: 'u1' }),
    'reconcile:append': (input) => {
      appended.push(input.text);
      return ok({ chars: appended.join('').length });
    },
    'reconcile:import': () => ok({ accepted: true as const, reconciliation: summary() }),
    'reconcile:get': () => ok(summary()),
    'reconcile:list': () => ok({ reconciliations: [summary()] }),
    'reconcile:rows': (input) => {
      const offset = input.offset ?? 0;
      const limit = input.limit ?? 100;
      const total = input.category === 'missing_at_service' ? 7 : TOTAL;
      return ok({ rows: Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => row(offset + i)), total, offset, limit });
    },
  });
  return { api, appended };
}

describe('reconcile store', () => {
  it('sends a large file in parts no longer than the browser host takes, in order, then imports it', async () => {
    const { api, appended } = reconcileApi();
    const store = createReconcileStore(api);
    const text = `external_id,kind,amount\n${'é'.repeat(RECONCILE_PART_CHARS * 2 + 10)}`;
    await store.getState().importFile('orders.csv', text, { processingMinutes: 15 });
    expect(appended.every((part) => part.length <= RECONCILE_PART_CHARS)).toBe(true);
    expect(appended.join('')).toBe(text);
    const imported = api.callsOf('reconcile:import')[0] as { uploadId: string; processingMinutes: number; utcOffsetMinutes: number };
    expect(imported).toMatchObject({ uploadId: 'u1', processingMinutes: 15, utcOffsetMinutes: new Date().getTimezoneOffset() });
    expect(store.getState().current?.id).toBe('r1');
    expect(store.getState().upload.phase).toBe('done');
  });

  it('keeps the row errors of a refused file for the screen', async () => {
    const { api } = reconcileApi();
    api.handlers['reconcile:import'] = () => ok({ accepted: false as const, rows: 2, errorCount: 1, errors: [{ row: 3, column: 'amount', code: 'amount_format' as const, message: 'must be a whole number' }], ignoredColumns: [] });
    const store = createReconcileStore(api);
    await store.getState().importFile('orders.csv', 'external_id,kind,amount\n', { processingMinutes: 30 });
    expect(store.getState().upload.rejected?.errors).toEqual([{ row: 3, column: 'amount', code: 'amount_format', message: 'must be a whole number' }]);
    expect(store.getState().current).toBeNull();
  });

  it('fetches only the pages the list shows, and a category filters them', async () => {
    const { api } = reconcileApi();
    const store = createReconcileStore(api);
    await store.getState().open('r1');
    expect(store.getState().total).toBe(TOTAL);
    await store.getState().ensureRows(60_010, 60_030);
    expect(store.getState().rowAt(60_020)?.externalId).toBe('o-60020');
    const offsets = api.callsOf('reconcile:rows').map((input) => (input as { offset: number }).offset);
    expect(offsets).toEqual([0, 60_000]);
    expect(api.callsOf('reconcile:rows').every((input) => (input as { limit: number }).limit === RECONCILE_PAGE_SIZE)).toBe(true);
    await store.getState().setCategory('missing_at_service');
    expect(store.getState().total).toBe(7);
    expect(api.callsOf('reconcile:rows').at(-1)).toMatchObject({ id: 'r1', category: 'missing_at_service', offset: 0 });
  });

  it('opens the latest run when it was interrupted by a restart, so Resume is on screen', async () => {
    const { api } = reconcileApi();
    api.handlers['reconcile:list'] = () => ok({ reconciliations: [summary({ status: 'interrupted', checkedRows: 500 })] });
    api.handlers['reconcile:get'] = () => ok(summary({ status: 'interrupted', checkedRows: 500 }));
    const store = createReconcileStore(api);
    await store.getState().loadList();
    expect(store.getState().current).toMatchObject({ id: 'r1', status: 'interrupted', checkedRows: 500 });
  });

  it('moves the open run on a progress push', async () => {
    const { api } = reconcileApi();
    const store = createReconcileStore(api);
    await store.getState().open('r1');
    store.getState().progress({ id: 'r1', status: 'running', phase: 'matching', checkedRows: 4_250, totalRows: TOTAL, verify: null });
    expect(store.getState().current?.checkedRows).toBe(4_250);
    store.getState().progress({ id: 'other', status: 'done', phase: 'matching', checkedRows: 1, totalRows: 1, verify: null });
    expect(store.getState().current?.checkedRows).toBe(4_250);
  });
});

describe('reconcile screen: columns read past', () => {
  it('names the file’s unknown columns on the report and on a refused import', async () => {
    const { api } = reconcileApi();
    api.handlers['reconcile:list'] = () => ok({ reconciliations: [summary({ status: 'done', ignoredColumns: ['merchant_note', '#6'] })] });
    api.handlers['reconcile:get'] = () => ok(summary({ status: 'done', ignoredColumns: ['merchant_note', '#6'] }));
    api.handlers['reconcile:rows'] = () => ok({ rows: [], total: 0, offset: 0, limit: 100 });
    const { user, stores } = await renderApp(api, { screen: 'reconcile' });
    await user.click(await screen.findByRole('button', { name: /^Open orders\.csv/ }));
    expect((await screen.findByTestId('reconcile-ignored')).textContent).toBe('Columns read past (Paydesk does not use them): merchant_note, #6');
    // A refused import (jsdom cannot read a File's text: the store's answer is set as main gives it).
    act(() => stores.reconcile.setState({ upload: { phase: 'done', percent: 100, failure: null, rejected: { accepted: false, rows: 2, errorCount: 1, errors: [{ row: 3, column: 'amount', code: 'amount_format', message: 'must be a whole number' }], ignoredColumns: ['merchant_note'] } } }));
    const refused = await screen.findByText('The file was not imported: 1 error.');
    expect(refused.closest('.reconcile-errors')?.textContent).toContain('Column read past (Paydesk does not use it): merchant_note');
  });
});

describe('reconcile report: a row from the team’s journal', () => {
  it('says the row was answered from the team’s journal, in English and in French, not the runner’s code', async () => {
    const detail = "TEAM_JOURNAL: from the team's journal, the service here does not know it";
    await applyLanguage('en');
    expect(reconcileNote(detail, (key, options) => String(tg(`reconcile:${key}` as never, options as never)))).toBe('from the team’s journal: this desktop’s service does not hold this payment or payout');
    await applyLanguage('fr');
    expect(reconcileNote(detail, (key, options) => String(tg(`reconcile:${key}` as never, options as never)))).toBe('d’après le journal de l’équipe : le service de ce poste ne connaît pas cette transaction');
    await applyLanguage('en');
  });
});
