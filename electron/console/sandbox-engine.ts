/**
 * Adapts the in-process engine's ports to the console's `SandboxControl`: one seeded application
 * (the first active one with sandbox keys) is the built-in "Local sandbox" profile's.
 */
import type { Environment } from '../../shared/contract';
import type { SandboxKeys, WebhookDelivery } from '../../shared/api';
import { ControlError, parseSeed, startEngine, type EngineHandle, type SeededApplication, type WebhookDeliverySummary } from '@paydesk/sandbox';
import { isFinalStatus, sandboxOutcomeFor, type Scenario, type ScenarioInput } from '../../shared/contract';
import type { SandboxControl, SandboxCopy } from './deps';
import { HandlerFailure } from './handlers/context';

function toDelivery(delivery: WebhookDeliverySummary, currentUrl: string | null): WebhookDelivery {
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    transactionId: delivery.transactionId,
    url: delivery.attempts.at(-1)?.url ?? currentUrl ?? '',
    state: delivery.status === 'paused' ? 'stopped' : delivery.status,
    createdAt: delivery.createdAt,
    nextAttemptAt: delivery.nextAttemptAt,
    attempts: delivery.attempts.map(({ at, httpStatus, error, durationMs }) => ({ at, httpStatus, error, durationMs })),
    chaos: delivery.chaos,
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

/** The control API's refusals (a scenario that clashes with another: CONFLICT) in the console's words. */
function controlInputError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ControlError) throw new HandlerFailure(error.code === 'CONFLICT' ? 'CONFLICT' : 'INVALID_INPUT', error.message);
    throw error;
  }
}

/** A scenario as the seed (or `POST /_sandbox/scenarios`) takes it: what it steers, how, and the uses it has left. */
function scenarioInputOf(scenario: Scenario): ScenarioInput {
  return {
    ...(scenario.match.field === 'phone_number' ? { phone_number: scenario.match.value } : { external_id: scenario.match.value }),
    ...(scenario.kind ? { kind: scenario.kind } : {}),
    status: scenario.status,
    ...(scenario.failed_code ? { failed_code: scenario.failed_code } : {}),
    ...(scenario.processing_seconds !== null ? { processing_seconds: scenario.processing_seconds } : {}),
    notify: scenario.notify,
    webhooks: scenario.webhooks,
    ...(scenario.webhook_delay_seconds !== null ? { webhook_delay_seconds: scenario.webhook_delay_seconds } : {}),
    ...(scenario.uses_left !== null ? { uses: scenario.uses_left } : {}),
  };
}

