/**
 * A proxy in front of the real engine for the bulk payout tests: each request is forwarded, or
 * held without an answer (after forwarding it, or without), or its connection reset, or answered
 * by the proxy itself (a 429 with Retry-After), or forwarded and its JSON answer rewritten (the
 * engine's real answer in another shape), as the test decides per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The engine's answer, as a rewrite receives it and returns it. */
export interface GateAnswer {
  status: number;
  body: unknown;
}

/**
 * An object answers with its status and body (a string as it is, anything else as JSON); with
 * `forward`, after the engine has taken the request. `rewrite` forwards, then answers with what it makes of the engine's JSON answer.
 */
export type GateAction =
  | 'forward'
  | 'forward-then-hang'
  | 'forward-then-reset'
  | 'hang'
  | 'reset'
  | { status: number; body: unknown; headers?: Record<string, string>; forward?: boolean }
  | { rewrite: (answer: GateAnswer) => GateAnswer };

export interface GateRequest {
  method: string;
  path: string;
  /** The body's external_id (POST), or null. */
  externalId: string | null;
  action: GateAction;
}

export interface GateProxy {
  url: string;
  seen: GateRequest[];
  /** May answer later: the request waits (not yet forwarded) until the test has done what it does at that moment. */
  decide: (request: { method: string; path: string; externalId: string | null }) => GateAction | Promise<GateAction>;
  /** Resolves when a request matching `match` has arrived (now or later). */
  waitFor(match: (request: GateRequest) => boolean): Promise<GateRequest>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export async function startGateProxy(target: string): Promise<GateProxy> {
  const waiters: { match: (request: GateRequest) => boolean; resolve: (request: GateRequest) => void }[] = [];
  const held: ServerResponse[] = [];

  async function forward(request: IncomingMessage, body: Buffer): Promise<Response> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, value);
    }
    return fetch(`${target}${request.url}`, { method: request.method, headers, body: request.method === 'GET' ? undefined : new Uint8Array(body) });
  }

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      let externalId: string | null = null;
      if (request.method === 'POST') {
        try {
          externalId = (JSON.parse(body.toString('utf8')) as { external_id?: string }).external_id ?? null;
        } catch {
          externalId = null;
        }
      }
      const path = (request.url ?? '').split('?')[0]!;
      const action = await proxy.decide({ method: request.method ?? '', path, externalId });
      const seen: GateRequest = { method: request.method ?? '', path, externalId, action };
      proxy.seen.push(seen);
      if (action === 'reset' || action === 'forward-then-reset') {
        if (action === 'forward-then-reset') await (await forward(request, body)).arrayBuffer();
        request.socket.destroy();
      } else if (action === 'hang' || action === 'forward-then-hang') {
        if (action === 'forward-then-hang') await (await forward(request, body)).arrayBuffer();
        held.push(response);
      } else if (action === 'forward') {
        const answer = await forward(request, body);
        const headers: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
        const retryAfter = answer.headers.get('retry-after');
        if (retryAfter) headers['retry-after'] = retryAfter;
        response.writeHead(answer.status, headers);
        response.end(Buffer.from(await answer.arrayBuffer()));
      } else if ('rewrite' in action) {
        const answer = await forward(request, body);
        const rewritten = action.rewrite({ status: answer.status, body: (await answer.json()) as unknown });
        response.writeHead(rewritten.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(rewritten.body));
      } else {
        if (action.forward) await (await forward(request, body)).arrayBuffer();
        response.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        // A string body is sent as it is (a proxy's HTML page); anything else as JSON.
        response.end(typeof action.body === 'string' ? action.body : JSON.stringify(action.body));
      }
      for (const waiter of [...waiters]) {
        if (waiter.match(seen)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(seen);
        }
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: GateProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: [],
    decide: () => 'forward',
    waitFor(match) {
      const found = proxy.seen.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}

export const SERVER_ERROR = (options: { forward: boolean }): GateAction => ({
  status: 500,
  body: { success: false, message: 'Unexpected error', code: 'INTERNAL_SERVER_ERROR', errors: [] },
  forward: options.forward,
});

export const RATE_LIMITED = (retryAfterSeconds: number): GateAction => ({
  status: 429,
  body: { success: false, message: 'Too many requests', code: 'RATE_LIMIT_EXCEEDED', errors: null },
  headers: { 'retry-after': String(retryAfterSeconds) },
});
