/**
 * `GET /_sandbox/events`: the engine's event stream as server-sent events (status changes, wallet
 * movements, engine switches, webhook deliveries and their attempts), for tools outside the
 * process; the console in-process uses `onEvent` instead. Written by the one SSE writer (net/sse).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSseStreams } from '../net/sse';
import type { EngineContext } from '../context';
import type { EngineEvent } from '../events';

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
  const streams = createSseStreams({ greeting: 'paydesk sandbox events' });
  let sequence = 0;
  return {
    open(request, reply) {
      const stream = streams.open(request, reply);
      const unsubscribe = ctx.onEvent((event) => {
        sequence += 1;
        stream.send(sseEventName(event), event, sequence);
      });
      stream.onClose(unsubscribe);
    },
    closeAll: () => streams.closeAll(),
  };
}
