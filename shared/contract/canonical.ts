/**
 * The signing payload rule (spec 5.3), written once: `{publicKey}.{timestamp}.{METHOD}.{path}.{payload}`.
 * Pure text rules, no crypto: the HMAC is computed in packages/sandbox/src/signing.ts (Node), and the client,
 * the engine's authentication, the request inspector and the sign helper all build the string here.
 */

/** Which part of a request is signed as the payload. */
export type PayloadSource = 'query' | 'body';

/**
 * GET signs the raw query string, POST and PATCH the raw body (spec 5.3). The spec names no other
 * method; HEAD and DELETE carry no body in HTTP's usual semantics and identify what they act on by
 * path and query, so they sign the query like GET; any other method (PUT…) signs its body like POST.
 */
export function payloadSourceFor(method: string): PayloadSource {
  const upper = method.toUpperCase();
  return upper === 'GET' || upper === 'HEAD' || upper === 'DELETE' ? 'query' : 'body';
}

/** The payload for a request: its raw query (without `?`) or its raw body; empty when there is none. */
export function payloadFor<B extends string | Uint8Array>(method: string, query: string, body: B | undefined): string | B {
  return payloadSourceFor(method) === 'query' ? query : (body ?? '');
}

export interface CanonicalHead {
  publicKey: string;
  timestamp: string;
  method: string;
  /** Path only, exactly as sent: no host, no query. */
  path: string;
}

/**
 * Everything before the payload, with its trailing dot: `{publicKey}.{timestamp}.{METHOD}.{path}.`.
 * `methodAsSent` keeps the method's case (the inspector tries it: a client that did not upper-case).
 */
export function canonicalHead(parts: CanonicalHead, options: { methodAsSent?: boolean } = {}): string {
  const method = options.methodAsSent ? parts.method : parts.method.toUpperCase();
  return `${parts.publicKey}.${parts.timestamp}.${method}.${parts.path}.`;
}
