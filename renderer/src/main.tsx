/** Entry: the theme before anything is drawn, one typed API (preload or browser host), the router, then the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ELECTRON_API_GLOBAL } from '../../shared/api/transport';
import { createPaydeskApi } from './api/client';
import { App } from './App';
import { connectBackForwardKeys, connectRouter } from './router';
import { preloadScreen } from './screenChunks';
import { createStores } from './stores';
import { applyMirroredTheme } from './theme';
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
// Overview's figures (main answers for its active profile; the screen reuses this request).
preloadScreen(stores.ui.getState().screen);
if (stores.ui.getState().screen === 'overview') {
  void stores.overview.getState().load();
  // Left before the screen was mounted: no refreshes on pushes for a screen not shown (a mounted
  // screen stops them itself when it goes; stopping twice is harmless).
  const off = stores.ui.subscribe((ui) => {
    if (ui.screen === 'overview') return;
    off();
    stores.overview.getState().stop();
  });
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App api={api} stores={stores} />
  </StrictMode>,
);
