/**
 * The one server-sent-events writer, for both event streams: the browser host's push events and
 * the sandbox engine's `GET /_sandbox/events`. A stream takes over the fastify reply (hijack),
 * greets the client at once, keeps idle connections open with a comment line, and is ended by
 * whichever comes first: the client leaving or the server closing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A comment line this often keeps idle streams open through proxies and reveals a dead peer. */
export const SSE_HEARTBEAT_MS = 15_000;

export interface SseStream {
  /** One event; `id` when the stream numbers its events. */
  send(event: string, data: unknown, id?: number): void;
  /** Called once, when the stream ends for any reason. */
  onClose(listener: () => void): void;
}

export interface SseStreams {
  open(request: FastifyRequest, reply: FastifyReply): SseStream;
  /** The same event to every open stream. */
  broadcast(event: string, data: unknown): void;
  /** Ends every open stream (a server cannot close while they are open). */
  closeAll(): void;
}

export interface SseOptions {
  /** The first comment line, so a client knows the stream is live before any event. */
  greeting: string;
  /** Headers besides the event-stream ones (the browser host's security headers). */
  headers?: Readonly<Record<string, string>>;
}

export function frame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function createSseStreams(options: SseOptions): SseStreams {
  const open = new Map<SseStream, () => void>();
  return {
    open(_request, reply) {
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        ...options.headers,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      response.write(`: ${options.greeting}\n\n`);
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
      heartbeat.unref();
      const closeListeners: (() => void)[] = [];
      const stream: SseStream = {
        send(event, data, id) {
          if (open.has(stream)) response.write(frame(event, data, id));
        },
        onClose(listener) {
          closeListeners.push(listener);
        },
      };
      const close = (): void => {
        if (!open.delete(stream)) return;
        clearInterval(heartbeat);
        for (const listener of closeListeners) listener();
        response.end();
      };
      open.set(stream, close);
      // The response's 'close' comes when the client leaves (the request's may come as soon as it is read).
      response.on('close', close);
      response.on('error', close);
      return stream;
    },
    broadcast(event, data) {
      for (const stream of open.keys()) stream.send(event, data);
    },
    closeAll() {
      for (const close of [...open.values()]) close();
    },
  };
}
