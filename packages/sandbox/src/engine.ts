/**
 * The local sandbox engine: the whole API on SQLite, started in-process by the console's main
 * process, by the `npm run sandbox` CLI, and by tests (as many as they like, on port 0).
 * `startEngine` wires the parts in order (context, scheduler, control operations, routes) and
 * returns small typed ports (ports.ts): public API, control, webhooks, inspector, clock.
 *
 * It never imports Electron. Extension points for later work (issue 4):
 * - `options.extensions`: functions given the fastify instance (outside the authenticated public
 *   API) and the `EngineContext`, to add routes, status hooks (`ctx.registerStatusHook`), timers
 *   (`ctx.clock.onAdvance`, `ctx.onStop`);
 * - `options.migrations`: extra numbered migrations (100 and up, see migrations.ts);
 * - `ctx.queueEvent({ type: 'extension', ... })` to publish on the same event stream.
 */
import type { FastifyInstance } from 'fastify';
import type { Environment } from '../../../shared/contract';
import { createClock } from './lifecycle/clock';
import { resetEngineClock } from './lifecycle/clock-reset';
import { createSandboxTools, type SandboxTools } from './control';
import { checkNonNegative, checkRateLimit, controlOperations } from './control/operations';
import { setCustomerOutcome } from './control/outcomes';
import { SCENARIO_MIGRATIONS } from './scenarios/store';
import { buildRecording } from './recordings';
import { createContext, type EngineContext, type EngineSettings } from './context';
import { defaultDbFile, openEngineDb } from './storage/db';
import { EventHub } from './events';
import { storeClockOffset, storedClockOffset, type Migration } from './storage/migrations';
import { RateLimiter } from './auth/rate-limit';
import { publicApi } from './api/public-api';
import { createScheduler } from './lifecycle/scheduler';
import { defaultSeed, type Seed } from './storage/seed';
import { applySeed, isSeeded, seededApplications } from './storage/seeding';
import { createServer } from './server';
import { checkInspectorSize, createInspector, DEFAULT_INSPECTOR_SIZE } from './inspector';
import { feeFor, feeRule } from './ledger/fees';
import { WEBHOOK_MIGRATIONS, type WebhookOptions } from './webhooks';
import type { EngineHandle } from './ports';
import { ServiceVariantState } from './variants/state';
import type { ServiceVariant, ServiceVariantsInput } from './variants/catalogue';
import { variantOperations } from './control/variants';
import { recordInternals } from './internals';

export type { EngineHandle, PublicApiPort, ControlPort, WebhooksPort, InspectorPort, ClockPort, CustomerOutcome } from './ports';
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
export type { VariantOperations } from './control/variants';
export {
  SERVICE_VARIANTS,
  SERVICE_VARIANT_DESCRIPTIONS,
  MAX_RESET_EVERY,
  serviceVariantsSchema,
  parseServiceVariants,
  ServiceVariantsError,
  type ServiceVariant,
  type ServiceVariants,
  type ServiceVariantsInput,
} from './variants/catalogue';
export type { Seed, SeedInput } from './storage/seed';
export type { SeededApplication, SeededKey } from './storage/seeding';
export type { LedgerRow } from './ledger/wallet';
export type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookOptions, DeliveryStatus, DeliveryPage, WebhookDeliverySummary } from './webhooks';
export { signWebhook, DEFAULT_RETRY_DELAYS_SECONDS } from './webhooks';
export { buildOpenApiDocument } from './api/openapi';
export { DEFAULT_INSPECTOR_SIZE, MAX_INSPECTOR_SIZE, REQUEST_EVENT_TOPIC, type InspectorQuery, type RequestInspector } from './inspector';
export { isLoopbackAddress, checkControlAccess, ControlError } from './control';
export { changeStatus } from './lifecycle/transitions';
export { setCustomerOutcome, feeFor };
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
  /**
   * Who may call the control API with the token: `loopback` (default: this machine only) or `any`
   * (a team's shared sandbox, whose token only the team's admins read:
   * docs/decisions/team-sandbox-control-api.md).
   */
  controlFrom?: 'loopback' | 'any';
  /** Path of a better-sqlite3 binary to load (Electron development); omitted: the package's own. */
  nativeBinding?: string;
  /** Webhook retry schedule, jitter, timeout and concurrency (see webhooks/dispatcher.ts). */
  webhooks?: WebhookOptions;
  /** How many answered requests the request inspector keeps in memory; default 500, 0 turns it off. */
  inspectorSize?: number;
  /** Real time in µs since the epoch (tests pin it); omitted: the system clock. Engine time is this plus the offset. */
  wallMicros?: () => number;
  /**
   * Service variants (docs/sandbox-engine.md): names, or `{ enabled, resetEvery }`; omitted: none,
   * the default engine. Not stored; `control.variants.set` changes them live. ServiceVariantsError
   * (a RangeError naming each bad field) for an unknown name or a bad resetEvery.
   */
  variants?: readonly ServiceVariant[] | ServiceVariantsInput;
}

