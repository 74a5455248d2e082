import { describe, expect, it } from 'vitest';
import { createBrowserApi, takeFragmentToken } from '../../renderer/src/api/browser';

type Seen = { url: string; init: RequestInit }[];

function recordingFetch(seen: Seen, answer: (url: string) => Response = () => new Response('{"ok":true,"value":{}}', { status: 200 })) {
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

  it('trades the token for the session cookie once, before the first call, then calls without it', async () => {
    const seen: Seen = [];
    const api = createBrowserApi('tok', recordingFetch(seen, (url) => new Response(url === '/api/session' ? null : '{"ok":true,"value":{"methods":["service_demo"]}}', { status: url === '/api/session' ? 204 : 200 })));
    expect(await api.invoke('methods:list', {})).toEqual({ ok: true, value: { methods: ['service_demo'] } });
    await api.invoke('app:info', {});
    expect(seen.map((s) => `${s.init.method} ${s.url}`)).toEqual(['POST /api/session', 'POST /api/invoke/methods:list', 'POST /api/invoke/app:info']);
    expect((seen[0]!.init.headers as Record<string, string>)['X-Paydesk-Token']).toBe('tok');
    for (const call of seen.slice(1)) expect(JSON.stringify(call.init.headers)).not.toContain('tok');
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
    expect(await api.invoke('app:info', {})).toEqual({ ok: true, value: 1 });
    expect(seen.map((s) => s.url)).toEqual(['/api/session', '/api/invoke/app:info']);
  });
});
