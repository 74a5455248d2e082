/**
 * The Electron main process: one instance, the app:// protocol, the console runtime (handlers,
 * journal, vault, local sandbox engine), the IPC transport and the window. Built to
 * dist/main/main.js; the renderer and preload sit beside it in dist/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, nativeTheme, session } from 'electron';
import type { ThemePreference } from '../../shared/api';
import { startConsoleHost, type ConsoleHost } from '../console/workspace/console-host';
import { processLog } from '@paydesk/sandbox';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { forwardPushEvents, registerChannels, TrustedWindows } from './ipc';
import { electronSqliteBinding } from './native';
import { electronSettingsBackend } from './settings-store';
import { createMainWindow, hardenSession, hardenWebContents, installAppMenu, type ShellMode } from './window';

const distDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const rendererDir = path.join(distDir, 'renderer');
const preloadPath = path.join(distDir, 'preload', 'preload.cjs');

/** The console on the store chosen in Settings (this desktop or a team workspace); re-opened when that changes. */
type Runtime = ConsoleHost;

const windows = new TrustedWindows();
let mainWindow: BrowserWindow | null = null;
let runtime: Runtime | null = null;
let stopTransport: (() => void) | null = null;
let startup: Promise<void> | null = null;
/** Set once quitting has begun. */
let shutdown: Promise<void> | null = null;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** DevTools only in development: a packaged build has neither the menu entry nor the pages. */
function shellMode(): ShellMode {
  return { devTools: !app.isPackaged };
}

function openWindow(): void {
  mainWindow = createMainWindow(preloadPath, shellMode());
  windows.add(mainWindow.webContents);
  mainWindow.on('closed', () => {
    mainWindow = null;
  });
}

async function start(): Promise<void> {
  await app.whenReady();
  hardenSession(session.defaultSession, shellMode());
  installAppMenu(shellMode());
  serveRenderer(rendererDir);

  const userDataDir = app.getPath('userData');
  const betterSqliteNativeBinding = electronSqliteBinding({ isPackaged: app.isPackaged, appPath: app.getAppPath() });
  if (!app.isPackaged && betterSqliteNativeBinding === undefined) {
    processLog.warn('shell: no Electron build of better-sqlite3 in .electron-native/; run `node scripts/ensure-electron.mjs` (npm start does).');
  }
  runtime = await startConsoleHost({
    userDataDir,
    transport: 'electron',
    // The desktop app is where live payouts are made; the renderer's confirmation step guards them.
    allowLive: true,
    version: app.getVersion(),
    settingsBackend: electronSettingsBackend(userDataDir),
    betterSqliteNativeBinding,
  });
  // The user quit while the console was starting: closeRuntime closes it; no window.
  if (shutdown !== null) return;
  // The theme chosen in Settings drives Chromium's prefers-color-scheme from the window's first
  // frame (and the native parts: scrollbars, select pop-ups), before the page has asked main anything.
  const info = await runtime.handlers['app:info']({});
  if (info.ok && info.value.theme) followTheme(info.value.theme);
  const base = runtime.handlers;
  const handlers: typeof base = {
    ...base,
    async 'preferences:set'(input) {
      const result = await base['preferences:set'](input);
      if (result.ok && result.value.theme) followTheme(result.value.theme);
      return result;
    },
  };
  const unregister = registerChannels(ipcMain, handlers, windows);
  const stopEvents = forwardPushEvents(runtime, windows);
  stopTransport = () => {
    stopEvents();
    unregister();
  };
  openWindow();
}

function followTheme(theme: ThemePreference): void {
  nativeTheme.themeSource = theme;
}

/** Closes the runtime once (journal, engine, watchers) before the process exits. */
function closeRuntime(): Promise<void> {
  shutdown ??= (async () => {
    // A quit during startup waits for the runtime being created, so it is closed too.
    await startup?.catch(() => undefined);
    stopTransport?.();
    try {
      await runtime?.close();
    } catch (error) {
      processLog.error('shell: closing the console failed', { error });
    }
  })();
  return shutdown;
}

// Before `ready`: the scheme must be privileged when the first session is created.
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  // Another Paydesk owns the journal and the keychain session; it is focused by 'second-instance'.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow === null) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  // Every web contents, including any the page should never have been able to create.
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('activate', () => {
    if (runtime !== null && shutdown === null && BrowserWindow.getAllWindows().length === 0) openWindow();
  });

  let readyToQuit = false;
  app.on('before-quit', (event) => {
    if (readyToQuit) return;
    event.preventDefault();
    void closeRuntime().then(() => {
      readyToQuit = true;
      app.quit();
    });
  });

  startup = start();
  startup.catch(async (error: unknown) => {
    processLog.error('shell: could not start', { error });
    dialog.showErrorBox('Paydesk could not start', describe(error));
    await closeRuntime();
    app.exit(1);
  });
}
