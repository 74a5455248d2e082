import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultSession, FakeBrowserWindow, FakeWebContents, Menu, shell } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronModule);

const { createMainWindow, externalLink, hardenSession, hardenWebContents, installAppMenu, isPageRequestAllowed, mainWindowOptions } = await import(
  '../../electron/shell/window'
);
const { CONTENT_SECURITY_POLICY } = await import('../../electron/net/renderer-files');
const { APP_ENTRY_URL } = await import('../../electron/shell/app-protocol');

const PRELOAD = '/app/dist/preload/preload.cjs';
const DEV = { devTools: true };
const PACKAGED = { devTools: false };

beforeEach(() => {
  vi.clearAllMocks();
  FakeBrowserWindow.created.length = 0;
});

function navigationEvent() {
  return { preventDefault: vi.fn() };
}

describe('window factory', () => {
  it('creates the window with every option of the security list', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    const prefs = window.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      preload: PRELOAD,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('additionalArguments');
    expect(window.options).toEqual(mainWindowOptions(PRELOAD, DEV));
  });

  it('loads the app from app://paydesk, never from a dev server or file://', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    expect(window.loadURL).toHaveBeenCalledWith(APP_ENTRY_URL);
    expect(APP_ENTRY_URL).toBe('app://paydesk/index.html');
  });

  it('shows the window only once its page is ready', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledTimes(1);
  });

  it('marks the security block as security-critical in the source', () => {
    const source = readFileSync(new URL('../../electron/shell/window.ts', import.meta.url), 'utf8');
    expect(source).toMatch(/SECURITY-CRITICAL: do not change without consulting the Electron security checklist/);
  });
});

describe('web contents hardening', () => {
  it('prevents every navigation, even to another app:// page', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://paydesk/other.html']) {
      const event = navigationEvent();
      window.webContents.emit('will-navigate', event, url);
      expect(event.preventDefault, url).toHaveBeenCalled();
    }
  });

  it('prevents redirects off app:// and the attaching of a <webview>', () => {
    const contents = new FakeWebContents();
    hardenWebContents(contents as never);
    const redirect = navigationEvent();
    contents.emit('will-redirect', redirect, 'https://evil.example/');
    expect(redirect.preventDefault).toHaveBeenCalled();
    const webview = navigationEvent();
    contents.emit('will-attach-webview', webview, {}, {});
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('denies every new window and sends parsed http(s) links to the OS browser', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    const open = window.webContents.windowOpenHandler!;
    expect(open({ url: 'https://docs.example.com/payouts?x=1#y' })).toEqual({ action: 'deny' });
    expect(open({ url: 'HTTP://Example.COM' })).toEqual({ action: 'deny' });
    expect(shell.openExternal.mock.calls.map(([url]) => url)).toEqual(['https://docs.example.com/payouts?x=1#y', 'http://example.com/']);
  });

  it('drops every link that is not plain http(s)', () => {
    const window = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    const open = window.webContents.windowOpenHandler!;
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://share/x',
      'ms-msdt:/id',
      'app://paydesk/index.html',
      'https://bank.example@evil.example/',
      'not a url',
      '',
    ]) {
      expect(open({ url }), url).toEqual({ action: 'deny' });
    }
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('parses external links with URL', () => {
    expect(externalLink('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(externalLink('https://user:pw@example.com/')).toBeNull();
    expect(externalLink('data:text/html,hi')).toBeNull();
  });
});

describe('session hardening', () => {
  beforeEach(() => hardenSession(defaultSession as never, PACKAGED));

  const ownFrame = { requestingUrl: 'app://paydesk/index.html', isMainFrame: true };

  it('denies every permission request and check but the clipboard write and notifications', () => {
    const request = defaultSession.setPermissionRequestHandler.mock.calls[0]![0] as (...args: unknown[]) => void;
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen']) {
      const callback = vi.fn();
      request({}, permission, callback, ownFrame);
      expect(callback, permission).toHaveBeenCalledWith(false);
    }
    const check = defaultSession.setPermissionCheckHandler.mock.calls[0]![0] as (...args: unknown[]) => boolean;
    expect(check(null, 'media', 'app://paydesk', ownFrame)).toBe(false);
    expect(check(null, 'clipboard-read', 'app://paydesk', ownFrame)).toBe(false);
  });

  it('grants desktop notifications (approvals, issue 25) to the app\'s own top frame only', () => {
    const request = defaultSession.setPermissionRequestHandler.mock.calls[0]![0] as (...args: unknown[]) => void;
    const check = defaultSession.setPermissionCheckHandler.mock.calls[0]![0] as (...args: unknown[]) => boolean;
    for (const [details, granted] of [
      [ownFrame, true],
      [{ requestingUrl: 'app://paydesk/index.html', isMainFrame: false }, false],
      [{ requestingUrl: 'https://evil.example/', isMainFrame: true }, false],
    ] as const) {
      const callback = vi.fn();
      request({}, 'notifications', callback, details);
      expect(callback).toHaveBeenCalledWith(granted);
      expect(check(null, 'notifications', 'app://paydesk', details)).toBe(granted);
    }
  });

  it('allows the Copy buttons\' clipboard write to the app\'s own top frame only', () => {
    const request = defaultSession.setPermissionRequestHandler.mock.calls[0]![0] as (...args: unknown[]) => void;
    const check = defaultSession.setPermissionCheckHandler.mock.calls[0]![0] as (...args: unknown[]) => boolean;
    const asked = (details: object) => {
      const callback = vi.fn();
      request({}, 'clipboard-sanitized-write', callback, details);
      return callback.mock.calls[0]![0] as boolean;
    };
    expect(asked(ownFrame)).toBe(true);
    expect(check(null, 'clipboard-sanitized-write', 'app://paydesk', ownFrame)).toBe(true);
    // A subframe of our page, another origin, a look-alike host, or no origin at all: refused.
    for (const details of [
      { requestingUrl: 'app://paydesk/index.html', isMainFrame: false },
      { requestingUrl: 'https://evil.example/', isMainFrame: true },
      { requestingUrl: 'app://paydesk.evil/index.html', isMainFrame: true },
      { requestingUrl: 'file:///index.html', isMainFrame: true },
      { isMainFrame: true },
    ]) {
      expect(asked(details), JSON.stringify(details)).toBe(false);
      expect(check(null, 'clipboard-sanitized-write', 'https://evil.example', details), JSON.stringify(details)).toBe(false);
    }
  });

  it('adds the strict CSP to every response header set', () => {
    const onHeaders = defaultSession.webRequest.onHeadersReceived.mock.calls[0]![0] as (...args: unknown[]) => void;
    const callback = vi.fn();
    onHeaders({ url: 'app://paydesk/index.html', responseHeaders: { 'Content-Type': ['text/html'] } }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*|ws:/);
  });

  it('cancels any page request to a remote origin and lets app:// through', () => {
    const onRequest = defaultSession.webRequest.onBeforeRequest.mock.calls[0]![0] as (...args: unknown[]) => void;
    const decide = (url: string, webContentsId: number | undefined = 1) => {
      const callback = vi.fn();
      onRequest({ url, webContentsId }, callback);
      return callback.mock.calls[0]![0] as { cancel: boolean };
    };
    expect(decide('https://cdn.example.com/x.js')).toEqual({ cancel: true });
    expect(decide('http://127.0.0.1:9999/')).toEqual({ cancel: true });
    expect(decide('ws://127.0.0.1:5173/')).toEqual({ cancel: true });
    expect(decide('file:///etc/passwd')).toEqual({ cancel: true });
    expect(decide('app://paydesk/assets/index.js')).toEqual({ cancel: false });
    expect(decide('app://other/assets/index.js')).toEqual({ cancel: true });
    expect(isPageRequestAllowed('data:image/png;base64,AAAA', PACKAGED)).toBe(true);
  });
});

