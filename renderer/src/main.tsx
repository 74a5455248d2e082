/**
 * The app, run by ./boot.ts (the page's entry, which made the API, started the first calls and may
 * have drawn the first frame): the stores, the router, then React.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { PaydeskApi } from '../../shared/api';
import { ELECTRON_API_GLOBAL } from '../../shared/api/transport';
import { App } from './App';
import { connectBackForwardKeys, connectRouter } from './router';
import { PREFETCHED_SCREENS, SCREEN_CHUNKS, prefetchScreensWhenIdle, preloadScreen } from './screenChunks';
import { createStores } from './stores';
import { OVERVIEW_MARKS } from './stores/overview';
import { applyLanguage, languageReady } from './i18n';

/**
 * `firstFrame`: boot.ts drew the Overview's figures; React's first commit then waits for the same
 * figures, the profiles and the screen's chunk, so that it replaces that frame with the same one
 * (never with a spinner in between).
 */
export async function startApp(api: PaydeskApi, { firstFrame }: { firstFrame: boolean }): Promise<void> {
  const electron = ELECTRON_API_GLOBAL in window;
  const stores = createStores(api);
  connectRouter(stores.ui, window);
  if (electron) connectBackForwardKeys(window);
  // The opening screen's chunk comes while the profiles are asked for, not after them; so do the
  // Overview's figures (main answers for its active profile; the screen reuses this request) and the
  // profiles themselves (the shell draws the screen once they are in; App takes this request).
  const opening = stores.ui.getState().screen;
  preloadScreen(opening);
  const ready: Promise<unknown>[] = [languageReady];
  if (opening === 'overview') {
    ready.push(stores.overview.getState().load());
    // Left before the screen was mounted: no refreshes on pushes for a screen not shown (a mounted
    // screen stops them itself when it goes; stopping twice is harmless).
    const off = stores.ui.subscribe((ui) => {
      if (ui.screen === 'overview') return;
      off();
      stores.overview.getState().stop();
    });
  }
  ready.push(stores.profiles.getState().load());
  afterFirstScreen(opening, () => prefetchScreensWhenIdle(PREFETCHED_SCREENS));
  if (firstFrame) ready.push(SCREEN_CHUNKS[opening].load().catch(() => undefined));
  // At once in English; in French once its catalogue is in (the requests above are already out).
  await (firstFrame ? Promise.all(ready) : languageReady);
  // The language chosen in Settings, applied before the first commit as the first frame did
  // (LanguageRoot would otherwise draw the system's language once, then switch).
  if (firstFrame) await applyLanguage(stores.profiles.getState().info?.language ?? 'system');
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App api={api} stores={stores} />
    </StrictMode>,
  );
}

/**
 * Runs once the opening screen is drawn: the Overview's last mark (its charts), else the page's
 * load event; at the latest 5 s after the load event (an Overview that failed has no charts).
 */
function afterFirstScreen(opening: string, run: () => void): void {
  let done = false;
  let observer: PerformanceObserver | null = null;
  const once = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    run();
  };
  if (opening === 'overview' && typeof PerformanceObserver !== 'undefined') {
    observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName(OVERVIEW_MARKS.drawn).length > 0) once();
    });
    observer.observe({ type: 'mark', buffered: true });
  }
  const loaded = () => window.setTimeout(once, observer ? 5000 : 0);
  if (document.readyState === 'complete') loaded();
  else window.addEventListener('load', loaded, { once: true });
}
