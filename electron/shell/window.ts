/**
 * The one window factory, and the hardening every web contents and the session get.
 * Each measure names the item of the Electron security checklist it implements
 * (https://www.electronjs.org/docs/latest/tutorial/security).
 */
import { BrowserWindow, Menu, nativeTheme, shell, type BrowserWindowConstructorOptions, type Session, type WebContents } from 'electron';
import { APP_ENTRY_URL, APP_SCHEME, isAppUrl } from './app-protocol';
import { CONTENT_SECURITY_POLICY } from '../net/renderer-files';
import { processLog } from '@paydesk/sandbox';

/** An http(s) link the OS browser may open, normalised; anything else (file:, javascript:, custom schemes) is null. */
export function externalLink(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Credentials in a link are a phishing trick (https://bank@evil.example), never a real need here.
  if (url.username !== '' || url.password !== '') return null;
  return url.href;
}

// ---------------------------------------------------------------------------------------------
// SECURITY-CRITICAL: do not change without consulting the Electron security checklist
// (https://www.electronjs.org/docs/latest/tutorial/security). The renderer shows payout forms
// and transaction data; a renderer that gains Node, a remote origin or a navigation away from
// app:// could send money. Every line below is one checklist item.
// ---------------------------------------------------------------------------------------------

/**
 * What differs between a packaged build and development: DevTools (and their `devtools:` pages and
 * menu entry) exist only in development, where `app.isPackaged` is false.
 */
export interface ShellMode {
  devTools: boolean;
}

/**
 * The permissions the page is granted: writing sanitized text to the clipboard (Copy buttons), and
 * showing desktop notifications (approvals waiting or decided, issue 25 item 6: the OS's own).
 */
export const PAGE_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write', 'notifications']);

/** The window's options; exported so a test can hold them against the checklist. */
export function mainWindowOptions(preloadPath: string, mode: ShellMode): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 960,
    minHeight: 600,
    title: 'Paydesk',
    show: false,
    // The page's --bg in the theme in use: no white flash before a dark first paint.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#121722' : '#f5f6f8',
    webPreferences: {
      preload: preloadPath, // the only bridge: dist/preload/preload.cjs
      contextIsolation: true, // "Enable context isolation"
      sandbox: true, // "Enable process sandboxing"
      nodeIntegration: false, // "Do not enable Node.js integration for remote content"
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true, // "Do not disable webSecurity"
      allowRunningInsecureContent: false, // "Do not enable allowRunningInsecureContent"
      experimentalFeatures: false, // "Do not enable experimental features"
      webviewTag: false, // no <webview>, so none of the <webview> items can be broken
      navigateOnDragDrop: false, // dropping a file must not navigate away from app://
      spellcheck: false, // the spellchecker downloads dictionaries from a remote origin
      safeDialogs: true,
      devTools: mode.devTools, // a packaged build cannot open DevTools at all
    },
  };
}

/**
 * Whether a permission asked by a frame is granted: only the page permissions above, and only to
 * the app's own top frame on app://paydesk (never a subframe, never another origin).
 */
export function isPermissionGranted(permission: string, requestingUrl: string | undefined, isMainFrame: boolean | undefined): boolean {
  return PAGE_PERMISSIONS.has(permission) && isMainFrame === true && requestingUrl !== undefined && isAppUrl(requestingUrl);
}

/** "Define a Content-Security-Policy", "Only load secure content", "Handle session permission requests". */
export function hardenSession(session: Session, mode: ShellMode): void {
  // Our protocol answers carry the CSP already; this covers anything else the session loads.
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  // No remote origins: a page request to anything but our own protocol (or inline data) is cancelled.
  session.webRequest.onBeforeRequest((details, callback) => {
    const fromPage = details.webContentsId !== undefined;
    callback({ cancel: fromPage && !isPageRequestAllowed(details.url, mode) });
  });
  // No permission (camera, clipboard read, geolocation...) is granted, except the clipboard write of
  // the Copy buttons and the approvals' desktop notifications, to the app's own top frame.
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(isPermissionGranted(permission, details.requestingUrl, details.isMainFrame)),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    isPermissionGranted(permission, details.requestingUrl ?? requestingOrigin, details.isMainFrame),
  );
}

/** What the page may load: its own files, data:/blob: URLs it made, and devtools in development. */
export function isPageRequestAllowed(raw: string, mode: ShellMode): boolean {
  if (isAppUrl(raw)) return true;
  try {
    const { protocol } = new URL(raw);
    return protocol === 'data:' || protocol === 'blob:' || (mode.devTools && protocol === 'devtools:');
  } catch {
    return false;
  }
}

/**
 * "Disable or limit navigation", "Disable or limit creation of new windows", "Do not use
 * shell.openExternal with untrusted content": applied to every web contents the app creates
 * (main.ts wires it to 'web-contents-created').
 */
export function hardenWebContents(contents: WebContents): void {
  // The page never navigates; links that should leave go through the window-open handler.
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  // No <webview> may be attached, whatever the page asks.
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // No new windows. http(s) links open in the OS browser after parsing; everything else is dropped.
  contents.setWindowOpenHandler(({ url }) => {
    const link = externalLink(url);
    if (link !== null) {
      shell.openExternal(link).catch((error: unknown) => {
        processLog.error('shell: could not open an external link', { error });
      });
    }
    return { action: 'deny' };
  });
}

/**
 * The application menu: Electron's default (with View > Toggle Developer Tools) in development;
 * in a packaged build only the edit and window roles (copy, paste, close), no DevTools entry.
 */
export function installAppMenu(mode: ShellMode): void {
  if (mode.devTools) return;
  const template: Electron.MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'editMenu' },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

/** Creates the console window on app:// (the protocol must be served already). */
export function createMainWindow(preloadPath: string, mode: ShellMode): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(preloadPath, mode));
  hardenWebContents(window.webContents);
  window.once('ready-to-show', () => window.show());
  window.loadURL(APP_ENTRY_URL).catch((error: unknown) => {
    processLog.error(`shell: could not load the ${APP_SCHEME}:// page`, { error });
  });
  return window;
}
// ------------------------------------- end of SECURITY-CRITICAL -------------------------------
