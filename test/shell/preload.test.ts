import { describe, expect, it, vi } from 'vitest';
import { CHANNELS, ELECTRON_API_GLOBAL, ELECTRON_PUSH_CHANNEL, PUSH_EVENTS } from '../../shared/api';
import { contextBridge, ipcRenderer } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronModule);

await import('../../electron/shell/preload');

function exposedApi(): Record<string, unknown> {
  expect(contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
  const [name, api] = contextBridge.exposeInMainWorld.mock.calls[0]!;
  expect(name).toBe(ELECTRON_API_GLOBAL);
  return api as Record<string, unknown>;
}

describe('preload', () => {
  it('exposes exactly one function per channel of the map plus on, and nothing else', () => {
    const api = exposedApi();
    expect(Object.keys(api).sort()).toEqual([...CHANNELS, 'on'].sort());
    for (const [key, value] of Object.entries(api)) expect(typeof value, key).toBe('function');
    expect(api).not.toHaveProperty('ipcRenderer');
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('send');
  });

  it('calls ipcRenderer.invoke with the channel and the first argument only', async () => {
    const api = exposedApi();
    const create = api['payments:create'] as (...args: unknown[]) => Promise<unknown>;
    const input = { request: { amount: 5000 } };
    await expect(create(input, 'smuggled')).resolves.toEqual({ ok: true, value: { channel: 'payments:create', args: [input] } });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('payments:create', input);
    for (const channel of CHANNELS) {
      await (api[channel] as (input: unknown) => Promise<unknown>)({});
      expect(ipcRenderer.invoke).toHaveBeenLastCalledWith(channel, {});
    }
  });

  it('passes push event payloads from main\'s bundles to their listeners, in order, without the IPC event, until unsubscribed', () => {
    const on = exposedApi().on as (event: string, listener: (...args: unknown[]) => void) => () => void;
    const listener = vi.fn();
    const other = vi.fn();
    const unsubscribe = on('transaction:changed', listener);
    const unsubscribeOther = on('profiles:changed', other);
    const ipcEvent = { sender: ipcRenderer, senderId: 0, ports: [] };
    const payload = { journalId: 'j1', status: 'SUCCESSFUL', state: 'known' };
    const second = { journalId: 'j2', status: 'FAILED', state: 'known' };
    ipcRenderer.emit(ELECTRON_PUSH_CHANNEL, ipcEvent, [
      ['transaction:changed', payload],
      ['profiles:changed', { activeId: 'p1' }],
      ['not-an-event', {}],
      ['transaction:changed', second],
    ]);
    expect(listener.mock.calls).toEqual([[payload], [second]]);
    expect(other).toHaveBeenCalledExactlyOnceWith({ activeId: 'p1' });
    // Not a bundle: nothing is handed out.
    ipcRenderer.emit(ELECTRON_PUSH_CHANNEL, ipcEvent, payload);
    ipcRenderer.emit('transaction:changed', ipcEvent, payload);
    expect(listener).toHaveBeenCalledTimes(2);
    unsubscribe();
    unsubscribe();
    ipcRenderer.emit(ELECTRON_PUSH_CHANNEL, ipcEvent, [['transaction:changed', payload]]);
    expect(listener).toHaveBeenCalledTimes(2);
    expect(ipcRenderer.listenerCount(ELECTRON_PUSH_CHANNEL)).toBe(1);
    unsubscribeOther();
    expect(ipcRenderer.listenerCount(ELECTRON_PUSH_CHANNEL)).toBe(0);
  });

  it('hands the rest of a bundle out when a listener throws, and reports the error', () => {
    vi.useFakeTimers();
    try {
      const on = exposedApi().on as (event: string, listener: (...args: unknown[]) => void) => () => void;
      const heard: unknown[] = [];
      const offs = [
        on('profiles:changed', () => {
          throw new Error('listener broke');
        }),
        on('profiles:changed', (payload) => heard.push(payload)),
      ];
      ipcRenderer.emit(ELECTRON_PUSH_CHANNEL, {}, [['profiles:changed', { activeId: 'a' }], ['profiles:changed', { activeId: 'b' }]]);
      expect(heard).toEqual([{ activeId: 'a' }, { activeId: 'b' }]);
      // Reported as the page's uncaught error, outside the bundle's loop.
      expect(() => vi.runOnlyPendingTimers()).toThrow('listener broke');
      offs.forEach((off) => off());
    } finally {
      vi.clearAllTimers();
      vi.useRealTimers();
    }
  });

  it('subscribes to push events only, never to a channel or an arbitrary IPC message', () => {
    const on = exposedApi().on as (event: unknown, listener: unknown) => () => void;
    for (const event of PUSH_EVENTS) on(event, () => undefined)();
    for (const event of ['profiles:list', 'electron-store-get-data', 'ELECTRON_BROWSER_REQUIRE', '', 42]) {
      expect(() => on(event, () => undefined)).toThrow(/unknown push event/);
    }
    expect(() => on('profiles:changed', 'not a function')).toThrow(/must be a function/);
    for (const event of PUSH_EVENTS) expect(ipcRenderer.listenerCount(event)).toBe(0);
    expect(ipcRenderer.listenerCount(ELECTRON_PUSH_CHANNEL)).toBe(0);
  });
});
