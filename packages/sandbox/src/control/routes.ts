/**
 * The control API's routes (all under `/_sandbox`, after the loopback and token checks). Each is
 * a thin HTTP layer over an operation the console also calls in-process.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ENVIRONMENTS, formatTimestamp, type Environment } from '../../../../shared/contract';
import type { EngineContext } from '../context';
import { successBody } from '../api/errors';
import { MAX_RATE_LIMIT_PER_KEY_PER_MINUTE } from '../auth/rate-limit';
import { checkWebhookUrl, decodeDeliveryCursor, DELIVERY_PAGE_MAX_LIMIT, WebhookOperationError, type Webhooks } from '../webhooks';
import {
  createApplication,
  createApplicationSchema,
  createKey,
  createKeySchema,
  getApplication,
  listApplications,
  rotateKeySecret,
  updateApplication,
  updateApplicationSchema,
  updateKey,
  updateKeySchema,
} from './applications';
import { resetEngineClock } from '../lifecycle/clock-reset';
import { readControlBody, readControlQuery } from './body';
import type { EventStreams } from './event-stream';
import { ControlError } from './guard';
import { outcomeSchema, setCustomerOutcome } from './outcomes';
import type { ControlTarget } from './target';

const TEN_YEARS_SECONDS = 10 * 365 * 86_400;
const walletMoveSchema = z.strictObject({
  amount: z.number({ error: 'must be a number' }).int('must be a whole number of minor units').positive('must be greater than 0').max(Number.MAX_SAFE_INTEGER),
  reason: z.string({ error: 'is required' }).trim().min(1, 'is required').max(200),
});
/** `GET /deliveries`: paging (see webhooks/paging.ts); query values arrive as text. */
const deliveriesQuerySchema = z.strictObject({
  app_id: z.string({ error: 'must be given once' }).min(1, 'must not be empty').max(64).optional(),
  limit: z
    .string({ error: 'must be given once' })
    .regex(/^\d{1,4}$/, `must be a whole number from 1 to ${DELIVERY_PAGE_MAX_LIMIT}`)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= DELIVERY_PAGE_MAX_LIMIT, `must be a whole number from 1 to ${DELIVERY_PAGE_MAX_LIMIT}`)
    .optional(),
  cursor: z
    .string({ error: 'must be given once' })
    .refine((cursor) => decodeDeliveryCursor(cursor) !== null, 'is not a nextCursor returned by an earlier page')
    .optional(),
});
const environmentParam = z.enum(ENVIRONMENTS, { error: 'must be sandbox or live' });

function params(request: { params: unknown }): Record<string, string> {
  return request.params as Record<string, string>;
}

function environmentOf(value: string | undefined): Environment {
  const result = environmentParam.safeParse(value);
  if (!result.success) throw new ControlError('VALIDATION_ERROR', 'The environment in the path must be sandbox or live.', { environment: ['must be sandbox or live'] });
  return result.data;
}

/** Webhook operations' refusals as control API errors. */
function webhookCall<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof WebhookOperationError)) throw error;
    switch (error.reason) {
      case 'no-application':
      case 'no-delivery':
        throw new ControlError('NOT_FOUND', error.message, [], { cause: error });
      case 'no-url':
        throw new ControlError('CONFLICT', error.message, [], { cause: error });
      case 'bad-url':
        throw new ControlError('VALIDATION_ERROR', error.message, { url: [error.message.replace(/^The webhook URL /, '').replace(/\.$/, '')] }, { cause: error });
      default: {
        const unknown: never = error.reason;
        throw new Error(`unknown webhook refusal ${String(unknown)}`, { cause: error });
      }
    }
  }
}

