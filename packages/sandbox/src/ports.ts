/**
 * What a running engine offers its host (the console, the CLI, `startSandbox`, tests), as small
 * typed ports, one per part of the engine. The database and the engine context stay inside: the
 * test-only way to reach them is `engineInternals` (internals.ts), never part of the public entry.
 */
import type { ClockReset } from './lifecycle/clock-reset';
import type { ControlTarget } from './control/target';
import type { ChaosOperations } from './control/chaos';
import type { ScenarioOperations } from './control/scenarios';
import type { VariantOperations } from './control/variants';
import type { setCustomerOutcome } from './control/outcomes';
import type { EngineSettings } from './context';
import type { EngineEventListener, TransactionKind } from './events';
import type { RequestInspector } from './inspector';
import type { Recording, RecordingQuery } from './recordings';
import type { SeededApplication } from './storage/seeding';
import type { FeeRule } from './ledger/fees';
import type { DeliveryPage, WebhookDelivery } from './webhooks';

/** Where the public API listens and what it is seeded with. */
export interface PublicApiPort {
  /** `http://<host>:<port>`: point an app here. */
  url: string;
  port: number;
  host: string;
  /** The seeded applications with their keys (fixtures of this sandbox only). */
  applications(): SeededApplication[];
  /** The fee the engine charges for `amount` of this kind, in minor units. */
  feeFor(kind: TransactionKind, amount: number): number;
  /** The fee schedule (a seed's `fees`): what a copy of this sandbox must charge. */
  feeSchedule(): Record<TransactionKind, FeeRule>;
}

/** A customer's answer to a transaction, as `POST /_sandbox/transactions/{id}/outcome` takes it. */
export type CustomerOutcome = Parameters<typeof setCustomerOutcome>[2];

/** The operations of the control API (`/_sandbox`), in-process. */
export interface ControlPort extends ControlTarget {
  /** The control API's bearer token (print it; never log it elsewhere). */
  adminToken: string;
  /** The live settings (settle delay, maintenance, rate limit, ...). */
  settings(): Readonly<EngineSettings>;
  maintenance(): boolean;
  /** What the transaction's customer answers next (ControlError NOT_FOUND / CONFLICT). */
  setCustomerOutcome(transactionId: string, outcome: CustomerOutcome): void;
  /** Scenarios per transaction (list, add, remove), as `/_sandbox/scenarios` offers them. */
  scenarios: ScenarioOperations;
  /** Service variants (read, set), as `/_sandbox/variants` offers them. */
  variants: VariantOperations;
}

/** Webhook endpoints, deliveries and chaos. */
export interface WebhooksPort {
  /** Deliveries with their attempts, oldest first; all applications when `appId` is omitted. */
  deliveries(appId?: string): WebhookDelivery[];
  /**
   * One page of deliveries, newest first, without their payloads: `limit` default 50, at most 500;
   * `cursor` the `nextCursor` of the page before. RangeError for a bad limit or cursor.
   */
  deliveryPage(options?: { appId?: string; limit?: number; cursor?: string }): DeliveryPage;
  /** One delivery with its payload and attempts, or null. */
  delivery(deliveryId: string): WebhookDelivery | null;
  /** Sends a delivery again (same webhook-id) from the start of the retry schedule. */
  redeliver(deliveryId: string): WebhookDelivery;
  /** Sets or (null) removes an application's webhook URL; setting it re-enables a 410-disabled endpoint. */
  setUrl(appId: string, url: string | null): void;
  url(appId: string): string | null;
  /** The application's `whsec_` signing secret (made on first use). */
  secret(appId: string): string;
  /** An application's webhook chaos (read, set, turn off), as `/_sandbox/applications/{id}/webhook-chaos` offers it. */
  chaos: ChaosOperations;
}

/** The request inspector and recordings. */
export interface InspectorPort {
  /** The last answered public API requests, newest first, with diagnoses of authentication failures. */
  list: RequestInspector['list'];
  get: RequestInspector['get'];
  /** The inspector's records and the webhook deliveries of a period, as HAR or JSON lines, secrets redacted. */
  recording(query: RecordingQuery): Recording;
}

/** The engine clock: real time plus an offset that only moves forward until reset. */
export interface ClockPort {
  nowMicros(): number;
  nowSeconds(): number;
  /** Whole seconds of real time: what request timestamps are checked against. */
  wallSeconds(): number;
  offsetSeconds(): number;
  /** Moves engine time forward: settlements, expiry and webhook retries due by then run. */
  advance(seconds: number): void;
  /** Engine time back to real time; scheduled work keeps the wait it had left (see clock-reset.ts). */
  reset(): ClockReset;
}

/** A running engine. */
export interface EngineHandle {
  api: PublicApiPort;
  control: ControlPort;
  webhooks: WebhooksPort;
  inspector: InspectorPort;
  clock: ClockPort;
  /** Status changes, wallet movements and engine switches, after their write commits. */
  onEvent(listener: EngineEventListener): () => void;
  stop(): Promise<void>;
}
