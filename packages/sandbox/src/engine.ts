/**
 * The local sandbox engine: the whole API on SQLite, started in-process by the console's main
 * process, by the `npm run sandbox` CLI, and by tests (as many as they like, on port 0).
 *
 * It never imports Electron. Extension points for later work (issue 4):
 * - `options.extensions`: functions given the fastify instance (outside the authenticated public
 *   API) and the `EngineContext`, to add routes, status hooks (`ctx.registerStatusHook`), timers
 *   (`ctx.clock.onAdvance`, `ctx.onStop`);
 * - `options.migrations`: extra numbered migrations (100 and up, see migrations.ts);
 * - `ctx.queueEvent({ type: 'extension', ... })` to publish on the same event stream.
 */
import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { formatTimestamp, type Environment } from '../../../shared/contract';
import { createClock, type EngineClock } from './lifecycle/clock';
import { resetEngineClock, type ClockReset } from './lifecycle/clock-reset';
import { createSandboxTools, type SandboxTools } from './control';
import type { ControlTarget } from './control/target';
import type { ChaosOperations } from './control/chaos';
import type { ScenarioOperations } from './control/scenarios';
import { SCENARIO_MIGRATIONS } from './scenarios/store';
import { buildRecording, type Recording, type RecordingQuery } from './recordings';
import { createContext, type EngineContext, type EngineSettings } from './context';
import { defaultDbFile, openEngineDb } from './storage/db';
import { EventHub, type EngineEventListener } from './events';
import { storeClockOffset, storedClockOffset, type Migration } from './storage/migrations';
import { decideNow } from './lifecycle/provider';
import { MAX_RATE_LIMIT_PER_KEY_PER_MINUTE, RateLimiter } from './auth/rate-limit';
import { publicApi } from './api/public-api';
import { createScheduler } from './lifecycle/scheduler';
import { defaultSeed, type Seed } from './storage/seed';
import { applySeed, isSeeded, resetToSeed, seededApplications, type SeededApplication } from './storage/seeding';
import { createServer } from './server';
import { checkInspectorSize, createInspector, DEFAULT_INSPECTOR_SIZE, type RequestInspector } from './inspector';
import { getTransaction, toFullTransaction, transactionEvents } from './storage/store';
import { addLedgerEntry, ledgerEntries, walletBalance } from './ledger/wallet';
import { WEBHOOK_MIGRATIONS, type DeliveryPage, type WebhookDelivery, type WebhookOptions } from './webhooks';

export type { EngineContext, EngineSettings } from './context';
export type { EngineClock } from './lifecycle/clock';
export type { ClockReset } from './lifecycle/clock-reset';
export type { EngineEvent, EngineEventListener, StatusEvent, WalletEvent, TransactionKind } from './events';
export type { StatusChange, StatusHook } from './lifecycle/transitions';
export type { Migration } from './storage/migrations';
export type { ScenarioOperations } from './control/scenarios';
export type { ChaosOperations } from './control/chaos';
export type { Recording, RecordingQuery, RecordingFormat } from './recordings';
export type { WebhookChaos, ChaosSettingsInput } from './webhooks/chaos';
export type { Seed, SeedInput } from './storage/seed';
export type { SeededApplication, SeededKey } from './storage/seeding';
export type { LedgerRow } from './ledger/wallet';
export type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookOptions, DeliveryStatus, DeliveryPage, WebhookDeliverySummary } from './webhooks';
export { signWebhook, DEFAULT_RETRY_DELAYS_SECONDS } from './webhooks';
export { buildOpenApiDocument } from './api/openapi';
export { DEFAULT_INSPECTOR_SIZE, MAX_INSPECTOR_SIZE, REQUEST_EVENT_TOPIC, type InspectorQuery, type RequestInspector } from './inspector';
export { isLoopbackAddress, checkControlAccess, ControlError } from './control';
export { changeStatus } from './lifecycle/transitions';
export { setCustomerOutcome } from './control/outcomes';
export { feeFor } from './ledger/fees';
export { parseSeed, loadSeedFile, SeedError, DEFAULT_SEED_INPUT, defaultSeed } from './storage/seed';
export { defaultDbFile, defaultDataDir } from './storage/db';
export { OVERSIZED_BODY_DRAIN_MS } from './api/raw-body';
export { MAX_RATE_LIMIT_PER_KEY_PER_MINUTE } from './auth/rate-limit';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE = 600;


