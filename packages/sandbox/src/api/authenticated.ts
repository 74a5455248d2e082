/**
 * Who a public API request was authenticated as: set by the public API's pre-handler
 * (public-api.ts), read by the route handlers (transactions.ts, balance.ts). Its own module so
 * the routes and the plugin that registers them do not import each other.
 *
 * Kept on the request itself, in a property every request of the public API is built with
 * (`declareAuthSlot`): a WeakMap entry per request cost a hash-table insert and ephemeron work for
 * the garbage collector on every request (bench:engine, issue 28).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticated } from '../auth/auth';

const SLOT = 'paydeskAuthenticated';

interface WithSlot {
  [SLOT]: Authenticated | null;
}

/** Adds the slot to every request of `app`'s context (before its routes are registered). */
export function declareAuthSlot(app: FastifyInstance): void {
  app.decorateRequest(SLOT, null);
}

export function rememberAuth(request: FastifyRequest, auth: Authenticated): void {
  (request as unknown as WithSlot)[SLOT] = auth;
}

export function requireAuth(request: FastifyRequest): Authenticated {
  const auth = (request as unknown as Partial<WithSlot>)[SLOT];
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}