describe('DevTools: on in development, off in a packaged build', () => {
  it('a packaged window cannot open DevTools; a development window can', () => {
    const packaged = createMainWindow(PRELOAD, PACKAGED) as unknown as FakeBrowserWindow;
    expect((packaged.options.webPreferences as { devTools: boolean }).devTools).toBe(false);
    const dev = createMainWindow(PRELOAD, DEV) as unknown as FakeBrowserWindow;
    expect((dev.options.webPreferences as { devTools: boolean }).devTools).toBe(true);
  });

  it('devtools: pages are cancelled when packaged and allowed in development', () => {
    hardenSession(defaultSession as never, PACKAGED);
    const onRequest = defaultSession.webRequest.onBeforeRequest.mock.calls[0]![0] as (...args: unknown[]) => void;
    const callback = vi.fn();
    onRequest({ url: 'devtools://devtools/bundled/devtools_app.html', webContentsId: 1 }, callback);
    expect(callback).toHaveBeenCalledWith({ cancel: true });
    expect(isPageRequestAllowed('devtools://devtools/bundled/devtools_app.html', DEV)).toBe(true);
  });

  it('a packaged build replaces the default menu with one holding no DevTools entry; development keeps it', () => {
    installAppMenu(DEV);
    expect(Menu.setApplicationMenu).not.toHaveBeenCalled();
    installAppMenu(PACKAGED);
    expect(Menu.setApplicationMenu).toHaveBeenCalledTimes(1);
    const template = Menu.buildFromTemplate.mock.calls[0]![0] as { role: string }[];
    const roles = template.map((item) => item.role);
    expect(roles).toEqual(expect.arrayContaining(['editMenu', 'windowMenu']));
    // viewMenu is the default menu's home of "Toggle Developer Tools".
    expect(roles).not.toContain('viewMenu');
    expect(roles).not.toContain('toggleDevTools');
  });
});