export interface ApplicationKeys {
  appId: string;
  name: string;
  keys: { environment: Environment; type: 'payment' | 'payout'; publicKey: string; secretKey: string }[];
}

export async function startEngine(options: EngineOptions = {}): Promise<EngineHandle> {
  const settings: EngineSettings = {
    settleMs: checkNonNegative('settleMs', options.settleMs ?? 2000),
    expirySeconds: checkNonNegative('expirySeconds', options.expirySeconds ?? 120, false),
    maintenance: false,
    bodyLimitBytes: checkNonNegative('bodyLimitBytes', options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES),
    rateLimitPerKeyPerMinute: checkRateLimit(options.rateLimit?.perKeyPerMinute ?? DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE),
  };
  const variants = new ServiceVariantState(options.variants ?? []);
  const inspectorSize = checkInspectorSize(options.inspectorSize ?? DEFAULT_INSPECTOR_SIZE);
  const headerWord = options.headerWord ?? 'SVC';
  const seed = options.seed ?? defaultSeed();
  const db = openEngineDb(options.db ?? defaultDbFile(), [...WEBHOOK_MIGRATIONS, ...SCENARIO_MIGRATIONS, ...(options.migrations ?? [])], options.nativeBinding);
  // The offset survives restarts (migration 3); an advance is stored before its due work runs.
  const clock = createClock({ wallMicros: options.wallMicros, offsetMicros: storedClockOffset(db), saveOffset: (offsetMicros) => storeClockOffset(db, offsetMicros) });
  const hub = new EventHub();
  const cleanups: (() => void | Promise<void>)[] = [];
  const ctx = createContext({ db, clock, settings, variants, seed, hub, onStop: (cleanup) => cleanups.push(cleanup) });
  // The scheduler listens for due work on the context (ctx.kickScheduler), as the webhooks listen to the clock.
  const scheduler = createScheduler(ctx);
  const inspector = createInspector(ctx, inspectorSize, headerWord);
  const rateLimiter = new RateLimiter(() => settings.rateLimitPerKeyPerMinute);
  const operations = controlOperations({ ctx, scheduler, rateLimiter, hub });
  const variantControl = variantOperations(ctx);
  let tools: SandboxTools;
  try {
    tools = createSandboxTools(ctx, { adminToken: options.adminToken, ...(options.controlFrom ? { controlFrom: options.controlFrom } : {}), webhooks: options.webhooks, headerWord, inspector, variants: variantControl }, operations);
  } catch (error) {
    scheduler.stop();
    db.close();
    throw error;
  }
  const app = createServer({ bodyLimitBytes: settings.bodyLimitBytes, logger: options.logger ?? false });
  inspector.install(app);
  try {
    if (!isSeeded(db)) applySeed(db, seed, clock.nowMicros());
    await app.register(publicApi, { ctx, rateLimiter, headerWord });
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
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  let stopped = false;
  const { webhooks } = tools;

  const handle: EngineHandle = {
    api: {
      url,
      port: address.port,
      host,
      applications: () => seededApplications(db),
      feeFor: (kind, amount) => feeFor(db, kind, amount),
      feeSchedule: () => ({ payment: feeRule(db, 'payment'), payout: feeRule(db, 'payout') }),
    },
    control: {
      ...operations,
      adminToken: tools.adminToken,
      settings: () => settings,
      maintenance: () => settings.maintenance,
      setCustomerOutcome: (transactionId, outcome) => setCustomerOutcome(ctx, transactionId, outcome),
      scenarios: tools.scenarios,
      variants: variantControl,
    },
    webhooks: {
      deliveries: (appId) => webhooks.deliveries(appId),
      deliveryPage: (query = {}) => webhooks.deliveryPage(query),
      delivery: (deliveryId) => webhooks.delivery(deliveryId),
      redeliver: (deliveryId) => webhooks.redeliver(deliveryId),
      setUrl: (appId, webhookUrl) => webhooks.setWebhookUrl(appId, webhookUrl),
      url: (appId) => webhooks.webhookUrl(appId),
      secret: (appId) => webhooks.endpoint(appId).secret,
      chaos: tools.chaos,
    },
    inspector: {
      list: (query) => inspector.list(query),
      get: (id) => inspector.get(id),
      recording: (query) => buildRecording({ inspector, deliveries: (appId) => webhooks.deliveries(appId), baseUrl: url, headerWord, now: clock.nowMicros() }, query),
    },
    clock: {
      nowMicros: () => clock.nowMicros(),
      nowSeconds: () => clock.nowSeconds(),
      wallSeconds: () => clock.wallSeconds(),
      offsetSeconds: () => clock.offsetSeconds(),
      advance: (seconds) => clock.advance(seconds),
      reset: () => resetEngineClock(ctx),
    },
    onEvent: (listener) => hub.on(listener),
    async stop() {
      if (stopped) return;
      stopped = true;
      scheduler.stop();
      for (const cleanup of [...cleanups].reverse()) await cleanup();
      await app.close();
      db.close();
    },
  };
  recordInternals(handle, { db, ctx });
  // Deliveries left pending by an earlier run go out now.
  tools.start();
  return handle;
}