export type EngineExtension = (app: FastifyInstance, ctx: EngineContext) => void | Promise<void>;

export interface EngineOptions {
  host?: string;
  /** 0: a random free port. */
  port?: number;
  /** A file path or ':memory:'; omitted: `sandbox.db` in the per-user data folder. */
  db?: string;
  /** A parsed seed (see `parseSeed`); omitted: the default seed. Only applied to an empty database. */
  seed?: Seed;
  /** Delay from initiation to the provider's decision; default 2000, 0 allowed. */
  settleMs?: number;
  /** How long a customer who never answers keeps a transaction processing; default 120. */
  expirySeconds?: number;
  /** Largest accepted request body; default 64 KiB. */
  bodyLimitBytes?: number;
  /**
   * Per-key limit in requests per minute; default 600; 0 turns it off (load-testing an app). Not
   * stored: like settleMs, a restart takes it from the options again. `setRateLimit` changes it live.
   */
  rateLimit?: { perKeyPerMinute: number };
  /** The word in the auth header names (`X-<word>-Timestamp`); default SVC. */
  headerWord?: string;
  logger?: boolean;
  extensions?: EngineExtension[];
  migrations?: Migration[];
  /** Token for the `/_sandbox` control API; omitted: the seed's, else a random one per start. */
  adminToken?: string;
  /** Path of a better-sqlite3 binary to load (Electron development); omitted: the package's own. */
  nativeBinding?: string;
  /** Webhook retry schedule, jitter, timeout and concurrency (see webhooks/dispatcher.ts). */
  webhooks?: WebhookOptions;
  /** How many answered requests the request inspector keeps in memory; default 500, 0 turns it off. */
  inspectorSize?: number;
  /** Real time in µs since the epoch (tests pin it); omitted: the system clock. Engine time is this plus the offset. */
  wallMicros?: () => number;
}

export interface ApplicationKeys {
  appId: string;
  name: string;
  keys: { environment: Environment; type: 'payment' | 'payout'; publicKey: string; secretKey: string }[];
}

export interface EngineHandle extends ControlTarget {
  url: string;
  port: number;
  host: string;
  db: Database.Database;
  clock: EngineClock;
  ctx: EngineContext;
  settings: Readonly<EngineSettings>;
  stop(): Promise<void>;
  seedInfo(): SeededApplication[];
  onEvent(listener: EngineEventListener): () => void;
  /** The control API's bearer token (print it; never log it elsewhere). */
  adminToken: string;
  /** Webhook deliveries with their attempts, oldest first; all applications when `appId` is omitted. */
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
  setWebhookUrl(appId: string, url: string | null): void;
  webhookUrl(appId: string): string | null;
  /** The application's `whsec_` signing secret (made on first use). */
  webhookSecret(appId: string): string;
  /** Moves the engine clock forward: settlements, expiry and webhook retries due by then run. */
  advanceClock(seconds: number): void;
  /** Engine time back to real time; scheduled work keeps the wait it had left (see clock-reset.ts). */
  resetClock(): ClockReset;
  maintenance(): boolean;
  /** The last answered public API requests, with diagnoses of authentication failures. */
  inspector: RequestInspector;
  /** Scenarios per transaction (list, add, remove), as `/_sandbox/scenarios` offers them. */
  scenarios: ScenarioOperations;
  /** An application's webhook chaos (read, set, turn off), as `/_sandbox/applications/{id}/webhook-chaos` offers it. */
  webhookChaos: ChaosOperations;
  /** The inspector's records and the webhook deliveries of a period, as HAR or JSON lines, secrets redacted. */
  recording(query: RecordingQuery): Recording;
}

