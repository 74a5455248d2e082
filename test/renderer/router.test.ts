/** The hash router over the UI store, in jsdom's window and history (issue 16 item 2). */
import { afterEach, describe, expect, it } from 'vitest';
import { connectBackForwardKeys, connectRouter, parseHash, routeToHash } from '../../renderer/src/router';
import { createUiStore } from '../../renderer/src/stores/ui';

let disconnect: (() => void) | null = null;
afterEach(() => {
  disconnect?.();
  disconnect = null;
  window.history.replaceState(null, '', '#');
});

/** Back or Forward, resolved once the popstate has been handled. */
function travel(step: () => void): Promise<void> {
  return new Promise((done) => {
    window.addEventListener('popstate', () => setTimeout(done, 0), { once: true });
    step();
  });
}

describe('addresses', () => {
  it('names a screen, a transaction and a screen’s filters, and reads them back', () => {
    const route = { screen: 'history' as const, journalId: null, params: { text: 'SAL 2026/11', status: 'failed' } };
    expect(routeToHash(route)).toBe('#/history?text=SAL+2026%2F11&status=failed');
    expect(parseHash(routeToHash(route))).toEqual(route);
    expect(routeToHash({ screen: 'timeline', journalId: 'j/1 2', params: {} })).toBe('#/timeline/j%2F1%202');
    expect(parseHash('#/timeline/j%2F1%202')).toEqual({ screen: 'timeline', journalId: 'j/1 2', params: {} });
    // Not ours: the token fragment, an unknown screen, bad encoding.
    expect(parseHash('#token=abc')).toBeNull();
    expect(parseHash('#/payouts-admin')).toBeNull();
    expect(parseHash('#/timeline/%E0%A4%A')).toBeNull();
    expect(parseHash('')).toBeNull();
  });
});

describe('router', () => {
  it('pushes a step per screen, replaces it when only the filters change, and follows Back and Forward', async () => {
    const ui = createUiStore();
    disconnect = connectRouter(ui, window);
    expect(window.location.hash).toBe('#/overview');
    const start = window.history.length;

    ui.getState().navigate('history');
    expect(window.location.hash).toBe('#/history');
    ui.getState().setParams({ status: 'failed' });
    ui.getState().setParams({ status: 'failed', text: 'Awa' });
    expect(window.location.hash).toBe('#/history?status=failed&text=Awa');
    ui.getState().openTransaction('j-42');
    expect(window.location.hash).toBe('#/timeline/j-42');
    expect(window.history.length).toBe(start + 2);

    await travel(() => window.history.back());
    expect(ui.getState()).toMatchObject({ screen: 'history', params: { status: 'failed', text: 'Awa' } });
    // Following the address adds no step of its own.
    expect(window.history.length).toBe(start + 2);
    await travel(() => window.history.back());
    expect(ui.getState().screen).toBe('overview');
    await travel(() => window.history.forward());
    await travel(() => window.history.forward());
    expect(ui.getState()).toMatchObject({ screen: 'timeline', journalId: 'j-42' });
  });

  it('makes an open batch and an open reconciliation report places of their own: a step Back walks, an address a reload keeps', async () => {
    const ui = createUiStore({ screen: 'batches' });
    disconnect = connectRouter(ui, window);
    const start = window.history.length;
    ui.getState().setParams({ batch: 'b7' });
    expect(window.location.hash).toBe('#/batches?batch=b7');
    expect(window.history.length).toBe(start + 1);
    await travel(() => window.history.back());
    expect(ui.getState()).toMatchObject({ screen: 'batches', params: {} });
    await travel(() => window.history.forward());
    expect(ui.getState()).toMatchObject({ screen: 'batches', params: { batch: 'b7' } });
    disconnect();

    window.history.replaceState(null, '', '#/reconcile?report=r3');
    const reloaded = createUiStore();
    disconnect = connectRouter(reloaded, window);
    expect(reloaded.getState()).toMatchObject({ screen: 'reconcile', params: { report: 'r3' } });
  });

  it('opens at the screen an address names (a reload keeps the place), and replaces an address that names nothing', () => {
    window.history.replaceState(null, '', '#/reconcile');
    const ui = createUiStore();
    disconnect = connectRouter(ui, window);
    expect(ui.getState().screen).toBe('reconcile');
    disconnect();
    window.history.replaceState(null, '', '#/nowhere');
    const other = createUiStore({ screen: 'settings' });
    disconnect = connectRouter(other, window);
    expect(window.location.hash).toBe('#/settings');
    expect(other.getState().screen).toBe('settings');
  });

  it('Alt+Left and Alt+Right go back and forward (wired in Electron only)', async () => {
    const ui = createUiStore();
    disconnect = connectRouter(ui, window);
    const keys = connectBackForwardKeys(window);
    try {
      ui.getState().navigate('lookup');
      await travel(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', altKey: true })));
      expect(ui.getState().screen).toBe('overview');
      await travel(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', altKey: true })));
      expect(ui.getState().screen).toBe('lookup');
    } finally {
      keys();
    }
  });
});
