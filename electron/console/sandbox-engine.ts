/**
 * Adapts the in-process engine's handle to the console's `SandboxControl`: one seeded application
 * (the first active one with sandbox keys) is the built-in "Local sandbox" profile's.
 */
import type { Environment } from '../../shared/contract';
import type { SandboxKeys, WebhookDelivery } from '../../shared/api';
import type { EngineHandle, SeededApplication } from '../engine';
import { feeFor } from '../engine/fees';
import type { SandboxControl } from './deps';
import { HandlerFailure } from './handlers/context';

/** Issue-4 members the handle may offer; used when present. */
interface WebhookMembers {
  deliveries?: () => WebhookDelivery[] | Promise<WebhookDelivery[]>;
  redeliver?: (id: string) => void | Promise<void>;
  setWebhookUrl?: (appId: string, url: string | null) => void | Promise<void>;
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
        webhookUrl: application().webhookUrl,
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
    setMaintenance: (on) => handle.setMaintenance(on),
    onStatusChange(listener) {
      return handle.onEvent((event) => {
        if (event.type === 'status' && event.appId === appId) listener({ transactionId: event.transactionId, status: event.to });
      });
    },
    feeFor: (kind, _environment, amount) => feeFor(handle.db, kind, amount),
  };
  if (webhooks.deliveries) control.deliveries = () => webhooks.deliveries!.call(handle);
  if (webhooks.redeliver) control.redeliver = (id) => webhooks.redeliver!.call(handle, id);
  if (webhooks.setWebhookUrl) control.setWebhookUrl = (url) => webhooks.setWebhookUrl!.call(handle, appId, url);
  return control;
}