function checkNonNegative(name: string, value: number, integer = true): number {
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
  return value;
}

function checkRateLimit(perKeyPerMinute: number): number {
  checkNonNegative('rateLimit.perKeyPerMinute', perKeyPerMinute);
  if (perKeyPerMinute > MAX_RATE_LIMIT_PER_KEY_PER_MINUTE) {
    throw new RangeError(`rateLimit.perKeyPerMinute must be at most ${MAX_RATE_LIMIT_PER_KEY_PER_MINUTE}, got ${perKeyPerMinute}`);
  }
  return perKeyPerMinute;
}

export async function startEngine(options: EngineOptions = {}): Promise<EngineHandle> {
  const settings: EngineSettings = {
    settleMs: checkNonNegative('settleMs', options.settleMs ?? 2000),
    expirySeconds: checkNonNegative('expirySeconds', options.expirySeconds ?? 120, false),
    maintenance: false,
    bodyLimitBytes: checkNonNegative('bodyLimitBytes', options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES),
    rateLimitPerKeyPerMinute: checkRateLimit(options.rateLimit?.perKeyPerMinute ?? DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE),
  };
  const inspectorSize = checkInspectorSize(options.inspectorSize ?? DEFAULT_INSPECTOR_SIZE);
  const seed = options.seed ?? defaultSeed();
  const db = openEngineDb(options.db ?? defaultDbFile(), [...WEBHOOK_MIGRATIONS, ...SCENARIO_MIGRATIONS, ...(options.migrations ?? [])], options.nativeBinding);
  // The offset survives restarts (migration 3); an advance is stored before its due work runs.
  const clock = createClock({ wallMicros: options.wallMicros, offsetMicros: storedClockOffset(db), saveOffset: (offsetMicros) => storeClockOffset(db, offsetMicros) });
  const hub = new EventHub();
  const cleanups: (() => void | Promise<void>)[] = [];
  let ctxRef: EngineContext | null = null;
  const scheduler = createScheduler(() => {
    if (!ctxRef) throw new Error('engine context not ready');
    return ctxRef;
  });
  const ctx = createContext({
    db,
    clock,
    settings,
    seed,
    hub,
    kickScheduler: (dueAt) => scheduler.kick(dueAt),
    onStop: (cleanup) => cleanups.push(cleanup),
  });
  ctxRef = ctx;
  const inspector = createInspector(ctx, inspectorSize, options.headerWord ?? 'SVC');
  let handle: EngineHandle | null = null;
  let tools: SandboxTools;
  try {
    tools = createSandboxTools(ctx, { adminToken: options.adminToken, webhooks: options.webhooks, headerWord: options.headerWord ?? 'SVC', inspector }, () => {
      if (!handle) throw new Error('engine not ready');
      return handle;
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const rateLimiter = new RateLimiter(() => settings.rateLimitPerKeyPerMinute);
  const app = createServer({ bodyLimitBytes: settings.bodyLimitBytes, logger: options.logger ?? false });
  inspector.install(app);
  try {
    if (!isSeeded(db)) applySeed(db, seed, clock.nowMicros());
    await app.register(publicApi, { ctx, rateLimiter, headerWord: options.headerWord ?? 'SVC' });
    await tools.register(app);
    for (const extension of options.extensions ?? []) await extension(app, ctx);
    const unsubscribeClock = clock.onAdvance(() => {
      scheduler.runDue();
      hub.emit({ type: 'engine', detail: 'clock' });
    });
    cleanups.unshift(unsubscribeClock);
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    scheduler.stop();
    await app.close().catch(() => undefined);
    db.close();
    throw error;
  }
  // Transactions that came due while the engine was stopped settle now.
  scheduler.runDue();

  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the engine is not listening on a TCP port');
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let stopped = false;

  handle = {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    host,
    db,
    clock,
    ctx,
    settings,
    async stop() {
      if (stopped) return;
      stopped = true;
      scheduler.stop();
      for (const cleanup of [...cleanups].reverse()) await cleanup();
      await app.close();
      db.close();
    },
    seedInfo: () => seededApplications(db),
    onEvent: (listener) => hub.on(listener),
    settleNow(transactionId) {
      const row = getTransaction(db, transactionId);
      if (!row) return null;
      decideNow(db, row.provider_ref, clock.nowMicros());
      scheduler.runDue();
      return { status: getTransaction(db, transactionId)?.status ?? row.status };
    },
    setSettleMs(ms) {
      settings.settleMs = checkNonNegative('settleMs', ms);
      hub.emit({ type: 'engine', detail: 'settle-ms' });
    },
    setRateLimit(perKeyPerMinute) {
      settings.rateLimitPerKeyPerMinute = checkRateLimit(perKeyPerMinute);
      hub.emit({ type: 'engine', detail: 'rate-limit' });
    },
    setMaintenance(on) {
      settings.maintenance = on;
      hub.emit({ type: 'engine', detail: on ? 'maintenance-on' : 'maintenance-off' });
    },
    walletBalance: (appId, environment) => walletBalance(db, appId, environment),
    topUp(appId, environment, amount, reason) {
      if (!Number.isSafeInteger(amount) || amount === 0) throw new RangeError('a top-up is a non-zero whole number of minor units');
      if (reason.trim() === '') throw new RangeError('a top-up needs a reason');
      return ctx.write(() => {
        if (!db.prepare('SELECT 1 FROM applications WHERE id = ?').get(appId)) throw new RangeError(`no application ${appId}`);
        if (walletBalance(db, appId, environment) + amount < 0) throw new RangeError('a withdrawal cannot take the wallet below zero');
        return addLedgerEntry(ctx, { appId, environment, amount, reason, transactionId: null });
      });
    },
    ledger: (appId, environment) => ledgerEntries(db, appId, environment),
    timeline: (transactionId) =>
      transactionEvents(db, transactionId).map((event) => ({
        status: event.status,
        from: event.from_status,
        failedCode: event.failed_code,
        at: formatTimestamp(event.at),
      })),
    transaction(transactionId) {
      const row = getTransaction(db, transactionId);
      return row ? toFullTransaction(row) : null;
    },
    reset() {
      resetToSeed(db, seed, clock.nowMicros());
      rateLimiter.reset();
      hub.emit({ type: 'engine', detail: 'reset' });
    },
    adminToken: tools.adminToken,
    deliveries: (appId) => tools.webhooks.deliveries(appId),
    deliveryPage: (options = {}) => tools.webhooks.deliveryPage(options),
    delivery: (deliveryId) => tools.webhooks.delivery(deliveryId),
    redeliver: (deliveryId) => tools.webhooks.redeliver(deliveryId),
    setWebhookUrl(appId, url) {
      tools.webhooks.setWebhookUrl(appId, url);
    },
    webhookUrl: (appId) => tools.webhooks.webhookUrl(appId),
    webhookSecret: (appId) => tools.webhooks.endpoint(appId).secret,
    advanceClock: (seconds) => clock.advance(seconds),
    resetClock: () => resetEngineClock(ctx),
    maintenance: () => settings.maintenance,
    inspector,
    scenarios: tools.scenarios,
    webhookChaos: tools.chaos,
    recording: (query) =>
      buildRecording({ inspector, deliveries: (appId) => tools.webhooks.deliveries(appId), baseUrl: handle?.url ?? '', headerWord: options.headerWord ?? 'SVC', now: clock.nowMicros() }, query),
  };
  // Deliveries left pending by an earlier run go out now.
  tools.start();
  return handle;
}