export function sandboxControlFrom(handle: EngineHandle, options: { nativeBinding?: string } = {}): SandboxControl & { appId: string } {
  const appId = pickApplication(handle.api.applications()).id;
  const application = () => handle.api.applications().find((app) => app.id === appId) ?? pickApplication(handle.api.applications());

  const control: SandboxControl & { appId: string } = {
    appId,
    url: handle.api.url,
    keys(): SandboxKeys[] {
      return application()
        .keys.filter((key) => key.active)
        .map(({ environment, type, publicKey, secretKey }) => ({ environment, type, publicKey, secretKey }));
    },
    state() {
      return {
        maintenance: handle.control.settings().maintenance,
        settleMs: handle.control.settings().settleMs,
        clockOffsetSeconds: handle.clock.offsetSeconds(),
        webhookUrl: handle.webhooks.url(appId),
        rateLimitPerKeyPerMinute: handle.control.settings().rateLimitPerKeyPerMinute,
        chaos: handle.webhooks.chaos.read(appId),
      };
    },
    walletBalance(environment: Environment) {
      return { balance: handle.control.walletBalance(appId, environment), currency: application().currency };
    },
    ledger: (environment) => [...handle.control.ledger(appId, environment)].reverse(),
    topUp: (environment, amount, reason) => asInputError(() => ({ balance: handle.control.topUp(appId, environment, amount, reason) })),
    settleNow(transactionId) {
      const result = handle.control.settleNow(transactionId);
      if (!result) throw new HandlerFailure('NOT_FOUND', `The local sandbox has no transaction ${transactionId}.`);
      return result;
    },
    advanceClock(seconds) {
      asInputError(() => handle.clock.advance(seconds));
      return { clockOffsetSeconds: handle.clock.offsetSeconds() };
    },
    resetClock() {
      const { removedSeconds } = handle.clock.reset();
      return { clockOffsetSeconds: handle.clock.offsetSeconds(), removedSeconds };
    },
    setMaintenance: (on) => handle.control.setMaintenance(on),
    setRateLimit: (perMinute) => asInputError(() => handle.control.setRateLimit(perMinute)),
    chaos: () => handle.webhooks.chaos.read(appId),
    setChaos(chaos) {
      // The form's shares become the engine's rates; a behaviour at 0 is left out (off).
      const rate = (share: number) => (share > 0 ? { rate: share } : undefined);
      return controlInputError(() =>
        handle.webhooks.chaos.set(appId, {
          ...(chaos.drop > 0 ? { drop: rate(chaos.drop) } : {}),
          ...(chaos.late > 0 ? { late: { rate: chaos.late, seconds: chaos.lateSeconds } } : {}),
          ...(chaos.duplicate > 0 ? { duplicate: rate(chaos.duplicate) } : {}),
          ...(chaos.outOfOrder > 0 ? { out_of_order: rate(chaos.outOfOrder) } : {}),
        }),
      );
    },
    clearChaos: () => void handle.webhooks.chaos.clear(appId),
    variants: () => handle.control.variants.read(),
    setVariants(input) {
      // The engine's own schema decides (the control API's refusal, each field named).
      try {
        return handle.control.variants.set(input);
      } catch (error) {
        if (error instanceof ControlError && error.code === 'VALIDATION_ERROR') {
          throw new HandlerFailure('INVALID_INPUT', error.message, Array.isArray(error.errors) ? {} : { fields: error.errors });
        }
        throw error;
      }
    },
    onStatusChange(listener) {
      return handle.onEvent((event) => {
        if (event.type === 'status' && event.appId === appId) listener({ transactionId: event.transactionId, status: event.to });
      });
    },
    transaction: (transactionId) => handle.control.transaction(transactionId),
    feeFor: (kind, _environment, amount) => handle.api.feeFor(kind, amount),
    finishNow(transactionId, phoneNumber) {
      if (!handle.control.settleNow(transactionId)) return null;
      let tx = handle.control.transaction(transactionId);
      if (tx && !isFinalStatus(tx.status)) {
        const outcome = sandboxOutcomeFor(phoneNumber);
        handle.control.setCustomerOutcome(transactionId, {
          status: outcome.finalStatus,
          ...(outcome.failedCode ? { failed_code: outcome.failedCode } : {}),
          notify: true,
          now: true,
        });
        handle.control.settleNow(transactionId);
        tx = handle.control.transaction(transactionId);
      }
      return tx ? { status: tx.status, failedCode: tx.failed_code } : null;
    },
    requests: (query) => handle.inspector.list(query),
    wallSeconds: () => handle.clock.wallSeconds(),
    revealSecret: (which) => (which === 'adminToken' ? handle.control.adminToken : handle.webhooks.secret(appId)),
    deliveries(cursor, limit) {
      const currentUrl = handle.webhooks.url(appId);
      // Newest first, as the panel lists them; the engine's default page size unless the panel asks.
      const page = asInputError(() => handle.webhooks.deliveryPage({ appId, cursor, ...(limit === undefined ? {} : { limit }) }));
      return { deliveries: page.deliveries.map((delivery) => toDelivery(delivery, currentUrl)), nextCursor: page.nextCursor };
    },
    redeliver(id) {
      if (handle.webhooks.delivery(id)?.appId !== appId) throw new HandlerFailure('NOT_FOUND', `The local sandbox has no webhook delivery ${id}.`);
      asInputError(() => handle.webhooks.redeliver(id));
    },
    setWebhookUrl: (url) => asInputError(() => handle.webhooks.setUrl(appId, url)),
    scenarios: () => handle.control.scenarios.list(),
    addScenario: (spec) => controlInputError(() => handle.control.scenarios.add(spec)),
    removeScenario(scenarioId) {
      if (!handle.control.scenarios.remove(scenarioId)) throw new HandlerFailure('NOT_FOUND', `The local sandbox has no scenario ${scenarioId}.`);
    },
    recording: (query) => handle.inspector.recording({ ...query, appId }),
    async rehearsalCopy(copyOptions = {}): Promise<SandboxCopy> {
      const app = application();
      const seed = parseSeed(
        {
          applications: [
            {
              id: app.id,
              ref: app.ref,
              name: app.name,
              status: app.status,
              currency: app.currency,
              // No webhook URL: a rehearsal posts nothing to the developer's receiver.
              webhookUrl: null,
              keys: app.keys.map(({ environment, type, publicKey, secretKey, active }) => ({ environment, type, publicKey, secretKey, active })),
              wallets: { sandbox: copyOptions.walletBalance ?? handle.control.walletBalance(appId, 'sandbox'), live: 0 },
            },
          ],
          fees: handle.api.feeSchedule(),
          scenarios: handle.control.scenarios.list().map(scenarioInputOf),
        },
        'the rehearsal copy of the local sandbox',
      );
      // In memory, no rate limit (0), no inspector: the user's sandbox sees none of it.
      const copy = await startEngine({ host: '127.0.0.1', port: 0, db: ':memory:', settleMs: 0, rateLimit: { perKeyPerMinute: 0 }, inspectorSize: 0, seed, nativeBinding: options.nativeBinding });
      return Object.assign(sandboxControlFrom(copy, options), { stop: () => copy.stop() });
    },
  };
  return control;
}
