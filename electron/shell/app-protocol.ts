/**
 * The app:// protocol: the renderer is served from `app://paydesk/` out of dist/renderer, never
 * from the file system's file:// (which Chromium treats loosely) and never from a dev server.
 */
import { protocol } from 'electron';
import { readRendererFile, SECURITY_HEADERS } from '../net/renderer-files';

export const APP_SCHEME = 'app';
export const APP_HOST = 'paydesk';
/** What the window loads. */
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * Whether a URL is one of our own pages. Compared by scheme and host, not by `URL.origin`:
 * Node's URL gives `"null"` as the origin of a custom scheme.
 */
export function isAppUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * Must run before `app.whenReady`: a standard, secure scheme gets a real origin (so CSP 'self',
 * storage and relative URLs behave as on https) without file:// privileges.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** Answers one app:// request from `rendererDir`; refuses other hosts, methods and traversal. */
export async function appProtocolResponse(rendererDir: string, request: { url: string; method: string }): Promise<Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return plain(400, 'Bad URL');
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'Not found');
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed');
  const file = await readRendererFile(rendererDir, url.pathname);
  if (!file.ok) return plain(file.status, file.status === 404 ? 'Not found' : 'Refused');
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(file.body), {
    status: 200,
    headers: { ...SECURITY_HEADERS, 'Content-Type': file.contentType },
  });
}

/** After `app.whenReady`: serve dist/renderer on app:// for the default session. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => appProtocolResponse(rendererDir, request));
}
