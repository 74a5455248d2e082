/**
 * One HTTP exchange over undici, and the answer to "may the server have received it?".
 *
 * The dispatch handler records the moment undici hands the request to a connected socket
 * (`onRequestStart`, called just before the first byte is written). A failure before that moment
 * means nothing left this process (`not-sent`); after it, the server may have the request
 * (`unknown`). The error code only words the message; it never upgrades a started request to
 * `not-sent`, because a POST reported as not sent may be sent again.
 */
import type { Dispatcher } from 'undici';

export interface ExchangeRequest {
  origin: string;
  /** Path and query exactly as on the request line. */
  target: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers: Record<string, string>;
  body: Buffer | undefined;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxResponseBytes: number;
}

export type ExchangeOutcome =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
  | { kind: 'too-large'; status: number; limit: number }
  | { kind: 'failed'; started: boolean; error: unknown };

class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
}

export function exchange(dispatcher: Dispatcher, request: ExchangeRequest): Promise<ExchangeOutcome> {
  return new Promise<ExchangeOutcome>((resolve) => {
    let started = false;
    let status = 0;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (outcome: ExchangeOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {
        started = true;
      },
      onResponseStart(_controller, statusCode, headers) {
        // 1xx informational answers come here too; only the final status counts.
        status = statusCode;
        responseHeaders = headers;
      },
      onResponseData(controller, chunk) {
        received += chunk.length;
        if (received > request.maxResponseBytes) {
          controller.abort(new ResponseTooLargeError());
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle({ kind: 'response', status, headers: responseHeaders, body: Buffer.concat(chunks) });
      },
      onResponseError(_controller, error) {
        if (error instanceof ResponseTooLargeError) {
          settle({ kind: 'too-large', status, limit: request.maxResponseBytes });
          return;
        }
        settle({ kind: 'failed', started, error });
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: request.origin,
          path: request.target,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          headersTimeout: request.headersTimeoutMs,
          bodyTimeout: request.bodyTimeoutMs,
          // Never let undici replay a POST on another connection.
          idempotent: request.method === 'GET',
          blocking: true,
        },
        handler,
      );
    } catch (error) {
      // A dispatcher that throws synchronously has not started the request.
      settle({ kind: 'failed', started, error });
    }
  });
}

/** `ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`...: the error's code, else its name. */
export function errorCodeOf(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return 'UNKNOWN_ERROR';
}

/** Failures that happen before a request is written: worded as "could not connect". */
const CONNECT_STAGE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be resolved (DNS not answering)',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  ENETDOWN: 'the network is down',
  EADDRNOTAVAIL: 'the address is not available',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_DESTROYED: 'the client was closed',
  UND_ERR_CLOSED: 'the client was closed',
  UND_ERR_INVALID_ARG: 'the request could not be built',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server presented a self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'the server presented an untrusted TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server TLS certificate could not be verified',
  CERT_HAS_EXPIRED: 'the server TLS certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the server TLS certificate is for another host name',
};

/** Failures after the request was written: worded as "no complete answer". */
const AFTER_SEND_REASONS: Record<string, string> = {
  UND_ERR_HEADERS_TIMEOUT: 'no response arrived in time',
  UND_ERR_BODY_TIMEOUT: 'the response stopped arriving part way',
  UND_ERR_SOCKET: 'the connection was closed',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the response was shorter or longer than announced',
  UND_ERR_ABORTED: 'the request was aborted',
};

export interface TransportFailure {
  outcome: 'not-sent' | 'unknown';
  reason: string;
  cause: string;
}

/**
 * Decides from the handler's record whether the request may have reached the server. A request
 * undici never started cannot have been received; a started one may have been, whatever the code.
 */
export function classifyFailure(started: boolean, error: unknown): TransportFailure {
  const cause = errorCodeOf(error);
  const reason =
    AFTER_SEND_REASONS[cause] ??
    CONNECT_STAGE_REASONS[cause] ??
    (cause.startsWith('HPE_') ? 'the response was not valid HTTP' : describeError(error));
  // A header or body timeout can only follow a written request, whatever a foreign dispatcher reports.
  const afterSendOnly = cause === 'UND_ERR_HEADERS_TIMEOUT' || cause === 'UND_ERR_BODY_TIMEOUT' || cause.startsWith('HPE_');
  return { outcome: started || afterSendOnly ? 'unknown' : 'not-sent', reason, cause };
}

function describeError(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return 'an unexpected network error';
}
