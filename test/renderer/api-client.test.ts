import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, type PushEvent } from '../../shared/api';
import { createPaydeskApi, wrapPreload } from '../../renderer/src/api/client';

type Bridge = Parameters<typeof wrapPreload>[0];

function fakeBridge(): Bridge & { calls: [string, unknown][]; emit(event: PushEvent, payload: unknown): void } {
  const calls: [string, unknown][] = [];
  const listeners = new Set<[string, (payload: unknown) => void]>();
  const bridge: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    bridge[channel] = async (input: unknown) => {
      calls.push([channel, input]);
      if (channel === 'app:info') throw new Error('IPC broke');
      return { ok: true, value: { echoed: input } };
    };
  }
  bridge.on = (event: string, listener: (payload: unknown) => void) => {
    const entry: [string, (payload: unknown) => void] = [event, listener];
    listeners.add(entry);
    return () => listeners.delete(entry);
  };
  return Object.assign(bridge as Bridge, {
    calls,
    emit(event: PushEvent, payload: unknown) {
      for (const [name, listener] of listeners) if (name === event) listener(payload);
    },
  });
}

afterEach(() => {
  delete (window as unknown as Record<string, unknown>).paydesk;
});

describe('typed API over the Electron preload', () => {
  it('uses window.paydesk when the preload exposed every channel, calling the function named by the channel', async () => {
    const bridge = fakeBridge();
    (window as unknown as Record<string, unknown>).paydesk = bridge;
    const api = createPaydeskApi(window);
    expect(await api.invoke('transactions:get', { journalId: 'j1' })).toEqual({ ok: true, value: { echoed: { journalId: 'j1' } } });
    expect(bridge.calls).toEqual([['transactions:get', { journalId: 'j1' }]]);
  });

  it('turns a thrown IPC error into a Result and forwards push payloads only', async () => {
    const bridge = fakeBridge();
    const api = wrapPreload(bridge);
    expect(await api.invoke('app:info', {})).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'IPC broke' } });
    const seen: unknown[] = [];
    const off = api.on('transaction:changed', (payload) => seen.push(payload));
    bridge.emit('transaction:changed', { journalId: 'j1', status: 'completed', state: 'known' });
    off();
    bridge.emit('transaction:changed', { journalId: 'j2', status: 'failed', state: 'known' });
    expect(seen).toEqual([{ journalId: 'j1', status: 'completed', state: 'known' }]);
  });

  it('falls back to the browser transport when the global is not a full preload bridge', async () => {
    (window as unknown as Record<string, unknown>).paydesk = { on: () => () => undefined };
    window.history.replaceState(null, '', '/');
    // The host answers a page without a session cookie with 401.
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 401 }));
    try {
      const api = createPaydeskApi(window);
      expect(await api.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_TOKEN_MISSING' } });
      expect(fetchSpy.mock.calls[0]![0]).toBe('/api/invoke/app:info');
    } finally {
      fetchSpy.mockRestore();
    }
  });
});
