/**
 * `GET /v1/balance` (local extension, Payout key): the wallet balance of the key's application in
 * the key's environment.
 */
import type { FastifyInstance } from 'fastify';
import type { Balance } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { successBody } from './errors';
import { walletBalance } from '../ledger/wallet';
import { requireAuth } from './authenticated';

export function registerBalanceRoute(app: FastifyInstance, ctx: EngineContext): void {
  app.get('/v1/balance', { config: { keyType: 'payout' } }, async function balance(request, reply) {
    const auth = requireAuth(request);
    const data: Balance = { environment: auth.environment, currency: auth.currency, balance: walletBalance(ctx.db, auth.appId, auth.environment) };
    return reply.code(200).send(successBody('Wallet balance retrieved.', data));
  });
}
