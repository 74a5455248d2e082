/**
 * The browser-host transport of the channel map: POST per call and one EventSource for push
 * events, both authorised by the host's HttpOnly session cookie (no page script ever reads it).
 * See shared/api/transport.ts for the wire details both ends share.
 */
import type { PaydeskApi, PushEvent, PushEvents, Result } from '../../../shared/api';
// From transport.ts and push-bundles.ts, not shared/api: this is in the first chunk, zod is not (issue 28).
import { BROWSER_EVENTS_PATH, BROWSER_INVOKE_PREFIX, BROWSER_SESSION_PATH, BROWSER_TOKEN_HEADER, PUSH_BUNDLE_EVENT } from '../../../shared/api/transport';
import { emitBundle, reportListenerError } from '../../../shared/api/push-bundles';
import { TypedEmitter } from '../../../shared/events';

/**
 * Takes the token from `#token=...` and clears the fragment, so the token is not left in the
 * address bar, in bookmarks or in screenshots. Null when the page was opened without one (by the
 * one-time link, or reloaded): the session cookie is then already set, or the host says not.
 */
export function takeFragmentToken(location: Location, history: History): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return null;
  history.replaceState(null, '', location.pathname + location.search);
  return decodeURIComponent(match[1]);
}

/** Failures of the local link to the host (not of the API behind it) as `Result`s, never throws. */
function hostFailure(code: string, message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

export function createBrowserApi(fragmentToken: string | null, fetchFn: typeof fetch = fetch.bind(globalThis)): PaydeskApi {
  // Traded once for the session cookie, then forgotten; kept only while the host cannot be reached.
  let pendingToken = fragmentToken;
  let exchange: Promise<void> | null = null;
  let source: EventSource | null = null;
  let sourceStarting = false;
  // A listener that throws does not keep the rest of its bundle from the others.
  const listeners = new TypedEmitter<PushEvents>({ onListenerError: reportListenerError });

  function sessionReady(): Promise<void> {
    if (pendingToken === null) return Promise.resolve();
    exchange ??= fetchFn(BROWSER_SESSION_PATH, { method: 'POST', headers: { [BROWSER_TOKEN_HEADER]: pendingToken } })
      .then(() => {
        // Answered either way: a refused token stays refused, and every call then says so.
        pendingToken = null;
      })
      .catch(() => undefined)
      .finally(() => {
        exchange = null;
      });
    return exchange;
  }

  /** One message of the stream: the push events of ~50 ms (shared/api/push-bundles.ts), one parse, one task. */
  function dispatch(message: Event): void {
    let bundle: unknown;
    try {
      // The host writes each push event's payload as JSON of the type PushEvents declares for it.
      bundle = JSON.parse((message as MessageEvent<string>).data);
    } catch {
      return;
    }
    emitBundle(listeners, bundle);
  }

  /** The stream opens once the cookie is there: an EventSource refused with 401 never retries. */
  function startSource(): void {
    if (source || sourceStarting || typeof EventSource === 'undefined') return;
    sourceStarting = true;
    void sessionReady().then(() => {
      source = new EventSource(BROWSER_EVENTS_PATH);
      source.addEventListener(PUSH_BUNDLE_EVENT, dispatch);
    });
  }

  return {
    async invoke(channel, input) {
      // A call made while the trade is on its way goes beside it, carrying the token the trade
      // carries, instead of waiting one round trip for the cookie (issue 28; reasoning in
      // docs/decisions/session-token-beside-first-calls.md). Once the trade is answered the token
      // is forgotten and no call carries it again.
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (pendingToken !== null) {
        headers[BROWSER_TOKEN_HEADER] = pendingToken;
        void sessionReady();
      }
      let response: Response;
      try {
        response = await fetchFn(`${BROWSER_INVOKE_PREFIX}${channel}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(input ?? {}),
        });
      } catch {
        return hostFailure('HOST_UNREACHABLE', 'The console host did not answer.');
      }
      if (response.status === 401 || response.status === 403) {
        return hostFailure('HOST_TOKEN_MISSING', 'The console host refused this page: it has no valid session.');
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
      const unsubscribe = listeners.on(event, listener);
      startSource();
      return unsubscribe;
    },
  };
}
