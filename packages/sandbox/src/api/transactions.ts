/**
 * The public API's transaction endpoints, for payments and payouts alike:
 * initiate, retrieve (by transaction id or external id) and verify.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EngineContext } from '../context';
import { ApiError, successBody } from './errors';
import type { TransactionKind } from '../events';
import { initiateTransaction } from '../lifecycle/initiate';
import { askProvider } from '../lifecycle/provider';
import { applyProviderView } from '../ledger/settlement';
import { findTransaction, toFullTransaction, toInitiatedTransaction, type JoinedTransactionRow } from '../storage/store';
import { readTransactionRequest } from './body';
import { retrieveText } from '../storage/retrieve-cache';
import { requireAuth } from './authenticated';
import { shapeEnvelope, shapeTransaction } from '../variants/shape';

const NOT_FOUND = { payment: 'PAYMENT_NOT_FOUND', payout: 'PAYOUT_NOT_FOUND' } as const;
const TITLE = { payment: 'Payment', payout: 'Payout' } as const;
/** What fastify sets for an object it serialises itself. */
const JSON_MEDIA_TYPE = 'application/json; charset=utf-8';

function identifierType(query: unknown): 'transaction_id' | 'external_id' {
  const value = (query as Record<string, unknown> | undefined)?.identifier_type;
  if (value === undefined || value === 'transaction_id') return 'transaction_id';
  if (value === 'external_id') return 'external_id';
  throw new ApiError('MALFORMED_REQUEST', 'identifier_type must be transaction_id or external_id.', {
    identifier_type: ['must be transaction_id or external_id'],
  });
}

function notFound(kind: TransactionKind, id: string, environment: string): ApiError {
  return new ApiError(NOT_FOUND[kind], `No ${kind} ${id} in the ${environment} environment.`);
}

function lookup(ctx: EngineContext, request: FastifyRequest, kind: TransactionKind, by: 'transaction_id' | 'external_id'): JoinedTransactionRow {
  const auth = requireAuth(request);
  const { id } = request.params as { id: string };
  const row = findTransaction(ctx.db, { appId: auth.appId, environment: auth.environment, kind }, by, id);
  if (!row) throw notFound(kind, id, auth.environment);
  return row;
}

/** The success envelope of a transaction answer, shaped by the service variants in force (variants/shape.ts). */
function transactionAnswer(ctx: EngineContext, kind: TransactionKind, message: string, row: JoinedTransactionRow, data: { transaction_id: string; status: string }) {
  return shapeEnvelope(ctx.variants, successBody(message, shapeTransaction(ctx.variants, data, { kind, providerRef: row.provider_ref })));
}

/**
 * Retrieve's whole answer as JSON text: by transaction id through the retrieve cache (whose texts are
 * the default engine's, so not while a variant reshapes answers), by external id from the table.
 */
function retrieveAnswer(ctx: EngineContext, request: FastifyRequest, kind: TransactionKind): string {
  const by = identifierType(request.query);
  if (by === 'external_id' || ctx.variants.shapesTransactions()) {
    const row = lookup(ctx, request, kind, by);
    return JSON.stringify(transactionAnswer(ctx, kind, `${TITLE[kind]} retrieved.`, row, toFullTransaction(row)));
  }
  const auth = requireAuth(request);
  const { id } = request.params as { id: string };
  const scope = { appId: auth.appId, environment: auth.environment, kind };
  const text = retrieveText(ctx.db, scope, id, () => {
    const row = findTransaction(ctx.db, scope, 'transaction_id', id);
    return row === undefined ? undefined : JSON.stringify(successBody(`${TITLE[kind]} retrieved.`, toFullTransaction(row)));
  });
  if (text === undefined) throw notFound(kind, id, auth.environment);
  return text;
}

function verifyMessage(kind: TransactionKind, row: JoinedTransactionRow): string {
  switch (row.status) {
    case 'completed':
      return `${TITLE[kind]} completed.`;
    case 'failed':
      return `${TITLE[kind]} failed: ${row.failed_code ?? 'unknown reason'}.`;
    case 'cancelled':
      return `${TITLE[kind]} cancelled.`;
    case 'initiated':
    case 'processing':
      return `${TITLE[kind]} is still ${row.status}: the customer has not decided yet.`;
    default: {
      const unknown: never = row.status;
      throw new Error(`unknown status ${String(unknown)}`);
    }
  }
}

export function registerTransactionRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const routes: { kind: TransactionKind; create: string; base: string }[] = [
    { kind: 'payment', create: '/v1/payments', base: '/v1/payments' },
    { kind: 'payout', create: '/v1/payouts/initiate', base: '/v1/payouts' },
  ];
  for (const { kind, create, base } of routes) {
    const config = { keyType: kind };

    app.post(create, { config }, async function initiate(request, reply) {
      const auth = requireAuth(request);
      const body = readTransactionRequest(request.headers['content-type'], request.body as Buffer | undefined);
      const row = await initiateTransaction(ctx, auth, kind, body);
      if (ctx.variants.resetsThisCreate()) {
        // reset-after-create: committed, and the client never hears so (a TCP reset, no answer).
        reply.hijack();
        request.raw.socket.resetAndDestroy();
        return reply;
      }
      const message = `${TITLE[kind]} initiated: the customer will receive a prompt to approve it.`;
      return reply.code(ctx.variants.has('created-201') ? 201 : 200).send(transactionAnswer(ctx, kind, message, row, toInitiatedTransaction(row)));
    });

    app.get(`${base}/:id`, { config }, async function retrieve(request, reply) {
      // Already JSON: fastify sends a string with a JSON media type as it is.
      return reply.code(200).type(JSON_MEDIA_TYPE).send(retrieveAnswer(ctx, request, kind));
    });

    app.get(`${base}/:id/verify`, { config }, async function verify(request, reply) {
      const row = lookup(ctx, request, kind, 'transaction_id');
      // Ask the provider, then store what it says before answering.
      const view = askProvider(ctx.db, row.provider_ref, ctx.clock.nowMicros());
      // Answered only once the refreshed status is committed.
      await ctx.writeGrouped(() => applyProviderView(ctx, row, view));
      return reply.code(200).send(transactionAnswer(ctx, kind, verifyMessage(kind, row), row, toFullTransaction(row)));
    });
  }
}
