/**
 * Wire details of the two transports of the channel map, so that both ends agree.
 *
 * Electron: the preload exposes `window.paydesk` with one function per channel, named exactly as
 * the channel (`paydesk['payments:create'](input)`), plus `on(event, listener)` returning an
 * unsubscribe function. Listeners get the payload only, never the IPC event.
 *
 * Browser host (loopback only): the page is opened at `http://127.0.0.1:PORT/#token=TOKEN`; the
 * page reads the token from the fragment (never sent in a URL to the server except for the event
 * stream below) and keeps it in sessionStorage.
 * - `POST /api/invoke/<channel>` with header `X-Paydesk-Token: TOKEN`, JSON body = the input,
 *   answers 200 with the handler's `Result` as JSON; 401 without a valid token; 403 for a foreign
 *   Origin or Host; 404 for an unknown channel.
 * - `GET /api/events?token=TOKEN`: server-sent events, `event: <push event name>`,
 *   `data: <JSON payload>`.
 */
export const ELECTRON_API_GLOBAL = 'paydesk';
export const BROWSER_TOKEN_HEADER = 'X-Paydesk-Token';
export const BROWSER_INVOKE_PREFIX = '/api/invoke/';
export const BROWSER_EVENTS_PATH = '/api/events';
