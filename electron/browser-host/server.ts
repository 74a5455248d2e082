/**
 * The browser host: the same handler table as Electron IPC, served over HTTP on loopback, with
 * the built renderer beside it. Wire details in shared/api/transport.ts.
 *
 * Every request is checked, in this order:
 * 1. Host must be this server's own loopback address and port (a DNS-rebinding page arrives with
 *    its own host name): 403.
 * 2. An Origin, when sent, must be this server's own origin (another site's page calling us): 403.
 * 3. The API needs the per-run token, compared in constant time: 401.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BROWSER_EVENTS_PATH,
  BROWSER_INVOKE_PREFIX,
  BROWSER_TOKEN_HEADER,
  CHANNEL_INPUTS,
  PUSH_EVENTS,
  type Channel,
  type Result,
} from '../../shared/api';
import { readRendererFile, SECURITY_HEADERS } from '../shell/renderer-files';
import { internalFailure, transportRefusal, type ChannelHandlers, type PushSource } from '../shell/transport-types';

/** Inputs are small (the largest is a transaction request); anything bigger is refused unread. */
export const MAX_BODY_BYTES = 256 * 1024;
/** A comment line keeps idle event streams open through proxies and lets clients notice a dead host. */
const HEARTBEAT_MS = 25_000;

export interface BrowserHostOptions {
  handlers: ChannelHandlers;
  /** Push events to forward on the event stream (the runtime's `on`). */
  events?: PushSource;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  /** A loopback address; the CLI refuses anything else. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token (tests); otherwise 32 random bytes. */
  token?: string;
}

export interface BrowserHost {
  /** The URL to open, with the token in the fragment (never sent to the server by the browser). */
  url: string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

/** Constant-time comparison that does not leak the token's length either. */
function tokenMatches(expected: string, offered: string | undefined): boolean {
  if (offered === undefined) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(offered).digest();
  return timingSafeEqual(a, b);
}

function isChannel(name: string): name is Channel {
  return Object.hasOwn(CHANNEL_INPUTS, name);
}

/** Loopback only: the host serves secrets-adjacent operations and must not face a network. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function hostLiteral(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(text);
}

function refuse(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  sendJson(res, status, transportRefusal(code, message), extra);
}

type BodyOutcome = { ok: true; text: string } | { ok: false; status: 413 | 400; message: string };

/** Reads the request body up to MAX_BODY_BYTES; stops reading as soon as the limit is passed. */
function readBody(req: IncomingMessage): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    return Promise.resolve({ ok: false, status: 413, message: `The body is over ${MAX_BODY_BYTES} bytes.` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.pause();
        settle({ ok: false, status: 413, message: `The body is over ${MAX_BODY_BYTES} bytes.` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => settle({ ok: false, status: 400, message: 'The request body could not be read.' }));
  });
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new Error(`The browser host listens on loopback only, not on ${host}.`);
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!TOKEN_PATTERN.test(token)) throw new Error('The browser host token must be 16 to 200 characters of A-Z a-z 0-9 _ -.');
  const { handlers, staticDir } = options;
  const streams = new Set<ServerResponse>();
  let allowedHosts = new Set<string>();
  let ownOrigins = new Set<string>();

  function broadcast(event: string, payload: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
    for (const stream of streams) stream.write(frame);
  }
  const unsubscribes = options.events
    ? PUSH_EVENTS.map((event) => options.events!.on(event, (payload) => broadcast(event, payload)))
    : [];

  async function invokeChannel(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (!isChannel(name)) return refuse(res, 404, 'UNKNOWN_CHANNEL', `There is no channel named ${JSON.stringify(name.slice(0, 100))}.`);
    if (req.method !== 'POST') return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'Channels are called with POST.', { Allow: 'POST' });
    const body = await readBody(req);
    if (!body.ok) {
      // Close the connection: the rest of an oversized body is not worth reading.
      return refuse(res, body.status, body.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'MALFORMED_REQUEST', body.message, { Connection: 'close' });
    }
    let input: unknown;
    if (body.text.trim() !== '') {
      try {
        input = JSON.parse(body.text);
      } catch {
        return refuse(res, 400, 'MALFORMED_REQUEST', 'The body is not valid JSON.');
      }
    }
    let result: Result<unknown>;
    try {
      result = await handlers[name](input);
    } catch (error) {
      result = internalFailure(name, error);
    }
    sendJson(res, 200, result);
  }

  function openEventStream(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (req.method !== 'GET') return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'The event stream is read with GET.', { Allow: 'GET' });
    if (!tokenMatches(token, url.searchParams.get('token') ?? undefined)) {
      return refuse(res, 401, 'UNAUTHORIZED', 'A valid token query parameter is required.');
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    // Tells the client the stream is live before any event comes.
    res.write(': connected\n\n');
    streams.add(res);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    res.on('close', () => {
      clearInterval(heartbeat);
      streams.delete(res);
    });
  }

  async function serveFile(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'Files are read with GET.', { Allow: 'GET, HEAD' });
    }
    const file = await readRendererFile(staticDir, url.pathname);
    if (!file.ok) {
      res.writeHead(file.status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(file.status === 404 ? 'Not found' : 'Refused');
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': file.contentType,
      'Content-Length': file.body.length,
      // Hashed asset names change with every build; the page itself must always be fresh.
      'Cache-Control': file.contentType.startsWith('text/html') ? 'no-store' : 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(hostHeader)) {
      return refuse(res, 403, 'FORBIDDEN_HOST', 'The Host header is not this console host (DNS rebinding is refused).');
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins.has(origin.toLowerCase())) {
      return refuse(res, 403, 'FORBIDDEN_ORIGIN', 'Requests from another origin are refused.');
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${hostHeader}`);
    } catch {
      return refuse(res, 400, 'MALFORMED_REQUEST', 'The request target is not a valid path.');
    }
    if (url.pathname.startsWith(BROWSER_INVOKE_PREFIX)) {
      if (!tokenMatches(token, req.headers[BROWSER_TOKEN_HEADER.toLowerCase()] as string | undefined)) {
        return refuse(res, 401, 'UNAUTHORIZED', `A valid ${BROWSER_TOKEN_HEADER} header is required.`);
      }
      let name: string;
      try {
        name = decodeURIComponent(url.pathname.slice(BROWSER_INVOKE_PREFIX.length));
      } catch {
        return refuse(res, 404, 'UNKNOWN_CHANNEL', 'The channel name is not valid percent-encoding.');
      }
      return invokeChannel(req, res, name);
    }
    if (url.pathname === BROWSER_EVENTS_PATH) return openEventStream(req, res, url);
    if (url.pathname.startsWith('/api/')) return refuse(res, 404, 'NOT_FOUND', 'No such API path.');
    return serveFile(req, res, url);
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      console.error(`paydesk: browser host request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, 'INTERNAL', 'The request failed unexpectedly.');
      else res.destroy();
    });
  });
  // Never let a slow client hold a socket forever; event streams are exempt (no request timeout
  // once headers are sent).
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const literal = hostLiteral(host);
  // The bound address and `localhost`, with this port: nothing else names this server.
  allowedHosts = new Set([literal, 'localhost'].map((name) => `${name}:${port}`));
  ownOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));
  const origin = `http://${literal}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const unsubscribe of unsubscribes) unsubscribe();
        for (const stream of streams) stream.end();
        streams.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
