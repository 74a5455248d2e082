/**
 * The local sandbox panel: status, outcomes, wallet, deliveries, and the engine's controls.
 * These act on the in-process engine whatever profile is active (the engine is always local).
 */
import { SANDBOX_OUTCOMES } from '../../../shared/contract';
import type { SandboxControl } from '../deps';
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type SandboxChannel =
  | 'sandbox:status'
  | 'sandbox:outcomes'
  | 'sandbox:wallet'
  | 'sandbox:topUp'
  | 'sandbox:deliveries'
  | 'sandbox:redeliver'
  | 'sandbox:setWebhookUrl'
  | 'sandbox:settle'
  | 'sandbox:advanceClock'
  | 'sandbox:resetClock'
  | 'sandbox:setMaintenance'
  | 'sandbox:setRateLimit'
  | 'sandbox:setChaos'
  | 'sandbox:clearChaos'
  | 'sandbox:variants'
  | 'sandbox:setVariants'
  | 'sandbox:revealSecret'
  | 'sandbox:scenarios'
  | 'sandbox:addScenario'
  | 'sandbox:removeScenario'
  | 'sandbox:recording';

/** An engine refusal (it throws errors carrying an API-style code) becomes a handler failure. */
function engineFailure(error: unknown): never {
  if (error instanceof HandlerFailure) throw error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z_]+$/.test(code) && error instanceof Error) {
    throw new HandlerFailure(code, error.message);
  }
  throw error;
}

export function sandboxHandlers(context: Context): HandlerImpls<SandboxChannel> {
  const { deps } = context;

  async function withEngine<T>(run: (engine: SandboxControl) => T | Promise<T>): Promise<T> {
    const engine = context.requireEngine();
    try {
      return await run(engine);
    } catch (error) {
      engineFailure(error);
    }
  }

  return {
    async 'sandbox:status'() {
      const engine = deps.engine;
      if (!engine) {
        return { running: false, url: null, keys: [], maintenance: false, settleMs: 0, webhookUrl: null, clockOffsetSeconds: 0, error: 'The local sandbox engine is not running.' };
      }
      const state = engine.state();
      return { running: true, url: engine.url, keys: engine.keys(), ...state, error: null, controlUrl: `${engine.url}/_sandbox`, openApiUrl: `${engine.url}/openapi.json` };
    },

    async 'sandbox:outcomes'() {
      return { outcomes: SANDBOX_OUTCOMES };
    },

    async 'sandbox:wallet'() {
      return withEngine((engine) => ({
        balances: (['sandbox', 'live'] as const).map((environment) => ({ environment, ...engine.walletBalance(environment) })),
        // The ledger of the sandbox environment: the built-in profile's.
        ledger: engine.ledger('sandbox'),
      }));
    },

    async 'sandbox:topUp'({ environment, amount, reason }) {
      const result = await withEngine((engine) => engine.topUp(environment, amount, reason));
      deps.emit('sandbox:event', { kind: 'wallet', detail: `${environment} ${amount > 0 ? 'top-up' : 'debit'} ${amount}` });
      return result;
    },

    async 'sandbox:deliveries'({ cursor, limit }) {
      return withEngine(async (engine) => {
        const page = await engine.deliveries(cursor, limit);
        return { deliveries: page.deliveries, nextCursor: page.nextCursor };
      });
    },

    async 'sandbox:redeliver'({ deliveryId }) {
      return withEngine(async (engine) => {
        await engine.redeliver(deliveryId);
        return { queued: true as const };
      });
    },

    async 'sandbox:setWebhookUrl'({ url }) {
      return withEngine(async (engine) => {
        await engine.setWebhookUrl(url === '' ? null : url);
        return { url: url === '' ? null : url };
      });
    },

    async 'sandbox:settle'({ transactionId }) {
      return withEngine(async (engine) => ({ status: (await engine.settleNow(transactionId)).status }));
    },

    async 'sandbox:advanceClock'({ seconds }) {
      const result = await withEngine((engine) => engine.advanceClock(seconds));
      deps.emit('sandbox:event', { kind: 'engine', detail: `clock advanced ${seconds} s` });
      return result;
    },

    async 'sandbox:resetClock'() {
      const result = await withEngine((engine) => engine.resetClock());
      deps.emit('sandbox:event', { kind: 'engine', detail: `clock reset (${result.removedSeconds} s removed)` });
      return result;
    },

    async 'sandbox:revealSecret'({ which }) {
      // Sandbox secrets, shown on the developer's request: returned to the page, never logged.
      return withEngine((engine) => {
        return { value: engine.revealSecret(which) };
      });
    },

    async 'sandbox:setMaintenance'({ on }) {
      await withEngine((engine) => engine.setMaintenance(on));
      deps.emit('sandbox:event', { kind: 'engine', detail: on ? 'maintenance on' : 'maintenance off' });
      return { maintenance: on };
    },

    async 'sandbox:setRateLimit'({ perMinute }) {
      await withEngine((engine) => engine.setRateLimit(perMinute));
      return { rateLimitPerKeyPerMinute: perMinute };
    },

    async 'sandbox:setChaos'(input) {
      const chaos = await withEngine((engine) => engine.setChaos(input));
      deps.emit('sandbox:event', { kind: 'engine', detail: 'webhook chaos on' });
      return { chaos };
    },

    async 'sandbox:clearChaos'() {
      await withEngine((engine) => engine.clearChaos());
      deps.emit('sandbox:event', { kind: 'engine', detail: 'webhook chaos off' });
      return { chaos: null };
    },

    async 'sandbox:variants'() {
      return withEngine((engine) => engine.variants());
    },

    async 'sandbox:setVariants'(input) {
      const variants = await withEngine((engine) => engine.setVariants(input));
      deps.emit('sandbox:event', { kind: 'engine', detail: variants.enabled.length === 0 ? 'service variants off' : `service variants: ${variants.enabled.join(', ')}` });
      return variants;
    },

    async 'sandbox:scenarios'() {
      return withEngine((engine) => ({ scenarios: engine.scenarios() }));
    },

    async 'sandbox:addScenario'(spec) {
      return withEngine((engine) => engine.addScenario(spec));
    },

    async 'sandbox:removeScenario'({ scenarioId }) {
      await withEngine((engine) => engine.removeScenario(scenarioId));
      return { removed: true as const };
    },

    async 'sandbox:recording'(query) {
      return withEngine((engine) => {
        const recording = engine.recording(query);
        return { filename: recording.fileName, contentType: recording.contentType, text: recording.body, ...recording.counts };
      });
    },
  };
}
