/**
 * Sandbox store: the local engine's status, outcomes table, wallet and webhook deliveries, and
 * its controls. Answers of SANDBOX_UNAVAILABLE (another profile is active) are a state, not an error.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, ChannelInput, ChannelResults, PaydeskApi, Result, SandboxStatus, SandboxVariants, WebhookDelivery } from '../../../shared/api';
import type { SandboxOutcome, Scenario, ScenarioInput } from '../../../shared/contract';
import { createCursorPager } from './pages';

/** A page of deliveries, as the engine pages them; a refresh asks for every one held, up to the channel's 500. */
const DELIVERIES_PAGE = 50;
const DELIVERIES_HELD = 500;

export interface SandboxState {
  status: 'idle' | 'loading' | 'ready' | 'unavailable' | 'error';
  error: ApiFailure | null;
  engine: SandboxStatus | null;
  outcomes: readonly SandboxOutcome[];
  wallet: ChannelResults['sandbox:wallet'] | null;
  deliveries: WebhookDelivery[];
  /** The cursor of the next, older page of deliveries; null when the oldest is shown. */
  deliveriesNext: string | null;
  /** Why deliveries could not be read (e.g. an engine without webhooks), or null. */
  deliveriesError: ApiFailure | null;
  /** Scenarios per transaction, oldest first. */
  scenarios: Scenario[];
  /** The service variants in force (null until read, or when the engine could not say). */
  variants: SandboxVariants | null;
  load(): Promise<void>;
  /** The next, older page of deliveries below those shown. */
  moreDeliveries(): Promise<void>;
  addScenario(input: ScenarioInput): Promise<Result<Scenario>>;
  removeScenario(scenarioId: string): Promise<Result<{ removed: true }>>;
  /** A recording of the inspector's records and the deliveries, to download. */
  recording(format: 'har' | 'jsonl'): Promise<Result<ChannelResults['sandbox:recording']>>;
  topUp(input: { environment: 'sandbox' | 'live'; amount: number; reason: string }): Promise<Result<{ balance: number }>>;
  redeliver(deliveryId: string): Promise<Result<{ queued: true }>>;
  setWebhookUrl(url: string): Promise<Result<{ url: string | null }>>;
  settle(transactionId: string): Promise<Result<{ status: string }>>;
  advanceClock(seconds: number): Promise<Result<{ clockOffsetSeconds: number }>>;
  resetClock(): Promise<Result<{ clockOffsetSeconds: number; removedSeconds: number }>>;
  setMaintenance(on: boolean): Promise<Result<{ maintenance: boolean }>>;
  setRateLimit(perMinute: number): Promise<Result<ChannelResults['sandbox:setRateLimit']>>;
  setChaos(chaos: ChannelInput<'sandbox:setChaos'>): Promise<Result<ChannelResults['sandbox:setChaos']>>;
  clearChaos(): Promise<Result<ChannelResults['sandbox:clearChaos']>>;
  /** Replaces the whole set of service variants ({ enabled: [] }: all off). */
  setVariants(input: ChannelInput<'sandbox:setVariants'>): Promise<Result<SandboxVariants>>;
  /** A sandbox secret on the developer's request; the value is the caller's to show, never kept here. */
  revealSecret(which: 'webhookSecret' | 'adminToken'): Promise<Result<{ value: string }>>;
}

export function createSandboxStore(api: PaydeskApi) {
  return createStore<SandboxState>()((set, get) => {
    const deliveries = createCursorPager({
      pageSize: DELIVERIES_PAGE,
      maxHeld: DELIVERIES_HELD,
      maxLimit: DELIVERIES_HELD,
      get: () => ({ rows: get().deliveries, nextCursor: get().deliveriesNext }),
      set: ({ rows, nextCursor }) => set({ ...(rows ? { deliveries: rows } : {}), ...(nextCursor !== undefined ? { deliveriesNext: nextCursor } : {}) }),
      idOf: (delivery) => delivery.id,
      fetch: async (cursor, limit) => {
        const result = await api.invoke('sandbox:deliveries', { limit, ...(cursor === undefined ? {} : { cursor }) });
        return result.ok ? { ok: true, value: { rows: result.value.deliveries, nextCursor: result.value.nextCursor } } : result;
      },
      answered: (result) => set({ deliveriesError: result.ok ? null : result.error }),
    });
    /** Runs a control, then reloads what it may have changed. */
    async function control<T>(call: Promise<Result<T>>): Promise<Result<T>> {
      const result = await call;
      await get().load();
      return result;
    }
    return {
      status: 'idle',
      error: null,
      engine: null,
      outcomes: [],
      wallet: null,
      deliveries: [],
      deliveriesNext: null,
      deliveriesError: null,
      scenarios: [],
      variants: null,
      async load() {
        if (get().status === 'idle') set({ status: 'loading' });
        const [status, outcomes, wallet, , scenarios, variants] = await Promise.all([
          api.invoke('sandbox:status', {}),
          api.invoke('sandbox:outcomes', {}),
          api.invoke('sandbox:wallet', {}),
          // The deliveries held (however far the person paged) asked again; the pager sets them.
          deliveries.refresh(),
          api.invoke('sandbox:scenarios', {}),
          api.invoke('sandbox:variants', {}),
        ]);
        if (!status.ok) {
          set({ status: status.error.code === 'SANDBOX_UNAVAILABLE' ? 'unavailable' : 'error', error: status.error, engine: null });
          return;
        }
        set({
          status: 'ready',
          error: null,
          engine: status.value,
          outcomes: outcomes.ok ? outcomes.value.outcomes : get().outcomes,
          wallet: wallet.ok ? wallet.value : null,
          scenarios: scenarios.ok ? scenarios.value.scenarios : get().scenarios,
          variants: variants.ok ? variants.value : null,
        });
      },
      moreDeliveries: () => deliveries.more(),
      topUp: (input) => control(api.invoke('sandbox:topUp', input)),
      redeliver: (deliveryId) => control(api.invoke('sandbox:redeliver', { deliveryId })),
      setWebhookUrl: (url) => control(api.invoke('sandbox:setWebhookUrl', { url })),
      settle: (transactionId) => control(api.invoke('sandbox:settle', { transactionId })),
      advanceClock: (seconds) => control(api.invoke('sandbox:advanceClock', { seconds })),
      resetClock: () => control(api.invoke('sandbox:resetClock', {})),
      setMaintenance: (on) => control(api.invoke('sandbox:setMaintenance', { on })),
      setRateLimit: (perMinute) => control(api.invoke('sandbox:setRateLimit', { perMinute })),
      setChaos: (chaos) => control(api.invoke('sandbox:setChaos', chaos)),
      clearChaos: () => control(api.invoke('sandbox:clearChaos', {})),
      setVariants: (input) => control(api.invoke('sandbox:setVariants', input)),
      revealSecret: (which) => api.invoke('sandbox:revealSecret', { which }),
      addScenario: (input) => control(api.invoke('sandbox:addScenario', input)),
      removeScenario: (scenarioId) => control(api.invoke('sandbox:removeScenario', { scenarioId })),
      recording: (format) => api.invoke('sandbox:recording', { format }),
    };
  });
}
export type SandboxStore = ReturnType<typeof createSandboxStore>;
