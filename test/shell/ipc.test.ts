import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, ELECTRON_PUSH_CHANNEL } from '../../shared/api';
import { PUSH_BUNDLE_MS } from '../../electron/console/push-bundles';
import { FakePushSource, fakeHandlers, type FakeHandlers } from '../browser-host/fakes';
import { FakeWebContents, ipcMain, type FakeFrame } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronModule);

const { FORBIDDEN_SENDER, TrustedWindows, forwardPushEvents, registerChannels } = await import('../../electron/shell/ipc');

let handlers: FakeHandlers;
let windows: InstanceType<typeof TrustedWindows>;
let ours: FakeWebContents;
let unregister: () => void;

beforeEach(() => {
  vi.clearAllMocks();
  ipcMain.handlers.clear();
  handlers = fakeHandlers();
  windows = new TrustedWindows();
  ours = new FakeWebContents();
  windows.add(ours as never);
  unregister = registerChannels(ipcMain, handlers, windows);
});

function call(channel: string, sender: FakeWebContents, frame: FakeFrame | null, ...args: unknown[]) {
  const listener = ipcMain.handlers.get(channel);
  if (!listener) throw new Error(`no handler for ${channel}`);
  return listener({ sender, senderFrame: frame }, ...args) as Promise<unknown>;
}

describe('IPC transport: registration', () => {
  it('registers exactly one ipcMain.handle per channel of the map', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNELS].sort());
    expect(ipcMain.handle).toHaveBeenCalledTimes(CHANNELS.length);
  });

  it('removes every handler when unregistered', () => {
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
  });
});

describe('IPC transport: calls', () => {
  it('passes a call from our window\'s main frame to the handler and returns its Result', async () => {
    const input = { request: { amount: 5000 } };
    await expect(call('payments:create', ours, ours.mainFrame, input)).resolves.toEqual({
      ok: true,
      value: { channel: 'payments:create', input },
    });
    expect(handlers['payments:create']).toHaveBeenCalledWith(input);
  });

  it('refuses a window it did not create, without calling the handler', async () => {
    const foreign = new FakeWebContents();
    await expect(call('secrets:set', foreign, foreign.mainFrame, { secret: 'x' })).resolves.toMatchObject({
      ok: false,
      error: { code: FORBIDDEN_SENDER },
    });
    expect(handlers['secrets:set']).not.toHaveBeenCalled();
  });

  it('refuses a subframe of our own window, even on app://', async () => {
    await expect(call('payouts:initiate', ours, ours.subframe(), {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    await expect(call('payouts:initiate', ours, ours.subframe('https://evil.example/'), {})).resolves.toMatchObject({
      error: { code: FORBIDDEN_SENDER },
    });
    expect(handlers['payouts:initiate']).not.toHaveBeenCalled();
  });

  it('refuses our window once it shows another origin', async () => {
    ours.navigate('https://evil.example/');
    await expect(call('profiles:list', ours, ours.mainFrame, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    ours.navigate('app://paydesk.evil/index.html');
    await expect(call('profiles:list', ours, ours.mainFrame, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('refuses a frame that is gone, a frame of another contents, and a destroyed window', async () => {
    await expect(call('profiles:list', ours, null, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    const other = new FakeWebContents();
    await expect(call('profiles:list', ours, other.mainFrame, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    const disposed = {};
    Object.defineProperty(disposed, 'url', {
      get() {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    });
    Object.assign(disposed, { parent: null, processId: ours.mainFrame.processId, routingId: ours.mainFrame.routingId });
    await expect(call('profiles:list', ours, disposed as FakeFrame, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    ours.destroy();
    await expect(call('profiles:list', ours, ours.mainFrame, {})).resolves.toMatchObject({ error: { code: FORBIDDEN_SENDER } });
    expect(handlers['profiles:list']).not.toHaveBeenCalled();
  });

  it('turns a handler that throws into an INTERNAL Result', async () => {
    handlers['app:info'].mockRejectedValueOnce(new Error('boom'));
    await expect(call('app:info', ours, ours.mainFrame, {})).resolves.toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });
});

describe('IPC transport: push events', () => {
  it('sends push events, payloads only, bundled on the one push message, only to our live windows on app://', () => {
    vi.useFakeTimers();
    try {
      const source = new FakePushSource();
      const elsewhere = new FakeWebContents();
      windows.add(elsewhere as never);
      elsewhere.navigate('https://evil.example/');
      const closed = new FakeWebContents();
      windows.add(closed as never);
      closed.destroy();
      const stranger = new FakeWebContents();
      const stop = forwardPushEvents(source, windows);

      const progress = { journalId: 'j1', attempt: 2, status: 'PENDING', done: false };
      source.emit('watch:progress', progress);
      source.emit('profiles:changed', { activeId: 'p1' });
      expect(ours.send).not.toHaveBeenCalled();
      vi.advanceTimersByTime(PUSH_BUNDLE_MS);
      expect(ours.send).toHaveBeenCalledExactlyOnceWith(ELECTRON_PUSH_CHANNEL, [
        ['watch:progress', progress],
        ['profiles:changed', { activeId: 'p1' }],
      ]);
      expect(elsewhere.send).not.toHaveBeenCalled();
      expect(closed.send).not.toHaveBeenCalled();
      expect(stranger.send).not.toHaveBeenCalled();

      stop();
      expect(source.listenerCount()).toBe(0);
      source.emit('profiles:changed', { activeId: 'p' });
      vi.advanceTimersByTime(PUSH_BUNDLE_MS);
      expect(ours.send).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
