/**
 * Reading a request body as bytes, with the body limit, and what happens to a body over it.
 *
 * An oversized body is still read, and thrown away, up to OVERSIZED_BODY_DRAIN_BYTES in all before
 * the 413 goes out: a server that answers and closes while the client is still sending makes the
 * client's TCP stack reset the connection, and the client (Node's fetch among them) sees "fetch
 * failed" instead of the 413 envelope. Past that bound (or a Content-Length above it) the engine
 * stops reading, answers and closes at once: nobody is owed a free upload of any size.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors';

/** The most bytes of an oversized body the engine reads (and discards) before answering 413. */
export const OVERSIZED_BODY_DRAIN_BYTES = 1024 * 1024;

type Done = (error: Error | null, body?: Buffer) => void;

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
}

function lengthMismatch(): ApiError {
  return new ApiError('MALFORMED_REQUEST', 'The request body does not match its Content-Length.');
}

/** A fastify content-type parser keeping the body's exact bytes (the signature covers them). */
export function rawBodyParser(limitBytes: number, drainBytes = Math.max(OVERSIZED_BODY_DRAIN_BYTES, limitBytes)) {
  return function readRawBody(request: FastifyRequest, payload: IncomingMessage, done: Done): void {
    const header = request.headers['content-length'];
    const declared = header === undefined ? Number.NaN : Number(header);
    if (declared > drainBytes) {
      done(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let oversized = declared > limitBytes;

    function stopListening(): void {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
    }
    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > drainBytes) {
        stopListening();
        done(tooLarge());
        return;
      }
      if (received > limitBytes) oversized = true;
      if (oversized) chunks.length = 0;
      else chunks.push(chunk);
    }
    function onEnd(): void {
      stopListening();
      if (oversized) done(tooLarge());
      else if (!Number.isNaN(declared) && received !== declared) done(lengthMismatch());
      else done(null, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    }
    function onError(error: Error & { statusCode?: number }): void {
      stopListening();
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      done(error);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  };
}
