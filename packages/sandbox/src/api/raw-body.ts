/**
 * Reading a request body as bytes, with the body limit, and what happens to a body over it.
 *
 * An oversized body is still read, and thrown away as it arrives, before the 413 goes out: a
 * server that answers and closes while the client is still sending makes the client's TCP stack
 * reset the connection, and the client (Node's fetch among them) sees "fetch failed" instead of
 * the 413 envelope. Like a web server's lingering close, the drain is bounded by time, not bytes:
 * for OVERSIZED_BODY_DRAIN_MS after the body went over the limit (a client on loopback or a LAN
 * sends 16 MiB well within it, even on a busy machine), then the engine answers and closes whatever
 * is still coming. Nothing is kept while draining, so its cost is the bytes read, never memory.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';

/** How long the engine keeps reading (and discarding) an oversized body before answering 413 anyway. */
export const OVERSIZED_BODY_DRAIN_MS = 5_000;

type Done = (error: Error | null, body?: Buffer) => void;

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
}

function lengthMismatch(): ApiError {
  return new ApiError('MALFORMED_REQUEST', 'The request body does not match its Content-Length.');
}

/** A fastify content-type parser keeping the body's exact bytes (the signature covers them). */
export function rawBodyParser(limitBytes: number, drainMs = OVERSIZED_BODY_DRAIN_MS) {
  return function readRawBody(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
    const header = request.headers['content-length'];
    const declared = header === undefined ? Number.NaN : Number(header);
    const chunks: Buffer[] = [];
    let received = 0;
    let drainTimer: NodeJS.Timeout | null = null;
    let finished = false;

    function finish(error: Error | null, body?: Buffer): void {
      if (finished) return;
      finished = true;
      if (drainTimer) clearTimeout(drainTimer);
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      done(error, body);
    }
    /** From here on the body is only drained; the 413 goes out at its end or when time is up. */
    function startDraining(): void {
      if (drainTimer) return;
      chunks.length = 0;
      drainTimer = setTimeout(() => finish(tooLarge()), drainMs);
      drainTimer.unref();
    }
    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > limitBytes) startDraining();
      if (!drainTimer) chunks.push(chunk);
    }
    function onEnd(): void {
      if (drainTimer) finish(tooLarge());
      else if (!Number.isNaN(declared) && received !== declared) finish(lengthMismatch());
      else finish(null, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    }
    function onError(error: Error & { statusCode?: number }): void {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      finish(error);
    }
    if (declared > limitBytes) startDraining();
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  };
}
