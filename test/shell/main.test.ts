/**
 * The main process's lifecycle with a mocked `electron` and a fake console runtime: the order of
 * things (scheme before ready, everything else after), one instance, clean quit.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS } from '../../shared/api';
import { ELECTRON_PUSH_CHANNEL } from '../../shared/api/transport';
import { FakePushSource, fakeHandlers } from '../browser-host/fakes';
import type * as ElectronMockModule from './electron-mock';

// electron-store is a node_modules package: its own `import 'electron'` would bypass vi.mock and
// load the real electron package, whose index.js tries to download the missing binary. Never.
vi.hoisted(() => {
  process.env.ELECTRON_OVERRIDE_DIST_PATH ??= '/nonexistent/electron-dist';
});
vi.mock('electron-store', () => ({ default: class ElectronStoreUnused {} }));

type ElectronMock = typeof ElectronMockModule;
type RuntimeMock = ReturnType<typeof fakeRuntimeModule>;

function fakeRuntimeModule() {
  const events = new FakePushSource();
  const runtime = { handlers: fakeHandlers(), events, on: events.on.bind(events), close: vi.fn(async () => undefined), engineUrl: null };
  return { runtime, createConsoleRuntime: vi.fn(async (_options: unknown) => runtime) };
}

/** A fresh main process: fresh electron mock, fresh runtime mock, main.ts evaluated once. */
async function bootMain(configure: (electron: ElectronMock, runtime: RuntimeMock) => void = () => undefined) {
  vi.resetModules();
  const electron = await import('./electron-mock');
  const runtime = fakeRuntimeModule();
  vi.doMock('electron', () => electron.electronModule);
  vi.doMock('../../electron/console/runtime', () => runtime);
  configure(electron, runtime);
  await import('../../electron/shell/main');
  return { electron, runtime };
}

