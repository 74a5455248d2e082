/**
 * A body over the 64 KiB limit: the engine reads and discards the rest before it answers 413 and
 * closes, so a client still sending reads the 413 envelope instead of a reset. The drain is bounded
 * by time (OVERSIZED_BODY_DRAIN_MS after the body went over the limit), not by a byte count: a
 * 16 MiB body gets its 413; a client that stops sending gets it when the time is up.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERSIZED_BODY_DRAIN_MS } from '../../packages/sandbox/src/engine';
import { startTestEngine, type TestEngine } from './helpers';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t.stop();
});

const KIB = 1024;
const MIB = 1024 * KIB;

function writeChunk(socket: Socket, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => socket.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/** Yields one turn of the event loop, so the engine (same process) handles what has arrived. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface RawExchange {
  /** Body bytes written before the first byte of the answer arrived. */
  sentBeforeAnswer: number;
  answer: string;
  socketError: string | null;
}

/** Sends `size` body bytes in 16 KiB writes, yielding between writes; reads until the server closes. */
function postInPieces(path: string, size: number, headers: Record<string, string> = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(t.engine.api.port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let sentBeforeAnswer: number | null = null;
    let socketError: string | null = null;
    socket.on('data', (chunk) => {
      sentBeforeAnswer ??= sent;
      answer += chunk.toString('utf8');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (socketError = error.code ?? error.message));
    socket.on('close', () => resolve({ sentBeforeAnswer: sentBeforeAnswer ?? sent, answer, socketError }));
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${size}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    void (async () => {
      try {
        await writeChunk(socket, `${head.join('\r\n')}\r\n\r\n`);
        while (sent < size && !socket.destroyed) {
          const piece = Math.min(16 * KIB, size - sent);
          await writeChunk(socket, 'x'.repeat(piece));
          sent += piece;
          await nextTurn();
        }
      } catch {
        // The server closed while we were sending: recorded by the 'error'/'close' handlers.
      }
    })();
  });
}

function envelopeOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

describe('a body over the limit', () => {
  it('gives Node’s fetch the 413 envelope for a 200 KiB body, public and control API', async () => {
    const publicAnswer = await fetch(`${t.engine.api.url}/v1/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(200 * KIB) });
    expect(publicAnswer.status).toBe(413);
    expect(await publicAnswer.json()).toEqual({ success: false, message: 'The request body is larger than the limit.', code: 'PAYLOAD_TOO_LARGE', errors: [] });
    const controlAnswer = await fetch(`${t.engine.api.url}/_sandbox/settle-ms`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.engine.control.adminToken}` },
      body: 'x'.repeat(200 * KIB),
    });
    expect(controlAnswer.status).toBe(413);
    expect(await controlAnswer.json()).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('is read to its end before the 413 is sent, so a client still sending is never reset', async () => {
    const size = 200 * KIB;
    const exchange = await postInPieces('/v1/payments', size);
    expect(exchange.socketError).toBeNull();
    expect(exchange.sentBeforeAnswer).toBe(size);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(exchange.answer.toLowerCase()).toContain('connection: close');
    expect(envelopeOf(exchange.answer)).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
  });

  it.each([5 * MIB, 16 * MIB])('reads a %i-byte body to its end and answers 413, in pieces and through fetch', async (size) => {
    const exchange = await postInPieces('/v1/payments', size);
    expect(exchange.socketError).toBeNull();
    expect(exchange.sentBeforeAnswer).toBe(size);
    expect(envelopeOf(exchange.answer)).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    const response = await fetch(`${t.engine.api.url}/v1/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(size) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('drains a 16 MiB body sent without a Content-Length (chunked) too', async () => {
    const response = await fetch(`${t.engine.api.url}/v1/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob(['x'.repeat(16 * MIB)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a client that stops sending once the drain time is up, and closes: nobody is owed an endless upload', async () => {
    expect(OVERSIZED_BODY_DRAIN_MS).toBe(5_000);
    // Declares 64 MiB and never sends most of it: the answer and the close must come from the engine.
    const socket = connect(t.engine.api.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${64 * MIB}\r\n\r\n`);
    socket.write('x'.repeat(16 * KIB));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // The engine still serves the next client.
    expect((await fetch(`${t.engine.api.url}/openapi.json`)).status).toBe(200);
  });

  it('still reads bodies under the limit whole, and refuses a body shorter than its Content-Length', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(60 * KIB) });
    const response = await fetch(`${t.engine.api.url}/v1/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // Read whole, then refused by authentication (no headers): not a 413.
    expect(response.status).toBe(401);
    const short = await new Promise<string>((resolve) => {
      const socket = connect(t.engine.api.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', () => resolve(text));
      socket.end('POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}');
    });
    expect(short).toMatch(/^HTTP\/1\.1 400 /);
  });
});
