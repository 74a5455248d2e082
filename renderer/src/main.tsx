/** Entry: the theme before anything is drawn, one typed API (preload or browser host), the router, then the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ELECTRON_API_GLOBAL } from '../../shared/api/transport';
import { createPaydeskApi } from './api/client';
import { App } from './App';
import { connectBackForwardKeys, connectRouter } from './router';
import { PREFETCHED_SCREENS, prefetchScreensWhenIdle, preloadScreen } from './screenChunks';
import { createStores } from './stores';
import { OVERVIEW_MARKS } from './stores/overview';
import { applyMirroredTheme } from './theme';
import { languageReady } from './i18n';
import './theme.css';
import './styles.css';
import './i18n.css';

applyMirroredTheme();
const electron = ELECTRON_API_GLOBAL in window;
// After the API: the browser transport takes its token out of the address first.
const api = createPaydeskApi(window);
const stores = createStores(api);
connectRouter(stores.ui, window);
if (electron) connectBackForwardKeys(window);
// The opening screen's chunk comes while the profiles are asked for, not after them; so do the
// Overview's figures (main answers for its active profile; the screen reuses this request) and the
// profiles themselves (the shell draws the screen once they are in; App takes this request).
const opening = stores.ui.getState().screen;
preloadScreen(opening);
if (opening === 'overview') {
  void stores.overview.getState().load();
  // Left before the screen was mounted: no refreshes on pushes for a screen not shown (a mounted
  // screen stops them itself when it goes; stopping twice is harmless).
  const off = stores.ui.subscribe((ui) => {
    if (ui.screen === 'overview') return;
    off();
    stores.overview.getState().stop();
  });
}
void stores.profiles.getState().load();
afterFirstScreen(() => prefetchScreensWhenIdle(PREFETCHED_SCREENS));

/**
 * Runs once the opening screen is drawn: the Overview's last mark (its charts), else the page's
 * load event; at the latest 5 s after the load event (an Overview that failed has no charts).
 */
function afterFirstScreen(run: () => void): void {
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

// At once in English; in French once its catalogue is in (the requests above are already out).
void languageReady.then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App api={api} stores={stores} />
    </StrictMode>,
  ),
);
