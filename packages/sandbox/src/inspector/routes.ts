/**
 * `GET /_sandbox/requests` and `GET /_sandbox/requests/{id}`: the request inspector over the
 * control API (loopback and admin token, like the rest of it). New requests also arrive live on
 * `GET /_sandbox/events` as `event: request`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ControlError } from '../control/guard';
import { readControlQuery } from '../control/body';
import { successBody } from '../api/errors';
import type { RequestInspector, StatusFilter } from './index';

export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 50;

/** Query parameters arrive as text; each is checked and converted here. */
export const requestsQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,6}$/, `must be a whole number from 1 to ${MAX_PAGE}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_PAGE, `must be a whole number from 1 to ${MAX_PAGE}`)
    .optional(),
  cursor: z.string().regex(/^[1-9]\d{0,15}$/, 'must be the nextCursor of an earlier page').transform(Number).optional(),
  status: z
    .string()
    .regex(/^(?:[1-5]\d\d|[1-5]xx)$/, 'must be an HTTP status (401) or a class (4xx)')
    .transform((text): StatusFilter => (text.endsWith('xx') ? (text as StatusFilter) : Number(text)))
    .optional(),
  key: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
});

export function registerInspectorRoutes(app: FastifyInstance, inspector: RequestInspector): void {
  app.get('/requests', async function listRequests(request) {
    const query = readControlQuery(request, requestsQuerySchema);
    const page = inspector.list({ limit: query.limit ?? DEFAULT_PAGE, cursor: query.cursor, status: query.status, key: query.key });
    const message = inspector.capacity === 0 ? 'The request inspector is off (inspector size 0).' : `${page.requests.length} recorded requests, newest first.`;
    return successBody(message, page);
  });
  app.get('/requests/:id', async function readRequest(request) {
    const id = (request.params as { id: string }).id;
    const found = inspector.get(id);
    if (!found) throw new ControlError('NOT_FOUND', `No recorded request ${id} (the inspector keeps the last ${inspector.capacity}).`);
    return successBody('Recorded request.', found);
  });
}
