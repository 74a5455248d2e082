/** Entry: one typed API (preload or browser host), then the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createPaydeskApi } from './api/client';
import { App } from './App';
import './styles.css';
import './i18n.css';

const api = createPaydeskApi(window);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App api={api} />
  </StrictMode>,
);
