/**
 * The browser-host transport of the channel map: POST per call with the per-run token, and one
 * EventSource for push events. See shared/api/transport.ts for the wire details both ends share.
 */
import {
  BROWSER_EVENTS_PATH,
  BROWSER_INVOKE_PREFIX,
  BROWSER_TOKEN_HEADER,
  type PaydeskApi,
  type PushEvent,
  type PushEvents,
  type Result,
} from '../../../shared/api';

const TOKEN_KEY = 'paydesk.token';

/**
 * Takes the token from `#token=...` into sessionStorage and clears the fragment, so the token is
 * not left in the address bar, in bookmarks or in screenshots.
 */
export function takeBrowserToken(location: Location, storage: Storage, history: History): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1]) {
    storage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return storage.getItem(TOKEN_KEY);
}

/** Failures of the local link to the host (not of the API behind it) as `Result`s, never throws. */
function hostFailure(code: string, message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

export function createBrowserApi(token: string | null, fetchFn: typeof fetch = fetch.bind(globalThis)): PaydeskApi {
  let source: EventSource | null = null;
  const listeners = new Map<string, Set<(payload: never) => void>>();

  function ensureSource(): EventSource | null {
    if (source || !token || typeof EventSource === 'undefined') return source;
    source = new EventSource(`${BROWSER_EVENTS_PATH}?token=${encodeURIComponent(token)}`);
    return source;
  }

  return {
    async invoke(channel, input) {
      if (!token) {
        return hostFailure('HOST_TOKEN_MISSING', 'This page was opened without its access token.');
      }
      let response: Response;
      try {
        response = await fetchFn(`${BROWSER_INVOKE_PREFIX}${channel}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [BROWSER_TOKEN_HEADER]: token },
          body: JSON.stringify(input ?? {}),
        });
      } catch {
        return hostFailure('HOST_UNREACHABLE', 'The console host did not answer.');
      }
      if (response.status === 401 || response.status === 403) {
        return hostFailure('HOST_TOKEN_MISSING', 'The console host refused this page’s access token.');
      }
      if (!response.ok) {
        return hostFailure('HOST_UNREACHABLE', `The console host answered HTTP ${response.status}.`);
      }
      try {
        return (await response.json()) as Result<never>;
      } catch {
        return hostFailure('BAD_RESPONSE', 'The console host answered something that is not JSON.');
      }
    },
    on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void) {
      const es = ensureSource();
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
        es?.addEventListener(event, (message) => {
          let payload: unknown;
          try {
            payload = JSON.parse((message as MessageEvent<string>).data);
          } catch {
            return;
          }
          for (const fn of listeners.get(event) ?? []) (fn as (p: unknown) => void)(payload);
        });
      }
      set.add(listener as (payload: never) => void);
      return () => {
        set.delete(listener as (payload: never) => void);
      };
    },
  };
}
