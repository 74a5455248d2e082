/**
 * An in-memory PaydeskApi for component tests: each channel answers from a handler the test can
 * replace, every call is recorded, and push events can be emitted by hand.
 */
import type { Channel, ChannelInput, ChannelResults, JournalTransaction, PaydeskApi, Profile, PushEvent, PushEvents, Result, TimelineEvent } from '../../shared/api';
import { SANDBOX_OUTCOMES } from '../../shared/contract';

type Handler<C extends Channel> = (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>> | Result<ChannelResults[C]>;
export type Handlers = { [C in Channel]?: Handler<C> };

export const ok = <T,>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: string, message: string, fields?: Record<string, string[]>): Result<never> => ({ ok: false, error: { code, message, ...(fields ? { fields } : {}) } });

export function profile(overrides: Partial<Profile> = {}): Profile {
  return {
    id: 'local',
    name: 'Local sandbox',
    baseUrl: 'http://127.0.0.1:4010',
    environment: 'sandbox',
    headerWord: 'SVC',
    paymentPublicKey: 'pk_sandbox_payment_abc',
    payoutPublicKey: 'pk_sandbox_payout_abc',
    builtIn: true,
    hasPaymentSecret: true,
    hasPayoutSecret: true,
    ...overrides,
  };
}

export function journal(overrides: Partial<JournalTransaction> = {}): JournalTransaction {
  return {
    id: 'j1',
    profileId: 'local',
    profileName: 'Local sandbox',
    environment: 'sandbox',
    kind: 'payment',
    state: 'known',
    transactionId: 'TE_123',
    externalId: 'ext-1',
    status: 'processing',
    failedCode: null,
    amount: 25000,
    currency: 'XAF',
    fee: 500,
    netAmount: 24500,
    phoneNumber: '+237650000008',
    paymentMethod: 'service_demo',
    customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
    description: null,
    metadata: { order: 'A-17' },
    lastError: null,
    transaction: null,
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:05.000Z',
    ...overrides,
  };
}

export function event(id: number, at: string, overrides: Partial<TimelineEvent> = {}): TimelineEvent {
  return { id, journalId: 'j1', type: 'status_seen', at, status: 'processing', httpStatus: null, code: null, message: null, outcome: null, ...overrides };
}

export interface FakeApi extends PaydeskApi {
  calls: { channel: Channel; input: unknown }[];
  handlers: Handlers;
  emit<E extends PushEvent>(event: E, payload: PushEvents[E]): void;
  callsOf(channel: Channel): unknown[];
}

export function createFakeApi(handlers: Handlers = {}, profiles: Profile[] = [profile()]): FakeApi {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const defaults: Handlers = {
    'app:info': () => ok({ version: '0.1.0', transport: 'browser' as const, activeProfileId: profiles[0]!.id, allowLive: true, language: 'system' as const, theme: 'system' as const }),
    'profiles:list': () => ok({ profiles, activeId: profiles[0]!.id }),
    'methods:list': () => ok({ methods: ['service_demo', 'momo_cm'] }),
    'balance:get': () => ok({ available: true, balance: 100_000, currency: 'XAF' }),
    'sandbox:outcomes': () => ok({ outcomes: SANDBOX_OUTCOMES }),
    'sandbox:requests': () => ok({ requests: [], nextCursor: null, capacity: 500 }),
  };
  const api: FakeApi = {
    calls: [],
    handlers: { ...defaults, ...handlers },
    async invoke(channel, input) {
      api.calls.push({ channel, input });
      const handler = api.handlers[channel] as Handler<typeof channel> | undefined;
      if (!handler) return fail('INTERNAL', `fake: no handler for ${channel}`) as never;
      return (await handler(input as never)) as never;
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) listener(payload);
    },
    callsOf(channel) {
      return api.calls.filter((call) => call.channel === channel).map((call) => call.input);
    },
  };
  return api;
}

/** A promise the test resolves by hand, to hold a call in flight. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
