/**
 * The console's addresses: a small hash router over the UI store. `#/history?status=failed`,
 * `#/timeline/<journal id>`. A hash, not a path, because the same page is served as
 * `app://paydesk/index.html` in Electron and `/` by the browser host: a path would have to be
 * served by both, a fragment never leaves the page.
 *
 * The store stays the one place screens navigate through (`navigate`, `openTransaction`); this
 * module pushes a history entry when the place changes, replaces it when only the parameters do
 * (typing a filter is not a step Back should walk through), and moves the store on Back/Forward.
 */
import { SCREENS, type Route, type Screen, type ScreenParams, type UiStore } from './stores/ui';

/** The address of a place. */
export function routeToHash(route: Route): string {
  let hash = `#/${route.screen}`;
  if (route.screen === 'timeline' && route.journalId) hash += `/${encodeURIComponent(route.journalId)}`;
  const query = new URLSearchParams(Object.entries(route.params).filter(([, value]) => value !== '')).toString();
  return query ? `${hash}?${query}` : hash;
}

/** The place an address names, or null for an address that is not one of ours (empty, the token's). */
export function parseHash(hash: string): Route | null {
  const match = /^#\/([a-z]+)(?:\/([^?]*))?(?:\?(.*))?$/.exec(hash);
  if (!match) return null;
  const screen = match[1] as Screen;
  if (!SCREENS.includes(screen)) return null;
  let journalId: string | null = null;
  if (screen === 'timeline' && match[2]) {
    try {
      journalId = decodeURIComponent(match[2]);
    } catch {
      return null;
    }
  }
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(match[3] ?? '')) if (value !== '') params[key] = value;
  return { screen, journalId, params };
}

/**
 * Parameters that name a place of their own within a screen (an open batch, an open
 * reconciliation report): opening one is a step Back walks through, not a filter typed.
 */
export const PLACE_PARAMS: Partial<Record<Screen, string>> = { batches: 'batch', reconcile: 'report' };

function samePlace(a: Route, b: Route): boolean {
  if (a.screen !== b.screen) return false;
  if (a.screen === 'timeline') return a.journalId === b.journalId;
  const key = PLACE_PARAMS[a.screen];
  return key === undefined || (a.params[key] ?? '') === (b.params[key] ?? '');
}

function sameParams(a: ScreenParams, b: ScreenParams): boolean {
  const keys = Object.keys(a).filter((k) => a[k] !== '');
  return keys.length === Object.keys(b).filter((k) => b[k] !== '').length && keys.every((k) => a[k] === b[k]);
}

/**
 * Connects the store to `win`'s address and history; returns the disconnect. The address at
 * start wins (a reload keeps the screen); an address that names nothing is replaced by the store's.
 */
export function connectRouter(ui: UiStore, win: Window): () => void {
  // Each screen opens at its top: the browser must not restore the previous entry's scroll.
  if ('scrollRestoration' in win.history) win.history.scrollRestoration = 'manual';
  const initial = parseHash(win.location.hash);
  if (initial) ui.getState().goTo(initial);
  else win.history.replaceState(win.history.state, '', routeToHash(ui.getState()));

  /** The place the address shows now, to tell a move (push) from a parameter change (replace). */
  const start = ui.getState();
  let shown: Route = { screen: start.screen, journalId: start.journalId, params: start.params };
  /** Set while the store follows the address: that change is already in history. */
  let following = false;
  const unsubscribe = ui.subscribe((state) => {
    if (following) return;
    if (samePlace(state, shown) && sameParams(state.params, shown.params)) return;
    const hash = routeToHash(state);
    if (samePlace(state, shown)) win.history.replaceState(win.history.state, '', hash);
    else win.history.pushState(null, '', hash);
    shown = { screen: state.screen, journalId: state.journalId, params: state.params };
  });

  function followAddress(): void {
    const route = parseHash(win.location.hash);
    if (!route) {
      win.history.replaceState(win.history.state, '', routeToHash(ui.getState()));
      return;
    }
    const state = ui.getState();
    if (!samePlace(route, state) || !sameParams(route.params, state.params)) {
      following = true;
      try {
        state.goTo(route);
      } finally {
        following = false;
      }
    }
    const now = ui.getState();
    shown = { screen: now.screen, journalId: now.journalId, params: now.params };
  }
  // popstate for Back/Forward over our entries; hashchange for an address typed or a plain link.
  win.addEventListener('popstate', followAddress);
  win.addEventListener('hashchange', followAddress);
  return () => {
    unsubscribe();
    win.removeEventListener('popstate', followAddress);
    win.removeEventListener('hashchange', followAddress);
  };
}

/**
 * Electron has no Back/Forward buttons: Alt+← / Alt+→ and the mouse's back/forward buttons do what
 * they do in a browser. Not wired in a browser, which already does it (twice would skip a screen).
 */
export function connectBackForwardKeys(win: Window): () => void {
  function onKeyDown(event: KeyboardEvent): void {
    if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) return;
    if (event.key === 'ArrowLeft') win.history.back();
    else if (event.key === 'ArrowRight') win.history.forward();
    else return;
    event.preventDefault();
  }
  function onMouseUp(event: MouseEvent): void {
    if (event.button === 3) win.history.back();
    else if (event.button === 4) win.history.forward();
  }
  win.addEventListener('keydown', onKeyDown);
  win.addEventListener('mouseup', onMouseUp);
  return () => {
    win.removeEventListener('keydown', onKeyDown);
    win.removeEventListener('mouseup', onMouseUp);
  };
}
