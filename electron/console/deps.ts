/**
 * What the handlers depend on, as narrow interfaces, so that tests and the runtime can pass the
 * real things (keychain, SQLite file, engine, HTTP client) or stand-ins at the edges.
 */
import type { Environment, FullTransaction, InspectedPage, Scenario, ScenarioSpec } from '../../shared/contract';
import type { InspectorQuery, Recording } from '@paydesk/sandbox';
import type { Logger } from '@paydesk/sandbox';
import type { LedgerEntry, SandboxKeys, SandboxVariants, SandboxWebhookChaos, WebhookDelivery } from '../../shared/api';
import type { ChannelParsedInput } from '../../shared/api';

/** The Sandbox screen's chaos form, parsed (shares 0–1). */
export type SandboxChaosInput = ChannelParsedInput<'sandbox:setChaos'>;
/** The Sandbox screen's service variants, as the channel parsed them (the engine checks them again). */
export type SandboxVariantsInput = ChannelParsedInput<'sandbox:setVariants'>;

/** One page of the local engine's webhook deliveries as the console lists them. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

import type { ClientProfile as HttpClientProfile, ClientResult as HttpClientResult, PaydeskClient } from '../client';

/** The HTTP client's answer (see electron/client). */
export type ClientResult = HttpClientResult<unknown>;

/** The operations of the HTTP client the console uses. */
export type ConsoleClient = Pick<
  PaydeskClient,
  'createPayment' | 'initiatePayout' | 'retrievePayment' | 'verifyPayment' | 'retrievePayout' | 'verifyPayout' | 'getBalance' | 'close'
>;

export type ClientProfile = HttpClientProfile;

/** Builds a client for a profile; `secretFor` is the only path a secret key takes. */
export type ClientFactory = (profile: ClientProfile, secretFor: (publicKey: string) => Promise<string>) => ConsoleClient;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('aborted'));
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A status change inside the local engine: the console then reads the whole transaction again. */
export interface SandboxStatusEvent {
  transactionId: string;
  status: string;
}

/**
 * The local sandbox engine as the console sees it (sandbox-engine.ts adapts the engine's ports).
 * When the engine is not running at all, `deps.engine` is null and its channels answer
 * SANDBOX_UNAVAILABLE.
 */
export interface SandboxControl {
  url: string;
  /** The seeded application's keys (fixtures of the loopback engine). */
  keys(): SandboxKeys[];
  state(): { maintenance: boolean; settleMs: number; clockOffsetSeconds: number; webhookUrl: string | null; rateLimitPerKeyPerMinute: number; chaos: SandboxWebhookChaos | null };
  walletBalance(environment: Environment): { balance: number; currency: string };
  ledger(environment: Environment): LedgerEntry[];
  topUp(environment: Environment, amount: number, reason: string): { balance: number };
  settleNow(transactionId: string): Promise<{ status: string }> | { status: string };
  advanceClock(seconds: number): { clockOffsetSeconds: number };
  /** Engine time back to real time; work already scheduled keeps the wait it had left. */
  resetClock(): { clockOffsetSeconds: number; removedSeconds: number };
  setMaintenance(on: boolean): void;
  /** Requests a minute per key before the engine answers 429 (0: no limit); HandlerFailure INVALID_INPUT when out of range. */
  setRateLimit(perMinute: number): void;
  /** The built-in application's webhook chaos; null: off. */
  chaos(): SandboxWebhookChaos | null;
  /** Sets it (HandlerFailure INVALID_INPUT naming the field the engine refused). */
  setChaos(chaos: SandboxChaosInput): SandboxWebhookChaos;
  clearChaos(): void;
  /** The service variants in force (the spec's silences answered the other way); none: the default engine. */
  variants(): SandboxVariants;
  /** Replaces them, checked by the engine's own schema (HandlerFailure INVALID_INPUT naming each field it refused). */
  setVariants(input: SandboxVariantsInput): SandboxVariants;
  onStatusChange(listener: (event: SandboxStatusEvent) => void): () => void;
  /**
   * The whole transaction as retrieve would answer it, read in-process: after a status push the
   * console stores all of it without a request back over HTTP (one per row of a batch otherwise).
   */
  transaction(transactionId: string): FullTransaction | null;
  /** A page of the latest deliveries, newest first; `cursor`: the previous page's `nextCursor`; `limit`: the engine's 50 unless given. */
  deliveries(cursor?: string, limit?: number): DeliveryPage | Promise<DeliveryPage>;
  redeliver(deliveryId: string): void | Promise<void>;
  setWebhookUrl(url: string | null): void | Promise<void>;
  scenarios(): Scenario[];
  /** HandlerFailure INVALID_INPUT or CONFLICT (another scenario steers the same transactions). */
  addScenario(spec: ScenarioSpec): Scenario;
  removeScenario(scenarioId: string): void;
  recording(query: { format: 'har' | 'jsonl'; from?: string; to?: string }): Recording;
  /**
   * The local sandbox's own secrets for a developer's app: the webhook signing secret (`whsec_…`)
   * and the control API's admin token. Read only when the developer asks (never logged).
   */
  revealSecret(which: 'webhookSecret' | 'adminToken'): string;
  /** The request inspector's records (newest first). */
  requests(query: InspectorQuery): InspectedPage;
  /** Real time in whole seconds as the engine reads it: the clock request signatures are checked against. */
  wallSeconds(): number;
  /** The fee the engine will charge. */
  feeFor(kind: 'payment' | 'payout', environment: Environment, amount: number, paymentMethod: string): number;
  /**
   * Brings a transaction to its final status now (batch rehearsal): the provider decides at once,
   * and one that would wait (no answer, needs Verify) gets its outcome-table result immediately.
   */
  finishNow(transactionId: string, phoneNumber: string): { status: string; failedCode: string | null } | null;
  /**
   * A throwaway copy of this sandbox for a batch rehearsal (issue 23 item 4): its own engine in
   * memory on a loopback port, with this sandbox's fees, scenarios and sandbox wallet balance
   * (`walletBalance` replaces the balance); no rate limit, no webhook URL, no request inspector.
   * Nothing done there reaches this sandbox; `stop` it when done.
   */
  rehearsalCopy(options?: { walletBalance?: number }): Promise<SandboxCopy>;
}

/** A throwaway engine (SandboxControl.rehearsalCopy). */
export type SandboxCopy = SandboxControl & { stop(): Promise<void> };

/**
 * Who takes the follow-up rounds when several consoles would follow up the same entries (the team
 * senders, electron/sender/follow-up-duty.ts): one at a time holds the duty, the others skip.
 */
export interface FollowUpDuty {
  /** Whether this console takes the round now; false leaves it to the holder (the burst ends). */
  take(): Promise<boolean>;
  /** A round this console took ended: how many open entries it followed, how many stay open. */
  roundEnded?(round: { followed: number; open: number }): void;
}

export type { Logger };

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
