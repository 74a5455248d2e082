/**
 * `GET /_sandbox/events`: the engine's event stream as server-sent events (status changes, wallet
 * movements, engine switches, webhook deliveries and their attempts), for tools outside the
 * process; the console in-process uses `onEvent` instead.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EngineContext } from '../context';
import type { EngineEvent } from '../events';

const HEARTBEAT_MS = 15_000;

/** The SSE event name: the event type, or the topic for extension events (`webhook.delivery`). */
export function sseEventName(event: EngineEvent): string {
  switch (event.type) {
    case 'status':
    case 'wallet':
    case 'engine':
      return event.type;
    case 'extension':
      return event.topic;
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export interface EventStreams {
  open(request: FastifyRequest, reply: FastifyReply): void;
  /** Ends every open stream (the server cannot close while they are open). */
  closeAll(): void;
}

export function createEventStreams(ctx: EngineContext): EventStreams {
  const open = new Set<() => void>();
  let sequence = 0;
  return {
    open(request, reply) {
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      response.write(': paydesk sandbox events\n\n');
      const unsubscribe = ctx.onEvent((event) => {
        sequence += 1;
        response.write(`id: ${sequence}\nevent: ${sseEventName(event)}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      const close = () => {
        if (!open.delete(close)) return;
        clearInterval(heartbeat);
        unsubscribe();
        response.end();
      };
      open.add(close);
      request.raw.on('close', close);
      response.on('error', close);
    },
    closeAll() {
      for (const close of [...open]) close();
    },
  };
}
