/**
 * The sandbox tools the engine always runs next to the public API: signed webhooks, the control
 * API under `/_sandbox` (loopback and admin token only) and `GET /openapi.json`.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { EngineContext } from '../context';
import { ApiError, errorBody } from '../api/errors';
import { registerOpenApiRoute } from '../api/openapi';
import type { RequestInspector } from '../inspector';
import { registerInspectorRoutes } from '../inspector/routes';
import { installWebhooks, type WebhookOptions, type Webhooks } from '../webhooks';
import { createEventStreams, type EventStreams } from './event-stream';
import { ADMIN_TOKEN_PATTERN, checkControlAccess, ControlError, newAdminToken, type ControlFrom } from './guard';
import { chaosOperations, registerChaosRoutes, type ChaosOperations } from './chaos';
import { registerRecordingRoutes } from './recordings';
import { registerControlRoutes } from './routes';
import { registerScenarioRoutes, scenarioOperations, type ScenarioOperations } from './scenarios';
import { registerVariantRoutes, type VariantOperations } from './variants';
import type { ControlTarget } from './target';
import { processLog } from '../log';

export { checkControlAccess, isLoopbackAddress, ControlError, ADMIN_TOKEN_PATTERN } from './guard';
export type { ControlErrorCode, ControlFrom } from './guard';
export type { ControlTarget } from './target';

export interface SandboxToolsOptions {
  /** Token for the control API; omitted: the seed's `adminToken`, else a random one per start. */
  adminToken?: string;
  /** Who may call the control API with the token; default loopback callers only. */
  controlFrom?: ControlFrom;
  webhooks?: WebhookOptions;
  headerWord: string;
  inspector: RequestInspector;
  variants: VariantOperations;
}

export interface SandboxTools {
  adminToken: string;
  webhooks: Webhooks;
  scenarios: ScenarioOperations;
  chaos: ChaosOperations;
  /** Adds the control API and the OpenAPI document to the server (before it listens). */
  register(app: FastifyInstance): Promise<void>;
  /** Starts the webhook dispatcher (after the server listens). */
  start(): void;
}

interface ControlApiOptions {
  ctx: EngineContext;
  webhooks: Webhooks;
  adminToken: string;
  controlFrom: ControlFrom;
  target: ControlTarget;
  streams: EventStreams;
  inspector: RequestInspector;
  scenarios: ScenarioOperations;
  chaos: ChaosOperations;
  variants: VariantOperations;
  headerWord: string;
}

async function controlApi(app: FastifyInstance, options: ControlApiOptions): Promise<void> {
  app.addHook('onRequest', async function guardControlApi(request) {
    checkControlAccess(request.socket.remoteAddress, request.headers.authorization, options.adminToken, options.controlFrom);
  });

  app.setErrorHandler(function controlErrors(error, request, reply) {
    if (error instanceof ControlError) {
      return reply.code(error.status).send({ success: false, message: error.message, code: error.code, errors: error.errors });
    }
    if (error instanceof ApiError) return reply.code(error.status).headers(error.headers).send(errorBody(error));
    const status = (error as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : 'MALFORMED_REQUEST';
      return reply.code(status).send({ success: false, message: 'The request is malformed or too large.', code, errors: [] });
    }
    processLog.error('engine: unexpected control API error', { error });
    return reply.code(500).send({ success: false, message: 'An unexpected error occurred.', code: 'INTERNAL_ERROR', errors: [] });
  });

  app.setNotFoundHandler(function controlRouteNotFound(request, reply) {
    const path = (request.url.split('?')[0] ?? '').slice(0, 200);
    return reply.code(404).send({ success: false, message: `No control endpoint ${request.method} ${path}.`, code: 'NOT_FOUND', errors: [] });
  });

  registerControlRoutes(app, options);
  registerScenarioRoutes(app, options.ctx, options.scenarios);
  registerChaosRoutes(app, options.chaos);
  registerVariantRoutes(app, options.variants);
  registerRecordingRoutes(app, { ctx: options.ctx, inspector: options.inspector, webhooks: options.webhooks, headerWord: options.headerWord });
  registerInspectorRoutes(app, options.inspector);
}

export function createSandboxTools(ctx: EngineContext, options: SandboxToolsOptions, target: ControlTarget): SandboxTools {
  const adminToken = options.adminToken ?? ctx.seed.adminToken ?? newAdminToken();
  if (!ADMIN_TOKEN_PATTERN.test(adminToken)) {
    throw new RangeError('adminToken must be 16 to 200 characters of letters, digits and . _ ~ + / = -');
  }
  const webhooks = installWebhooks(ctx, options.webhooks);
  const streams = createEventStreams(ctx);
  const scenarios = scenarioOperations(ctx);
  const chaos = chaosOperations(ctx);
  ctx.onStop(() => streams.closeAll());
  return {
    adminToken,
    webhooks,
    scenarios,
    chaos,
    async register(app) {
      await app.register(controlApi, { prefix: '/_sandbox', ctx, webhooks, adminToken, controlFrom: options.controlFrom ?? 'loopback', target, streams, inspector: options.inspector, scenarios, chaos, variants: options.variants, headerWord: options.headerWord });
      registerOpenApiRoute(app, options.headerWord);
    },
    start: () => webhooks.start(),
  };
}