beforeEach(() => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

describe('main process lifecycle', () => {
  it('registers the app:// scheme before ready and nothing else until ready', async () => {
    const { electron, runtime } = await bootMain();
    expect(electron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledTimes(1);
    expect(electron.app.requestSingleInstanceLock).toHaveBeenCalled();
    expect(electron.protocol.handle).not.toHaveBeenCalled();
    expect(runtime.createConsoleRuntime).not.toHaveBeenCalled();
    expect(electron.FakeBrowserWindow.created).toHaveLength(0);
  });

  it('on ready: hardens the session, serves app://, starts the runtime, registers IPC, opens one window', async () => {
    const { electron, runtime } = await bootMain();
    electron.app.becomeReady();
    await vi.waitFor(() => expect(electron.FakeBrowserWindow.created).toHaveLength(1));

    expect(electron.defaultSession.setPermissionRequestHandler).toHaveBeenCalled();
    expect(electron.defaultSession.setPermissionCheckHandler).toHaveBeenCalled();
    expect(electron.defaultSession.webRequest.onHeadersReceived).toHaveBeenCalled();
    expect(electron.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function));
    expect(runtime.createConsoleRuntime).toHaveBeenCalledWith({
      userDataDir: '/nonexistent/userData',
      transport: 'electron',
      allowLive: true,
      version: '0.1.0',
      settingsBackend: expect.objectContaining({ path: '/nonexistent/userData/settings.json' }),
      betterSqliteNativeBinding: undefined,
    });
    expect([...electron.ipcMain.handlers.keys()].sort()).toEqual([...CHANNELS].sort());
    const [window] = electron.FakeBrowserWindow.created;
    expect(window!.loadURL).toHaveBeenCalledWith('app://paydesk/index.html');
    expect((window!.options.webPreferences as { preload: string }).preload).toMatch(/[/\\]preload[/\\]preload\.cjs$/);
  });

  it('answers IPC from its window and forwards push events to it', async () => {
    const { electron, runtime } = await bootMain();
    electron.app.becomeReady();
    await vi.waitFor(() => expect(electron.FakeBrowserWindow.created).toHaveLength(1));
    const contents = electron.FakeBrowserWindow.created[0]!.webContents;
    const listener = electron.ipcMain.handlers.get('profiles:list')!;
    await expect(listener({ sender: contents, senderFrame: contents.mainFrame }, {})).resolves.toMatchObject({ ok: true });
    expect(runtime.runtime.handlers['profiles:list']).toHaveBeenCalledWith({});
    runtime.runtime.events.emit('profiles:changed', { activeId: 'local-sandbox' });
    // Pushes travel bundled on one channel (electron/console/push-bundles.ts), at most ~50 ms later.
    await vi.waitFor(() => expect(contents.send).toHaveBeenCalledWith(ELECTRON_PUSH_CHANNEL, [['profiles:changed', { activeId: 'local-sandbox' }]]));
  });

  it('follows the theme chosen in Settings: at start from app:info, then on each preferences:set', async () => {
    const { electron, runtime } = await bootMain((_electron, runtimeMock) => {
      const { handlers } = runtimeMock.runtime;
      vi.mocked(handlers['app:info']).mockResolvedValue({ ok: true, value: { theme: 'dark' } });
      vi.mocked(handlers['preferences:set']).mockImplementation(async (input: unknown) => ({ ok: true, value: input }));
    });
    electron.app.becomeReady();
    await vi.waitFor(() => expect(electron.FakeBrowserWindow.created).toHaveLength(1));
    expect(electron.nativeTheme.themeSource).toBe('dark');
    const contents = electron.FakeBrowserWindow.created[0]!.webContents;
    const listener = electron.ipcMain.handlers.get('preferences:set')!;
    await expect(listener({ sender: contents, senderFrame: contents.mainFrame }, { theme: 'light' })).resolves.toMatchObject({ ok: true });
    expect(runtime.runtime.handlers['preferences:set']).toHaveBeenCalledWith({ theme: 'light' });
    expect(electron.nativeTheme.themeSource).toBe('light');
    // A language change leaves the theme alone.
    await listener({ sender: contents, senderFrame: contents.mainFrame }, { language: 'fr' });
    expect(electron.nativeTheme.themeSource).toBe('light');
  });

  it('hardens every web contents created later', async () => {
    const { electron } = await bootMain();
    const contents = new electron.FakeWebContents();
    electron.app.emit('web-contents-created', {}, contents);
    expect(contents.windowOpenHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    const navigation = { preventDefault: vi.fn() };
    contents.emit('will-navigate', navigation, 'https://evil.example');
    expect(navigation.preventDefault).toHaveBeenCalled();
  });

  it('closes the runtime before quitting, once', async () => {
    const { electron, runtime } = await bootMain();
    electron.app.becomeReady();
    await vi.waitFor(() => expect(electron.FakeBrowserWindow.created).toHaveLength(1));
    const quit = new Promise<void>((resolve) => electron.app.once('quit', () => resolve()));
    electron.app.quit();
    await quit;
    expect(runtime.runtime.close).toHaveBeenCalledTimes(1);
    expect(electron.app.quit).toHaveBeenCalledTimes(2);
    expect(electron.ipcMain.handlers.size).toBe(0);
  });

  it('a quit during startup waits for the runtime, closes it and opens no window', async () => {
    let finishStarting!: () => void;
    const { electron, runtime } = await bootMain((_mock, fake) => {
      fake.createConsoleRuntime.mockImplementationOnce(
        () => new Promise((resolve) => (finishStarting = () => resolve(fake.runtime))),
      );
    });
    electron.app.becomeReady();
    await vi.waitFor(() => expect(runtime.createConsoleRuntime).toHaveBeenCalled());
    const quit = new Promise<void>((resolve) => electron.app.once('quit', () => resolve()));
    electron.app.quit();
    expect(runtime.runtime.close).not.toHaveBeenCalled();
    finishStarting();
    await quit;
    expect(runtime.runtime.close).toHaveBeenCalledTimes(1);
    expect(electron.FakeBrowserWindow.created).toHaveLength(0);
    expect(electron.ipcMain.handlers.size).toBe(0);
  });

  it('quits when the last window closes (except on macOS)', async () => {
    const { electron } = await bootMain();
    electron.app.emit('window-all-closed');
    expect(electron.app.quit).toHaveBeenCalledTimes(process.platform === 'darwin' ? 0 : 1);
  });

  it('a second instance quits at once and starts nothing', async () => {
    const { electron, runtime } = await bootMain((mock) => {
      mock.app.singleInstance = false;
    });
    expect(electron.app.quit).toHaveBeenCalledTimes(1);
    expect(electron.app.whenReady).not.toHaveBeenCalled();
    expect(runtime.createConsoleRuntime).not.toHaveBeenCalled();
  });

  it('shows the reason and exits non-zero when the console cannot start', async () => {
    const { electron } = await bootMain((_mock, runtime) => {
      runtime.createConsoleRuntime.mockRejectedValueOnce(new Error('No Secret Service: install gnome-keyring'));
    });
    electron.app.becomeReady();
    await vi.waitFor(() => expect(electron.app.exit).toHaveBeenCalledWith(1));
    expect(electron.dialog.showErrorBox).toHaveBeenCalledWith('Paydesk could not start', 'No Secret Service: install gnome-keyring');
    expect(electron.FakeBrowserWindow.created).toHaveLength(0);
  });
});
