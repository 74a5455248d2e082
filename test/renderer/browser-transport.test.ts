import { describe, expect, it, vi } from 'vitest';
import { createBrowserApi, takeFragmentToken } from '../../renderer/src/api/browser';

type Seen = { url: string; init: RequestInit }[];

function recordingFetch(seen: Seen, answer: (url: string) => Response | Promise<Response> = () => new Response('{"ok":true,"value":{}}', { status: 200 })) {
  return (async (url: string, init: RequestInit) => {
    seen.push({ url, init });
    return answer(url);
  }) as unknown as typeof fetch;
}

describe('browser transport', () => {
  it('takes the token out of the fragment, clears it, and keeps it nowhere a script could read later', () => {
    window.sessionStorage.clear();
    window.history.replaceState(null, '', '/#token=abc_DEF-123');
    expect(takeFragmentToken(window.location, window.history)).toBe('abc_DEF-123');
    expect(window.location.hash).toBe('');
    expect(window.sessionStorage.length).toBe(0);
    // A reload has no fragment: the session cookie carries on.
    expect(takeFragmentToken(window.location, window.history)).toBeNull();
  });

  it('trades the token for the session cookie once; calls made meanwhile go beside the trade with the token, later calls without it', async () => {
    const seen: Seen = [];
    let answerTrade!: () => void;
    const tradeAnswered = new Promise<void>((done) => (answerTrade = done));
    const api = createBrowserApi(
      'tok',
      recordingFetch(seen, async (url) => {
        if (url !== '/api/session') return new Response('{"ok":true,"value":{"methods":["service_demo"]}}', { status: 200 });
        await tradeAnswered;
        return new Response(null, { status: 204 });
      }),
    );
    // The trade is not answered yet: the first calls do not wait for it.
    expect(await api.invoke('methods:list', {})).toEqual({ ok: true, value: { methods: ['service_demo'] } });
    await api.invoke('profiles:list', {});
    expect(seen.map((s) => `${s.init.method} ${s.url}`)).toEqual(['POST /api/session', 'POST /api/invoke/methods:list', 'POST /api/invoke/profiles:list']);
    for (const call of seen) expect((call.init.headers as Record<string, string>)['X-Paydesk-Token']).toBe('tok');
    answerTrade();
    await new Promise((done) => setTimeout(done, 0));
    await api.invoke('app:info', {});
    // One trade only, and once it is answered the token is forgotten: no later call carries it.
    expect(seen.filter((s) => s.url === '/api/session')).toHaveLength(1);
    expect(seen.at(-1)!.url).toBe('/api/invoke/app:info');
    expect(JSON.stringify(seen.at(-1)!.init.headers)).not.toContain('tok');
  });

  it('turns a refused session and an unreachable host into failures with their own codes', async () => {
    const refused = createBrowserApi('tok', (async () => new Response('{}', { status: 401 })) as unknown as typeof fetch);
    expect(await refused.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_TOKEN_MISSING' } });
    const down = createBrowserApi('tok', (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch);
    expect(await down.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_UNREACHABLE' } });
    const noCookie = createBrowserApi(null, (async () => new Response('{}', { status: 401 })) as unknown as typeof fetch);
    expect(await noCookie.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_TOKEN_MISSING' } });
  });

  it('retries the trade after the host could not be reached', async () => {
    const seen: Seen = [];
    let up = false;
    const api = createBrowserApi('tok', (async (url: string, init: RequestInit) => {
      if (!up) throw new TypeError('fetch failed');
      seen.push({ url, init });
      return new Response(url === '/api/session' ? null : '{"ok":true,"value":1}', { status: url === '/api/session' ? 204 : 200 });
    }) as unknown as typeof fetch);
    expect(await api.invoke('app:info', {})).toMatchObject({ error: { code: 'HOST_UNREACHABLE' } });
    up = true;
    // The failed trade settles beside the failed call (they go together): let it finish first.
    await new Promise((done) => setTimeout(done, 0));
    expect(await api.invoke('app:info', {})).toEqual({ ok: true, value: 1 });
    expect(seen.map((s) => s.url)).toEqual(['/api/session', '/api/invoke/app:info']);
  });
});

/** The page's EventSource, played by the test: it hands the stream's messages to the transport. */
class FakeEventSource {
  static opened: FakeEventSource[] = [];
  readonly listeners = new Map<string, ((message: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener(type: string, listener: (message: MessageEvent<string>) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  /** One message of the stream, as EventSource dispatches it. */
  message(type: string, data: string): void {
    for (const listener of this.listeners.get(type) ?? []) listener(new MessageEvent(type, { data }));
  }
}

describe('browser transport: push events', () => {
  it('hands each push of a `pushes` message to its listeners, in order; skips what is not a push; one listener throwing stops no other', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    vi.useFakeTimers();
    try {
      const api = createBrowserApi(null, recordingFetch([]));
      const heard: string[] = [];
      api.on('transaction:changed', (event) => heard.push(`changed ${event.journalId}`));
      api.on('sandbox:event', () => {
        throw new Error('listener broke');
      });
      api.on('sandbox:event', (event) => heard.push(`sandbox ${event.kind}`));
      await vi.advanceTimersByTimeAsync(0);
      const [source] = FakeEventSource.opened;
      expect(source?.url).toBe('/api/events');
      expect([...source!.listeners.keys()]).toEqual(['pushes']);

      source!.message(
        'pushes',
        JSON.stringify([
          ['transaction:changed', { journalId: 'j1', status: 'PENDING', state: 'known' }],
          ['sandbox:event', { kind: 'wallet' }],
          ['no-such-event', {}],
          'not a pair',
          ['transaction:changed', { journalId: 'j2', status: 'SUCCESSFUL', state: 'known' }],
        ]),
      );
      expect(heard).toEqual(['changed j1', 'sandbox wallet', 'changed j2']);
      // The broken listener's error is the page's uncaught error, after the bundle.
      expect(() => vi.runOnlyPendingTimers()).toThrow('listener broke');
      // Not JSON, or not a bundle: nothing is handed out.
      source!.message('pushes', '{"journalId":');
      source!.message('pushes', '{"journalId":"j3"}');
      expect(heard).toHaveLength(3);
    } finally {
      vi.clearAllTimers();
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });
});
