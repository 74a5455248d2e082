/**
 * The browser host: the same handler table as Electron IPC, served over HTTP on loopback by
 * fastify, with the built renderer beside it (@fastify/static). Wire details in
 * shared/api/transport.ts; the access rules in ./access.ts.
 */
import { randomBytes } from 'node:crypto';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BROWSER_EVENTS_PATH, BROWSER_INVOKE_PREFIX, CHANNEL_INPUTS, PUSH_BUNDLE_EVENT, type Channel, type Result } from '../../shared/api';
import { internalFailure, type ChannelHandlers, type PushSource } from '../console/transport';
import { bundlePushes, type BundledPush } from '../console/push-bundles';
import { hostLiteral, isLoopbackHost, ownHostNames } from '@paydesk/sandbox';
import { contentTypeOf, SECURITY_HEADERS } from '../net/renderer-files';
import { createSseStreams } from '@paydesk/sandbox';
import { installAccessChecks, OneTimeCodes, refuse } from './access';
import { processLog } from '@paydesk/sandbox';

/** Inputs are small (the largest is a transaction request); anything bigger is refused unread. */
export const MAX_BODY_BYTES = 256 * 1024;

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
  /** The clock of one-time codes' expiry (tests); `Date.now` otherwise. */
  now?: () => number;
  /**
   * How long pushes are gathered into one `pushes` event (PUSH_BUNDLE_MS). 0: each push its own
   * event named after it, as before bundles, for a bench comparing with a renderer of then.
   */
  pushBundleMs?: number;
}

export interface BrowserHost {
  /** The URL for a person to open, with the token in the fragment (never sent to the server by the browser). */
  url: string;
  /**
   * A URL holding a fresh one-time code instead of the token, for a program that opens the
   * browser (its arguments are readable by every local user): the code is exchanged once for an
   * HttpOnly session cookie.
   */
  openUrl(): string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

function isChannel(name: string): name is Channel {
  return Object.hasOwn(CHANNEL_INPUTS, name);
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}

function invokeRoutes(app: FastifyInstance, handlers: ChannelHandlers): void {
  // Bodies are read as text whatever their type and parsed here, so a bad one gets our own answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.all(`${BROWSER_INVOKE_PREFIX}*`, async function invokeChannel(request, reply) {
    let name: string;
    try {
      name = decodeURIComponent(pathOf(request).slice(BROWSER_INVOKE_PREFIX.length));
    } catch {
      return refuse(reply, 404, 'UNKNOWN_CHANNEL', 'The channel name is not valid percent-encoding.');
    }
    if (!isChannel(name)) return refuse(reply, 404, 'UNKNOWN_CHANNEL', `There is no channel named ${JSON.stringify(name.slice(0, 100))}.`);
    if (request.method !== 'POST') return refuse(reply.header('Allow', 'POST'), 405, 'METHOD_NOT_ALLOWED', 'Channels are called with POST.');
    const text = typeof request.body === 'string' ? request.body : '';
    let input: unknown;
    if (text.trim() !== '') {
      try {
        input = JSON.parse(text);
      } catch {
        return refuse(reply, 400, 'MALFORMED_REQUEST', 'The body is not valid JSON.');
      }
    }
    let result: Result<unknown>;
    try {
      result = await handlers[name](input);
    } catch (error) {
      result = internalFailure(name, error);
    }
    return reply.header('Cache-Control', 'no-store').send(result);
  });
}

async function staticFiles(app: FastifyInstance, staticDir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: staticDir,
    index: ['index.html'],
    // Folders are never listed and never redirected to: a path names a file or is a 404.
    redirect: false,
    list: false,
    dotfiles: 'deny',
    cacheControl: false,
    setHeaders(reply, file) {
      const type = contentTypeOf(file);
      // Hashed asset names change with every build; the page itself must always be fresh.
      reply.header('Content-Type', type).header('Cache-Control', type.startsWith('text/html') ? 'no-store' : 'no-cache');
    },
  });
}

function answerErrors(app: FastifyInstance): void {
  app.setErrorHandler(function browserHostErrors(error: FastifyError, _request, reply) {
    if (error.statusCode === 413) {
      // Close the connection: the rest of an oversized body is not worth reading.
      return refuse(reply.header('Connection', 'close'), 413, 'PAYLOAD_TOO_LARGE', `The body is over ${MAX_BODY_BYTES} bytes.`);
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return refuse(reply, error.statusCode, 'MALFORMED_REQUEST', 'The request could not be read.');
    }
    processLog.error('browser host: request failed', { error });
    return refuse(reply, 500, 'INTERNAL', 'The request failed unexpectedly.');
  });
  app.setNotFoundHandler(function notFound(request: FastifyRequest, reply: FastifyReply) {
    if (pathOf(request).startsWith('/api/')) return refuse(reply, 404, 'NOT_FOUND', 'No such API path.');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse(reply.header('Allow', 'GET, HEAD'), 405, 'METHOD_NOT_ALLOWED', 'Files are read with GET.');
    }
    return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
  });
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new Error(`The browser host listens on loopback only, not on ${host}.`);
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!TOKEN_PATTERN.test(token)) throw new Error('The browser host token must be 16 to 200 characters of A-Z a-z 0-9 _ -.');

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_BODY_BYTES,
    // Never let a slow client hold a socket forever; event streams are hijacked, so exempt.
    requestTimeout: 30_000,
    forceCloseConnections: true,
  });
  app.server.headersTimeout = 10_000;
  // Known only once listening; the access checks read them on every request.
  const server = { hostNames: new Set<string>() as ReadonlySet<string>, origins: new Set<string>() as ReadonlySet<string>, port: 0 };
  const codes = new OneTimeCodes(options.now ?? Date.now);
  installAccessChecks(app, { token, codes, server: () => server, staticDir: options.staticDir });

  // Every answer carries the CSP and the hardening headers (event streams set them themselves).
  app.addHook('onSend', async function securityHeaders(_request, reply) {
    reply.headers(SECURITY_HEADERS);
  });

  const streams = createSseStreams({ greeting: 'connected', headers: SECURITY_HEADERS });
  // One `pushes` event per bundle: the page parses and dispatches one message, not one per push (../console/push-bundles.ts).
  const eachAlone = options.pushBundleMs === 0;
  const deliver = (bundle: BundledPush[]) => {
    if (!eachAlone) return streams.broadcast(PUSH_BUNDLE_EVENT, bundle);
    for (const [event, payload] of bundle) streams.broadcast(event, payload);
  };
  const stopPushes = options.events ? bundlePushes(options.events, deliver, options.pushBundleMs) : () => undefined;
  app.get(BROWSER_EVENTS_PATH, function openEventStream(request, reply) {
    streams.open(request, reply);
  });
  app.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH'],
    url: BROWSER_EVENTS_PATH,
    handler: (_request, reply) => refuse(reply.header('Allow', 'GET'), 405, 'METHOD_NOT_ALLOWED', 'The event stream is read with GET.'),
  });
  invokeRoutes(app, options.handlers);
  answerErrors(app);
  await staticFiles(app, options.staticDir);

  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  server.port = port;
  server.hostNames = ownHostNames(host, port);
  server.origins = new Set([...server.hostNames].map((name) => `http://${name}`));
  const origin = `http://${hostLiteral(host)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/#token=${token}`,
    openUrl: () => `${origin}${codes.openPath()}`,
    origin,
    port,
    token,
    close() {
      closing ??= (async () => {
        stopPushes();
        streams.closeAll();
        await app.close();
      })();
      return closing;
    },
  };
}
