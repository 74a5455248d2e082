/**
 * A real node:http server for client tests: it records the exact bytes, target and headers of
 * every request it receives and answers each with the next scripted reply.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The request target exactly as on the request line (path and query). */
  target: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Reply = (request: RecordedRequest, response: ServerResponse, socket: Socket) => void;

export interface RecordingServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replies used in order, one per request; when none is left the server answers 500. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const replies: Reply[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.url ?? '';
      const index = target.indexOf('?');
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        target,
        path: index === -1 ? target : target.slice(0, index),
        query: index === -1 ? '' : target.slice(index + 1),
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const next = replies.shift() ?? json(500, { success: false, message: 'no scripted reply', code: 'INTERNAL_ERROR', errors: [] });
      next(recorded, response, request.socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    reply: (...more) => replies.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers a JSON value (serialised) with a status and extra headers. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return raw(status, JSON.stringify(value), { 'Content-Type': 'application/json', ...headers });
}

/** Answers exact text with a status and headers. */
export function raw(status: number, text: string, headers: Record<string, string> = {}): Reply {
  return (_request, response) => {
    response.writeHead(status, headers);
    response.end(text);
  };
}

/** Reads the whole request, then resets the TCP connection (RST) without answering. */
export const resetConnection: Reply = (_request, _response, socket) => {
  socket.resetAndDestroy();
};

/** Reads the whole request, then closes the connection (FIN) without answering. */
export const closeConnection: Reply = (_request, _response, socket) => {
  socket.destroy();
};

/** Reads the whole request and never answers. */
export const neverAnswer: Reply = () => {};

/** Sends the status line, headers and part of the body, then goes silent. */
export function stallBody(status: number): Reply {
  return (_request, response) => {
    response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
    response.write('{"success":true,');
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
