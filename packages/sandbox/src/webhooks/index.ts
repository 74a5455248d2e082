/**
 * Signed webhooks (Standard Webhooks): the status hook that queues a delivery in the status
 * change's own transaction, the dispatcher that sends it, and the operations the control API and
 * the console use.
 */
import type { EngineContext } from '../context';
import { deliveryPage, type DeliveryPage } from './paging';
import { createDispatcher, resolveWebhookOptions, type ResolvedWebhookOptions, type WebhookOptions } from './dispatcher';
import {
  applicationExists,
  getDelivery,
  listDeliveries,
  queueDeliveryFor,
  resumePausedDeliveries,
  rotateWebhookSecret,
  setWebhookUrl,
  toWebhookDelivery,
  updateDelivery,
  webhookEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './store';

export type { WebhookOptions } from './dispatcher';
export type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, DeliveryStatus } from './store';
export { WEBHOOK_MIGRATIONS } from './schema';
export { signWebhook } from './signature';
export { DEFAULT_RETRY_DELAYS_SECONDS } from './dispatcher';
export { DELIVERY_PAGE_DEFAULT_LIMIT, DELIVERY_PAGE_MAX_LIMIT, decodeDeliveryCursor } from './paging';
export type { DeliveryPage, WebhookDeliverySummary } from './paging';

/**
 * A refusal of a webhook operation: the control API maps it to 404 / 409 / 422; in-process
 * callers see a RangeError with a readable message, like the engine's other refusals.
 */
export class WebhookOperationError extends RangeError {
  constructor(
    readonly reason: 'no-application' | 'no-delivery' | 'no-url' | 'bad-url',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookOperationError';
  }
}

export interface Webhooks {
  options: ResolvedWebhookOptions;
  /** Starts sending: deliveries left pending by an earlier run go out now. */
  start(): void;
  deliveries(appId?: string): WebhookDelivery[];
  /** Newest first, a page at a time (see paging.ts); RangeError for a bad limit or cursor. */
  deliveryPage(options: { appId?: string; limit?: number; cursor?: string }): DeliveryPage;
  delivery(deliveryId: string): WebhookDelivery | null;
  /** Sends a delivery again from the start of the retry schedule, with the same `webhook-id`. */
  redeliver(deliveryId: string): WebhookDelivery;
  /** Null removes the URL. Setting a URL re-enables an endpoint a 410 disabled and sends its paused deliveries. */
  setWebhookUrl(appId: string, url: string | null): WebhookEndpoint;
  webhookUrl(appId: string): string | null;
  endpoint(appId: string): WebhookEndpoint;
  rotateSecret(appId: string): WebhookEndpoint;
}

/** http(s) URLs only; anything else is refused with a message naming the problem. */
export function checkWebhookUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry a user name or password';
  if (url.length > 2000) return 'must be at most 2000 characters';
  return null;
}

export function installWebhooks(ctx: EngineContext, options: WebhookOptions = {}): Webhooks {
  const resolved = resolveWebhookOptions(options);
  const dispatcher = createDispatcher(ctx, resolved);
  const unhook = ctx.registerStatusHook(function queueWebhook(db, change) {
    const row = queueDeliveryFor(db, change, ctx.variants);
    if (row) ctx.queueEvent({ type: 'extension', topic: 'webhook.delivery', data: toWebhookDelivery(db, row) });
  });
  // Events reach listeners only after commit: the delivery row is there to send.
  const unlisten = ctx.onEvent((event) => {
    if (event.type === 'extension' && event.topic === 'webhook.delivery') dispatcher.kick();
    if (event.type === 'engine' && event.detail === 'reset') dispatcher.kick();
  });
  const unclock = ctx.clock.onAdvance(() => dispatcher.kick());
  ctx.onStop(async () => {
    unhook();
    unlisten();
    unclock();
    await dispatcher.stop();
  });

  function requireApp(appId: string): void {
    if (!applicationExists(ctx.db, appId)) throw new WebhookOperationError('no-application', `No application ${appId}.`);
  }

  function endpoint(appId: string): WebhookEndpoint {
    requireApp(appId);
    const found = ctx.write(() => webhookEndpoint(ctx.db, appId));
    if (!found) throw new WebhookOperationError('no-application', `No application ${appId}.`);
    return found;
  }

  return {
    options: resolved,
    start: () => dispatcher.kick(),
    deliveries: (appId) => listDeliveries(ctx.db, appId),
    deliveryPage: (options) => deliveryPage(ctx.db, options),
    delivery(deliveryId) {
      const row = getDelivery(ctx.db, deliveryId);
      return row ? toWebhookDelivery(ctx.db, row) : null;
    },
    redeliver(deliveryId) {
      const delivery = ctx.write(() => {
        const row = getDelivery(ctx.db, deliveryId);
        if (!row) throw new WebhookOperationError('no-delivery', `No webhook delivery ${deliveryId}.`);
        const target = webhookEndpoint(ctx.db, row.app_id);
        if (!target || target.url === null) throw new WebhookOperationError('no-url', `Application ${row.app_id} has no webhook URL: set one first.`);
        if (target.disabledAt !== null) {
          throw new WebhookOperationError('no-url', `The endpoint of application ${row.app_id} answered 410 Gone and is disabled: set its URL again first.`);
        }
        updateDelivery(ctx.db, { ...row, status: 'pending', round_attempts: 0, next_attempt_at: ctx.clock.nowMicros(), finished_at: null });
        const updated = toWebhookDelivery(ctx.db, getDelivery(ctx.db, deliveryId) as NonNullable<ReturnType<typeof getDelivery>>);
        ctx.queueEvent({ type: 'extension', topic: 'webhook.delivery', data: updated });
        return updated;
      });
      return delivery;
    },
    setWebhookUrl(appId, url) {
      if (url !== null) {
        const problem = checkWebhookUrl(url);
        if (problem) throw new WebhookOperationError('bad-url', `The webhook URL ${problem}.`);
      }
      requireApp(appId);
      const updated = ctx.write(() => {
        setWebhookUrl(ctx.db, appId, url);
        if (url !== null) {
          for (const id of resumePausedDeliveries(ctx.db, appId, ctx.clock.nowMicros())) {
            ctx.queueEvent({ type: 'extension', topic: 'webhook.delivery', data: toWebhookDelivery(ctx.db, getDelivery(ctx.db, id) as NonNullable<ReturnType<typeof getDelivery>>) });
          }
        }
        return webhookEndpoint(ctx.db, appId) as WebhookEndpoint;
      });
      ctx.queueEvent({ type: 'extension', topic: 'webhook.endpoint', data: { appId, url: updated.url } });
      return updated;
    },
    webhookUrl: (appId) => endpoint(appId).url,
    endpoint,
    rotateSecret(appId) {
      requireApp(appId);
      return ctx.write(() => {
        rotateWebhookSecret(ctx.db, appId);
        return webhookEndpoint(ctx.db, appId) as WebhookEndpoint;
      });
    },
  };
}
