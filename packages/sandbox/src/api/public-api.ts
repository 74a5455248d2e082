/**
 * The public API as one encapsulated fastify plugin: maintenance switch, authentication and rate
 * limit run as hooks before every route in it; extensions' routes (control API, OpenAPI) live
 * outside it and are not affected.
 */
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { KeyType } from '../../../../shared/contract';
import { splitTarget } from '../signing';
import { authenticate } from '../auth/auth';
import type { EngineContext } from '../context';
import { ApiError } from './errors';
import { variantErrorAnswer } from '../variants/answers';
import type { RateLimiter } from '../auth/rate-limit';
import { declareAuthSlot, rememberAuth } from './authenticated';
import { registerBalanceRoute } from './balance';
import { registerTransactionRoutes } from './transactions';

export { requireAuth } from './authenticated';

export interface PublicApiOptions {
  ctx: EngineContext;
  rateLimiter: RateLimiter;
  headerWord: string;
}

export async function publicApi(app: FastifyInstance, { ctx, rateLimiter, headerWord }: PublicApiOptions): Promise<void> {
  declareAuthSlot(app);
  // Callback-style hooks: they run on every request, and skip the promise machinery of async ones.
  app.addHook('onRequest', function maintenanceSwitch(_request, _reply, done) {
    if (ctx.settings.maintenance) {
      done(new ApiError('MAINTENANCE_MODE', 'The service is temporarily offline for maintenance. Try again later.', [], { 'retry-after': '60' }));
      return;
    }
    done();
  });

  // Each route's authentication is bound to its key type when the route is registered: a route
  // without one fails at start-up, and no request pays for reading `routeOptions` (a getter that
  // builds a fresh object on every access).
  app.addHook('onRoute', function bindAuthentication(route) {
    const keyType = (route.config as { keyType?: KeyType } | undefined)?.keyType;
    if (keyType === undefined) throw new Error(`route ${route.method.toString()} ${route.url} declares no key type`);
    const authenticateRequest: preHandlerHookHandler = function authenticateRequest(request, _reply, done) {
      try {
        authenticateInto(request, keyType);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [authenticateRequest, ...own];
  });

  function authenticateInto(request: FastifyRequest, keyType: KeyType): void {
    const { path, query } = splitTarget(request.raw.url ?? request.url);
    const auth = authenticate(
      ctx.db,
      // Real time, not engine time: clients sign with their own clock (see clock.ts).
      ctx.clock.wallSeconds(),
      {
        headers: request.headers,
        method: request.method,
        path,
        query,
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        remoteAddress: request.socket.remoteAddress,
        requiredKeyType: keyType,
      },
      headerWord,
    );
    rateLimiter.hit(auth.publicKey, ctx.clock.nowSeconds());
    rememberAuth(request, auth);
  }

  // bare-429 and gateway-html answer some refusals otherwise; every other error goes on to the
  // server's envelope handler (server.ts).
  app.setErrorHandler(function serviceVariantErrors(error, _request, reply) {
    const answer = error instanceof ApiError ? variantErrorAnswer(ctx.variants, error) : null;
    if (answer === null) throw error;
    return reply.code(answer.status).type(answer.contentType).send(answer.body);
  });

  registerTransactionRoutes(app, ctx);
  registerBalanceRoute(app, ctx);
}
