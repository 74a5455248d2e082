import { describe, expect, it } from 'vitest';
import { createBrowserApi, takeBrowserToken } from '../../renderer/src/api/browser';

describe('browser transport', () => {
  it('moves the token from the fragment to sessionStorage and clears the fragment', () => {
    window.history.replaceState(null, '', '/#token=abc_DEF-123');
    expect(takeBrowserToken(window.location, window.sessionStorage, window.history)).toBe('abc_DEF-123');
    expect(window.location.hash).toBe('');
    expect(window.sessionStorage.getItem('paydesk.token')).toBe('abc_DEF-123');
    // A reload without the fragment keeps working from sessionStorage.
    expect(takeBrowserToken(window.location, window.sessionStorage, window.history)).toBe('abc_DEF-123');
  });

  it('POSTs the input to /api/invoke/<channel> with the token header and returns the Result', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fetchFn = (async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return new Response(JSON.stringify({ ok: true, value: { methods: ['service_demo'] } }), { status: 200 });
    }) as unknown as typeof fetch;
    const api = createBrowserApi('tok', fetchFn);
    expect(await api.invoke('methods:list', {})).toEqual({ ok: true, value: { methods: ['service_demo'] } });
    expect(seen[0]!.url).toBe('/api/invoke/methods:list');
    expect(seen[0]!.init.method).toBe('POST');
    expect((seen[0]!.init.headers as Record<string, string>)['X-Paydesk-Token']).toBe('tok');
  });

  it('turns a refused token and an unreachable host into failures with their own codes', async () => {
    const refused = createBrowserApi('tok', (async () => new Response('{}', { status: 401 })) as unknown as typeof fetch);
    expect(await refused.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_TOKEN_MISSING' } });
    const down = createBrowserApi('tok', (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch);
    expect(await down.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_UNREACHABLE' } });
    expect(await createBrowserApi(null).invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'HOST_TOKEN_MISSING' } });
  });
});
