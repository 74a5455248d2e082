/**
 * Who a public API request was authenticated as: set by the public API's pre-handler
 * (public-api.ts), read by the route handlers (transactions.ts, balance.ts). Its own module so
 * the routes and the plugin that registers them do not import each other.
 */
import type { FastifyRequest } from 'fastify';
import type { Authenticated } from '../auth/auth';

const authenticated = new WeakMap<FastifyRequest, Authenticated>();

export function rememberAuth(request: FastifyRequest, auth: Authenticated): void {
  authenticated.set(request, auth);
}

export function requireAuth(request: FastifyRequest): Authenticated {
  const auth = authenticated.get(request);
  if (!auth) throw new Error('route reached without authentication');
  return auth;
}
