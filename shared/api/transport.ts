/**
 * Wire details of the two transports of the channel map, so that both ends agree.
 *
 * Electron: the preload exposes `window.paydesk` with one function per channel, named exactly as
 * the channel (`paydesk['payments:create'](input)`), plus `on(event, listener)` returning an
 * unsubscribe function. Listeners get the payload only, never the IPC event. Main sends the push
 * events of ~50 ms as one message on ELECTRON_PUSH_CHANNEL, `[[event, payload], ...]` in the order
 * emitted (electron/console/push-bundles.ts); the preload hands each to the listeners of its event.
 *
 * Browser host (loopback only). The page's calls are authorised by an HttpOnly, SameSite=Strict
 * session cookie holding the per-run token, which page script can never read. The page gets it by:
 * - the URL printed for a person, `http://127.0.0.1:PORT/#token=TOKEN`: the page takes the token
 *   from the fragment (never sent to the server), clears the fragment and trades the token once
 *   for the cookie with `POST /api/session` and header `X-Paydesk-Token: TOKEN` (204); calls made
 *   before that trade is answered carry the same header and go beside it, later ones never do
 *   (docs/decisions/session-token-beside-first-calls.md);
 * - the URL handed to the program that opens the browser, `GET /api/open?code=CODE`: a one-time
 *   code (its arguments are visible to every local user), answered by 303 to `/` with the cookie;
 *   a used or expired code gets 401.
 * Then:
 * - `POST /api/invoke/<channel>`, JSON body = the input, answers 200 with the handler's `Result` as
 *   JSON; 401 without a valid cookie or `X-Paydesk-Token` header; 403 for a foreign Origin or
 *   Host; 404 for an unknown channel.
 * - `GET /api/events`: server-sent events, `event: pushes` (PUSH_BUNDLE_EVENT), `data: [[<push
 *   event name>, <payload>], ...]`: the push events of ~50 ms in the order main emitted them
 *   (electron/console/push-bundles.ts); the cookie (or the header, for tools) authorises it,
 *   never the query string.
 */
export const ELECTRON_API_GLOBAL = 'paydesk';
/** The one IPC message name main sends push events on (bundles; never a channel of the map). */
export const ELECTRON_PUSH_CHANNEL = 'paydesk:pushes';
export const BROWSER_TOKEN_HEADER = 'X-Paydesk-Token';
export const BROWSER_INVOKE_PREFIX = '/api/invoke/';
export const BROWSER_EVENTS_PATH = '/api/events';
/** The one SSE event name on BROWSER_EVENTS_PATH: its data is a bundle of push events. */
export const PUSH_BUNDLE_EVENT = 'pushes';
export const BROWSER_SESSION_PATH = '/api/session';
export const BROWSER_OPEN_PATH = '/api/open';
