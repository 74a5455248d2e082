/**
 * Adapts the in-process engine's handle to the console's `SandboxControl`: one seeded application
 * (the first active one with sandbox keys) is the built-in "Local sandbox" profile's.
 */
import type { Environment } from '../../shared/contract';
import type { SandboxKeys, WebhookDelivery } from '../../shared/api';
import { feeFor, setCustomerOutcome, type EngineHandle, type SeededApplication } from '../engine';
import { isFinalStatus, sandboxOutcomeFor } from '../../shared/contract';
import type { SandboxControl } from './deps';
import { HandlerFailure } from './handlers/context';

/** A webhook delivery as the engine reports it (issue 4). */
interface EngineDelivery {
  id: string;
  appId?: string;
  transactionId: string;
  eventType: string;
  /** `paused`: kept while the endpoint is disabled by a 410 Gone (the console shows it as stopped). */
  status: 'pending' | 'paused' | 'delivered' | 'failed';
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: { at: string; url: string; httpStatus: number | null; error: string | null; durationMs: number }[];
}

/** Issue-4 members the handle may offer; used when present, so the console runs with an engine without them. */
interface WebhookMembers {
  deliveries?: (appId?: string) => EngineDelivery[];
  deliveryPage?: (options: { appId?: string; limit?: number; cursor?: string }) => { deliveries: EngineDelivery[]; nextCursor: string | null };
  delivery?: (id: string) => EngineDelivery | null;
  redeliver?: (id: string) => unknown;
  setWebhookUrl?: (appId: string, url: string | null) => void;
  webhookUrl?: (appId: string) => string | null;
}

function toDelivery(delivery: EngineDelivery, currentUrl: string | null): WebhookDelivery {
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    transactionId: delivery.transactionId,
    url: delivery.attempts.at(-1)?.url ?? currentUrl ?? '',
    state: delivery.status === 'paused' ? 'stopped' : delivery.status,
    createdAt: delivery.createdAt,
    nextAttemptAt: delivery.nextAttemptAt,
    attempts: delivery.attempts.map(({ at, httpStatus, error, durationMs }) => ({ at, httpStatus, error, durationMs })),
  };
}

function pickApplication(applications: SeededApplication[]): SeededApplication {
  const app =
    applications.find((candidate) => candidate.status === 'active' && candidate.keys.some((key) => key.environment === 'sandbox' && key.active)) ??
    applications[0];
  if (!app) throw new Error('the local engine has no seeded application');
  return app;
}

/** Engine refusals are RangeErrors with a readable message: they are the user's input at fault. */
function asInputError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError) throw new HandlerFailure('INVALID_INPUT', error.message);
    throw error;
  }
}

export function sandboxControlFrom(handle: EngineHandle): SandboxControl & { appId: string } {
  const appId = pickApplication(handle.seedInfo()).id;
  const application = () => handle.seedInfo().find((app) => app.id === appId) ?? pickApplication(handle.seedInfo());
  const webhooks = handle as unknown as WebhookMembers;

  const control: SandboxControl & { appId: string } = {
    appId,
    url: handle.url,
    keys(): SandboxKeys[] {
      return application()
        .keys.filter((key) => key.active)
        .map(({ environment, type, publicKey, secretKey }) => ({ environment, type, publicKey, secretKey }));
    },
    state() {
      return {
        maintenance: handle.settings.maintenance,
        settleMs: handle.settings.settleMs,
        clockOffsetSeconds: handle.clock.offsetSeconds(),
        webhookUrl: webhooks.webhookUrl ? webhooks.webhookUrl.call(handle, appId) : application().webhookUrl,
      };
    },
    walletBalance(environment: Environment) {
      return { balance: handle.walletBalance(appId, environment), currency: application().currency };
    },
    ledger: (environment) => [...handle.ledger(appId, environment)].reverse(),
    topUp: (environment, amount, reason) => asInputError(() => ({ balance: handle.topUp(appId, environment, amount, reason) })),
    settleNow(transactionId) {
      const result = handle.settleNow(transactionId);
      if (!result) throw new HandlerFailure('NOT_FOUND', `The local sandbox has no transaction ${transactionId}.`);
      return result;
    },
    advanceClock(seconds) {
      asInputError(() => handle.clock.advance(seconds));
      return { clockOffsetSeconds: handle.clock.offsetSeconds() };
    },
    resetClock() {
      const { removedSeconds } = handle.resetClock();
      return { clockOffsetSeconds: handle.clock.offsetSeconds(), removedSeconds };
    },
    setMaintenance: (on) => handle.setMaintenance(on),
    onStatusChange(listener) {
      return handle.onEvent((event) => {
        if (event.type === 'status' && event.appId === appId) listener({ transactionId: event.transactionId, status: event.to });
      });
    },
    transaction: (transactionId) => handle.transaction(transactionId),
    feeFor: (kind, _environment, amount) => feeFor(handle.db, kind, amount),
    finishNow(transactionId, phoneNumber) {
      if (!handle.settleNow(transactionId)) return null;
      let tx = handle.transaction(transactionId);
      if (tx && !isFinalStatus(tx.status)) {
        const outcome = sandboxOutcomeFor(phoneNumber);
        setCustomerOutcome(handle.ctx, transactionId, {
          status: outcome.finalStatus,
          ...(outcome.failedCode ? { failed_code: outcome.failedCode } : {}),
          notify: true,
          now: true,
        });
        handle.settleNow(transactionId);
        tx = handle.transaction(transactionId);
      }
      return tx ? { status: tx.status, failedCode: tx.failed_code } : null;
    },
    requests: (query) => handle.inspector.list(query),
    wallSeconds: () => handle.clock.wallSeconds(),
    revealSecret: (which) => (which === 'adminToken' ? handle.adminToken : handle.webhookSecret(appId)),
  };
  if (webhooks.deliveryPage) {
    control.deliveries = (cursor) => {
      const currentUrl = webhooks.webhookUrl ? webhooks.webhookUrl.call(handle, appId) : null;
      // Newest first, as the panel lists them; one page of the engine's default size.
      const page = asInputError(() => webhooks.deliveryPage!.call(handle, { appId, cursor }));
      return { deliveries: page.deliveries.map((delivery) => toDelivery(delivery, currentUrl)), nextCursor: page.nextCursor };
    };
  } else if (webhooks.deliveries) {
    control.deliveries = () => {
      const currentUrl = webhooks.webhookUrl ? webhooks.webhookUrl.call(handle, appId) : null;
      return { deliveries: webhooks.deliveries!.call(handle, appId).map((delivery) => toDelivery(delivery, currentUrl)).reverse(), nextCursor: null };
    };
  }
  if (webhooks.redeliver) {
    control.redeliver = (id) => {
      const known = webhooks.delivery
        ? webhooks.delivery.call(handle, id)?.appId === appId
        : (webhooks.deliveries?.call(handle, appId).some((delivery) => delivery.id === id) ?? true);
      if (!known) throw new HandlerFailure('NOT_FOUND', `The local sandbox has no webhook delivery ${id}.`);
      asInputError(() => webhooks.redeliver!.call(handle, id));
    };
  }
  if (webhooks.setWebhookUrl) control.setWebhookUrl = (url) => asInputError(() => webhooks.setWebhookUrl!.call(handle, appId, url));
  return control;
}