export function registerControlRoutes(
  app: FastifyInstance,
  deps: { ctx: EngineContext; webhooks: Webhooks; target: ControlTarget; streams: EventStreams },
): void {
  const { ctx, webhooks, target, streams } = deps;

  // Applications and keys.
  app.get('/applications', async function listApps() {
    return successBody('Applications listed.', listApplications(ctx));
  });
  app.post('/applications', async function createApp(request, reply) {
    const created = createApplication(ctx, readControlBody(request, createApplicationSchema));
    return reply.code(201).send(successBody(`Application ${created.id} created.`, created));
  });
  app.get('/applications/:appId', async function readApp(request) {
    return successBody('Application retrieved.', getApplication(ctx, params(request).appId as string));
  });
  app.patch('/applications/:appId', async function changeApp(request) {
    const appId = params(request).appId as string;
    return successBody(`Application ${appId} updated.`, updateApplication(ctx, appId, readControlBody(request, updateApplicationSchema)));
  });
  app.post('/applications/:appId/keys', async function addKey(request, reply) {
    const appId = params(request).appId as string;
    return reply.code(201).send(successBody(`Key created for ${appId}.`, createKey(ctx, appId, readControlBody(request, createKeySchema))));
  });
  app.patch('/keys/:publicKey', async function changeKey(request) {
    const publicKey = params(request).publicKey as string;
    return successBody(`Key ${publicKey} updated.`, updateKey(ctx, publicKey, readControlBody(request, updateKeySchema)));
  });
  app.post('/keys/:publicKey/rotate', async function rotateKey(request) {
    readControlBody(request, z.strictObject({}));
    const publicKey = params(request).publicKey as string;
    return successBody(`Secret of ${publicKey} rotated: the old one no longer signs.`, rotateKeySecret(ctx, publicKey));
  });

  // Wallets.
  app.get('/applications/:appId/wallets/:environment', async function readWallet(request) {
    const { appId = '' } = params(request);
    const environment = environmentOf(params(request).environment);
    getApplication(ctx, appId);
    return successBody('Wallet retrieved.', { appId, environment, balance: target.walletBalance(appId, environment), ledger: target.ledger(appId, environment) });
  });
  for (const direction of ['top-up', 'withdraw'] as const) {
    app.post(`/applications/:appId/wallets/:environment/${direction}`, async function moveMoney(request) {
      const { appId = '' } = params(request);
      const environment = environmentOf(params(request).environment);
      const body = readControlBody(request, walletMoveSchema);
      getApplication(ctx, appId);
      const balance = target.walletBalance(appId, environment);
      if (direction === 'withdraw' && body.amount > balance) {
        throw new ControlError('VALIDATION_ERROR', 'The withdrawal is more than the wallet balance.', { amount: [`must be at most the balance (${balance})`] });
      }
      try {
        const after = target.topUp(appId, environment, direction === 'withdraw' ? -body.amount : body.amount, body.reason);
        return successBody(direction === 'withdraw' ? 'Withdrawal recorded.' : 'Top-up recorded.', { appId, environment, balance: after });
      } catch (error) {
        if (error instanceof RangeError) throw new ControlError('VALIDATION_ERROR', error.message, { amount: [error.message] }, { cause: error });
        throw error;
      }
    });
  }

  // Transactions, time and outcomes.
  app.get('/transactions/:id', async function readTransaction(request) {
    const id = params(request).id as string;
    const transaction = target.transaction(id);
    if (!transaction) throw new ControlError('NOT_FOUND', `No transaction ${id}.`);
    // `kind`: the transaction object keeps the spec's shape (`type: payment` for a payout too); an admin reads which it is here.
    return successBody('Transaction retrieved.', { transaction, kind: target.kindOf(id), timeline: target.timeline(id) });
  });
  app.post('/transactions/:id/settle', async function settleTransaction(request) {
    readControlBody(request, z.strictObject({}));
    const id = params(request).id as string;
    const settled = target.settleNow(id);
    if (!settled) throw new ControlError('NOT_FOUND', `No transaction ${id}.`);
    return successBody(`Transaction ${id} settled: it is ${settled.status}.`, target.transaction(id));
  });
  app.post('/transactions/:id/outcome', async function steerOutcome(request) {
    const id = params(request).id as string;
    const outcome = readControlBody(request, outcomeSchema);
    setCustomerOutcome(ctx, id, outcome);
    if (outcome.now) target.settleNow(id);
    return successBody(`The customer of ${id} will answer ${outcome.status}.`, target.transaction(id));
  });
  app.get('/clock', async function readClock() {
    return successBody('Engine clock.', { now: formatTimestamp(ctx.clock.nowMicros()), offsetSeconds: ctx.clock.offsetSeconds() });
  });
  app.post('/clock/advance', async function advanceClock(request) {
    const body = readControlBody(request, z.strictObject({ seconds: z.number({ error: 'must be a number' }).positive('must be greater than 0').max(TEN_YEARS_SECONDS, 'must be at most ten years') }));
    ctx.clock.advance(body.seconds);
    return successBody(`Engine clock advanced by ${body.seconds} s.`, { now: formatTimestamp(ctx.clock.nowMicros()), offsetSeconds: ctx.clock.offsetSeconds() });
  });
  app.post('/clock/reset', async function resetClock(request) {
    readControlBody(request, z.strictObject({}));
    const { removedSeconds, rescheduled } = resetEngineClock(ctx);
    return successBody(
      removedSeconds === 0 ? 'Engine clock already at real time.' : `Engine clock back to real time (${removedSeconds} s removed).`,
      { now: formatTimestamp(ctx.clock.nowMicros()), offsetSeconds: ctx.clock.offsetSeconds(), removedSeconds, rescheduled },
    );
  });
  app.get('/settings', async function readSettings() {
    const { settleMs, expirySeconds, maintenance, bodyLimitBytes, rateLimitPerKeyPerMinute } = ctx.settings;
    return successBody('Engine settings.', { settleMs, expirySeconds, maintenance, bodyLimitBytes, rateLimitPerKeyPerMinute, webhooks: webhooks.options, variants: ctx.variants.read() });
  });
  app.put('/settle-ms', async function setSettleDelay(request) {
    const body = readControlBody(request, z.strictObject({ settleMs: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').max(86_400_000) }));
    target.setSettleMs(body.settleMs);
    return successBody(`Settle delay set to ${body.settleMs} ms for new transactions.`, { settleMs: ctx.settings.settleMs });
  });
  app.put('/rate-limit', async function setRateLimit(request) {
    const body = readControlBody(
      request,
      z.strictObject({
        perMinute: z
          .number({ error: 'must be a number' })
          .int('must be a whole number of requests per minute')
          .min(0, 'must be 0 (no limit) or more')
          .max(MAX_RATE_LIMIT_PER_KEY_PER_MINUTE, `must be at most ${MAX_RATE_LIMIT_PER_KEY_PER_MINUTE}`),
      }),
    );
    target.setRateLimit(body.perMinute);
    const message = body.perMinute === 0 ? 'Rate limit off: keys may send any number of requests.' : `Rate limit set to ${body.perMinute} requests per minute per key.`;
    return successBody(message, { rateLimitPerKeyPerMinute: ctx.settings.rateLimitPerKeyPerMinute });
  });
  app.put('/maintenance', async function setMaintenance(request) {
    const body = readControlBody(request, z.strictObject({ enabled: z.boolean({ error: 'must be true or false' }) }));
    target.setMaintenance(body.enabled);
    return successBody(body.enabled ? 'Maintenance mode on: the public API answers 503.' : 'Maintenance mode off.', { maintenance: ctx.settings.maintenance });
  });
  app.post('/reset', async function resetToSeed(request) {
    readControlBody(request, z.strictObject({}));
    target.reset();
    return successBody('The database is back to the seed.', listApplications(ctx));
  });

  // Webhooks.
  app.get('/applications/:appId/webhook', async function readWebhook(request) {
    return successBody('Webhook endpoint.', webhookCall(() => webhooks.endpoint(params(request).appId as string)));
  });
  app.put('/applications/:appId/webhook', async function setWebhook(request) {
    const body = readControlBody(request, z.strictObject({ url: z.union([z.string(), z.null()], { error: 'must be a URL or null' }) }));
    if (body.url !== null) {
      const problem = checkWebhookUrl(body.url);
      if (problem) throw new ControlError('VALIDATION_ERROR', 'The request failed validation.', { url: [problem] });
    }
    const endpoint = webhookCall(() => webhooks.setWebhookUrl(params(request).appId as string, body.url));
    return successBody(body.url === null ? 'Webhook URL removed.' : 'Webhook URL set.', endpoint);
  });
  app.post('/applications/:appId/webhook/rotate-secret', async function rotateWebhookSecret(request) {
    readControlBody(request, z.strictObject({}));
    return successBody('Webhook secret rotated.', webhookCall(() => webhooks.rotateSecret(params(request).appId as string)));
  });
  app.get('/deliveries', async function listDeliveries(request) {
    const query = readControlQuery(request, deliveriesQuerySchema);
    const page = webhooks.deliveryPage({ appId: query.app_id, limit: query.limit, cursor: query.cursor });
    return successBody(`Webhook deliveries, newest first: ${page.deliveries.length}${page.nextCursor === null ? '' : ', more with nextCursor'}.`, page);
  });
  app.get('/deliveries/:id', async function readDelivery(request) {
    const id = params(request).id as string;
    const delivery = webhooks.delivery(id);
    if (!delivery) throw new ControlError('NOT_FOUND', `No webhook delivery ${id}.`);
    return successBody('Webhook delivery.', delivery);
  });
  app.post('/deliveries/:id/redeliver', async function redeliver(request, reply) {
    readControlBody(request, z.strictObject({}));
    const delivery = webhookCall(() => webhooks.redeliver(params(request).id as string));
    return reply.code(202).send(successBody('Redelivery queued.', delivery));
  });

  // The live event stream.
  app.get('/events', async function eventStream(request, reply) {
    streams.open(request, reply);
  });
}
