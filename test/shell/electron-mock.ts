/**
 * A stand-in for the `electron` module (no Electron binary exists on these machines). It records
 * what the shell asks of Electron so the tests can hold it against the security list.
 * Use: `vi.mock('electron', async () => (await import('./electron-mock')).electronModule);`
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
  processId: number;
  routingId: number;
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  url = 'app://paydesk/index.html';
  destroyed = false;
  readonly mainFrame: FakeFrame;
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  readonly send = vi.fn();

  constructor() {
    super();
    this.mainFrame = { url: this.url, parent: null, processId: 10 + this.id, routingId: 1 };
  }

  getURL(): string {
    return this.url;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  /** A frame inside this page (an iframe). */
  subframe(url = this.url): FakeFrame {
    return { url, parent: this.mainFrame, processId: this.mainFrame.processId, routingId: 7 };
  }

  navigate(url: string): void {
    this.url = url;
    this.mainFrame.url = url;
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static readonly created: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loadURL = vi.fn(async (_url: string) => undefined);
  readonly show = vi.fn();

  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.created.push(this);
  }

  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.created;
  }
}

type InvokeListener = (event: unknown, ...args: unknown[]) => unknown;

export const ipcMain = {
  handlers: new Map<string, InvokeListener>(),
  handle: vi.fn((channel: string, listener: InvokeListener) => {
    if (ipcMain.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    ipcMain.handlers.set(channel, listener);
  }),
  removeHandler: vi.fn((channel: string) => {
    ipcMain.handlers.delete(channel);
  }),
  on: vi.fn(),
  removeAllListeners: vi.fn(),
};

class FakeIpcRenderer extends EventEmitter {
  readonly invoke = vi.fn(async (channel: string, ...args: unknown[]) => ({ ok: true, value: { channel, args } }));
}
export const ipcRenderer = new FakeIpcRenderer();

export const contextBridge = { exposeInMainWorld: vi.fn() };

export const shell = { openExternal: vi.fn(async (_url: string) => undefined), openPath: vi.fn() };

export const protocol = {
  registerSchemesAsPrivileged: vi.fn(),
  handle: vi.fn(),
};

export const defaultSession = {
  webRequest: { onHeadersReceived: vi.fn(), onBeforeRequest: vi.fn() },
  setPermissionRequestHandler: vi.fn(),
  setPermissionCheckHandler: vi.fn(),
};

class FakeApp extends EventEmitter {
  isPackaged = false;
  singleInstance = true;
  private ready!: () => void;
  private readonly readyPromise = new Promise<void>((resolve) => (this.ready = resolve));
  readonly getPath = vi.fn((_name: string) => '/nonexistent/userData');
  readonly getVersion = vi.fn(() => '0.1.0');
  readonly getAppPath = vi.fn(() => '/nonexistent/app');
  readonly requestSingleInstanceLock = vi.fn(() => this.singleInstance);
  readonly whenReady = vi.fn(() => this.readyPromise);
  readonly quit = vi.fn(() => {
    // Electron emits before-quit; a listener may cancel it with preventDefault.
    const event = { defaultPrevented: false, preventDefault: () => (event.defaultPrevented = true) };
    this.emit('before-quit', event);
    if (!event.defaultPrevented) this.emit('quit');
  });
  readonly exit = vi.fn();

  /** The test's stand-in for Electron becoming ready. */
  becomeReady(): void {
    this.ready();
  }
}
export const app = new FakeApp();

export const dialog = { showErrorBox: vi.fn() };

export const Menu = {
  buildFromTemplate: vi.fn((template: unknown[]) => ({ items: template })),
  setApplicationMenu: vi.fn(),
};
/** Chromium's colour scheme as main sets it (Settings → Theme). */
export const nativeTheme = { themeSource: 'system' as 'system' | 'light' | 'dark', shouldUseDarkColors: false };

const electron = {
  app,
  BrowserWindow: FakeBrowserWindow,
  contextBridge,
  ipcMain,
  ipcRenderer,
  protocol,
  session: { defaultSession },
  shell,
  dialog,
  Menu,
  nativeTheme,
};

/** The module object `vi.mock('electron', ...)` returns (electron-store imports the default export). */
export const electronModule = { ...electron, default: electron };
