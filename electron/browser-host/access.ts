/**
 * Who may use the browser host. Every request is checked, in this order:
 * 1. The caller is on this machine (socket address; the server listens on loopback only): 403.
 * 2. Host must be this server's own loopback address and port (a DNS-rebinding page arrives with
 *    its own host name): 403.
 * 3. An Origin, when sent, must be this server's own origin (another site's page calling us): 403.
 * 4. The API needs the per-run token, in the X-Paydesk-Token header or the HttpOnly session
 *    cookie, compared in constant time: 401. Files need nothing more (they hold no data) but a
 *    path inside the renderer folder: 400/403.
 *
 * The session cookie is set in exchange for the token (POST /api/session, the page opened from the
 * printed URL) or for a one-time code (GET /api/open?code=, the URL given to the program that
 * opens the browser, whose arguments any local user can read with `ps`).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BROWSER_OPEN_PATH, BROWSER_SESSION_PATH, BROWSER_TOKEN_HEADER } from '../../shared/api';
import { transportRefusal } from '../console/transport';
import { isLoopbackAddress, secretMatches } from '@paydesk/sandbox';
import { resolveRendererPath } from '../net/renderer-files';

/** An unused one-time code stops working after this long: the opener uses it within seconds. */
export const OPEN_CODE_LIFETIME_MS = 2 * 60_000;

export function refuse(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).header('Cache-Control', 'no-store').send(transportRefusal(code, message));
}

/** Single-use codes for the browser opener; each is redeemed at most once, within its lifetime. */
export class OneTimeCodes {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** The path (with a fresh code) that sets the session cookie and lands on the console. */
  openPath(): string {
    const code = randomBytes(24).toString('base64url');
    this.expiries.set(code, this.now() + OPEN_CODE_LIFETIME_MS);
    return `${BROWSER_OPEN_PATH}?code=${code}`;
  }

  redeem(offered: string | undefined): boolean {
    const now = this.now();
    let found: string | undefined;
    // Every live code is compared (in constant time), so the answer's timing says nothing.
    for (const [code, expires] of this.expiries) {
      if (expires <= now) this.expiries.delete(code);
      else if (secretMatches(code, offered)) found = code;
    }
    return found !== undefined && this.expiries.delete(found);
  }
}

export interface ServerIdentity {
  /** `127.0.0.1:PORT` and `localhost:PORT`. */
  hostNames: ReadonlySet<string>;
  /** The same as `http://` origins. */
  origins: ReadonlySet<string>;
  port: number;
}

export interface AccessOptions {
  token: string;
  codes: OneTimeCodes;
  /** Read per request: known only once the server listens. */
  server: () => ServerIdentity;
  staticDir: string;
}

/**
 * Cookies are not kept apart by port, so the name carries it: two hosts on one machine never
 * overwrite each other's session.
 */
export function sessionCookieName(port: number): string {
  return `paydesk_session_${port}`;
}

function sessionCookie(port: number, token: string): string {
  return `${sessionCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function queryValue(url: string, name: string): string | undefined {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return new URLSearchParams(query).get(name) ?? undefined;
}

export function installAccessChecks(app: FastifyInstance, options: AccessOptions): void {
  const { token, codes } = options;

  function hasToken(request: FastifyRequest): boolean {
    const header = headerValue(request.headers[BROWSER_TOKEN_HEADER.toLowerCase()]);
    const cookie = cookieValue(request.headers.cookie, sessionCookieName(options.server().port));
    return secretMatches(token, header) || secretMatches(token, cookie);
  }

  app.addHook('onRequest', async function checkAccess(request, reply) {
    const server = options.server();
    if (!isLoopbackAddress(request.socket.remoteAddress)) {
      return refuse(reply, 403, 'FORBIDDEN_ADDRESS', 'The console host only answers this machine.');
    }
    if (!server.hostNames.has((request.headers.host ?? '').toLowerCase())) {
      return refuse(reply, 403, 'FORBIDDEN_HOST', 'The Host header is not this console host (DNS rebinding is refused).');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !server.origins.has(origin.toLowerCase())) {
      return refuse(reply, 403, 'FORBIDDEN_ORIGIN', 'Requests from another origin are refused.');
    }
    const path = request.url.split('?')[0] ?? '/';
    if (path === BROWSER_OPEN_PATH) {
      if (!codes.redeem(queryValue(request.url, 'code'))) {
        return reply
          .code(401)
          .header('Cache-Control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send('This link has been used already or has expired. Open the URL printed where the console host was started.');
      }
      // 303: the code leaves the address bar at once; the cookie comes with the page's own requests.
      return reply.code(303).header('Set-Cookie', sessionCookie(server.port, token)).header('Cache-Control', 'no-store').header('Location', '/').send();
    }
    if (path.startsWith('/api/')) {
      if (!hasToken(request)) {
        return refuse(reply, 401, 'UNAUTHORIZED', `A valid ${BROWSER_TOKEN_HEADER} header or session cookie is required.`);
      }
      if (path === BROWSER_SESSION_PATH) {
        if (request.method !== 'POST') return refuse(reply.header('Allow', 'POST'), 405, 'METHOD_NOT_ALLOWED', 'A session is opened with POST.');
        return reply.code(204).header('Set-Cookie', sessionCookie(server.port, token)).header('Cache-Control', 'no-store').send();
      }
      return;
    }
    const resolved = resolveRendererPath(options.staticDir, path);
    if (!resolved.ok) return reply.code(resolved.status).type('text/plain; charset=utf-8').send('Refused');
  });
}
