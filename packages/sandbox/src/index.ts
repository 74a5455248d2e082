/**
 * `@paydesk/sandbox`: the Paydesk local sandbox engine for a developer's own tests and CI.
 *
 *   import { startSandbox } from '@paydesk/sandbox';
 *   const sandbox = await startSandbox();            // port 0, in memory, settles at once
 *   const answer = await sandbox.request('POST', '/v1/payments', { ... });
 *   sandbox.advanceClock(121);                        // expiry, webhook retries follow
 *   await sandbox.stop();
 *
 * The same engine the Paydesk console runs in-process and `npx @paydesk/sandbox` serves; nothing
 * from Electron, the console or the renderer.
 */
import { authHeaderNames, scenarioInputSchema, type KeyType, type Scenario, type ScenarioInput } from '../../../shared/contract';
import { payloadFor, signParts, splitTarget } from './signing';
import { ControlError } from './control';
import { startEngine, type EngineHandle, type EngineOptions, type WebhookChaos, type ChaosSettingsInput, type WebhookDelivery, type ServiceVariant, type ServiceVariants, type ServiceVariantsInput } from './engine';

// The engine's whole public surface (what the console uses too), then the helpers of this file.
export * from './engine';
export type { Scenario, ScenarioInput, DeliveryChaos, WebhookEffect, FullTransaction, TransactionStatus, FailedCode } from '../../../shared/contract';
export { canonicalString, signParts } from './signing';
// What the console shares with the engine, so the one copy lives here and the app imports it from this
// package (never the other way): the signing rule, the logger, the loopback checks and the SSE writer.
export { canonicalBytes, computeSignature, hmacKey, payloadFor, payloadSourceFor, splitTarget, verifySignature, type CanonicalParts } from './signing';
export { createLog, processLog, routeProcessLog, redactSecrets, redactText, REDACTED, MAX_LOG_BYTES, type Logger, type LogHandle, type LogOptions } from './log';
export { hostLiteral, isLoopbackAddress, isLoopbackHost, normalizeAddress, ownHostNames, secretMatches } from './net/loopback';
export { createSseStreams, SSE_HEARTBEAT_MS, type SseOptions, type SseStream, type SseStreams } from './net/sse';

export interface SandboxOptions extends EngineOptions {
  /** Which seeded application the helpers act for; default the first one. */
  appId?: string;
}

export interface SandboxKey {
  publicKey: string;
  secretKey: string;
}

export interface SignedHeaders {
  [name: string]: string;
}

export interface Sandbox {
  /** `http://127.0.0.1:<port>`: point your app here. */
  url: string;
  /** The control API's bearer token (`/_sandbox/...`). */
  adminToken: string;
  appId: string;
  /** The application's sandbox keys (fixtures of this sandbox only). */
  keys: Record<KeyType, SandboxKey>;
  /** The engine itself, for anything the helpers below do not cover. */
  engine: EngineHandle;
  /**
   * The headers that sign a request for this sandbox (`Authorization`, timestamp, signature,
   * environment) at real time (the engine checks the ±300 s window against real time, not its advanced
   * clock); `target` is the path with its query, `body` the exact text sent.
   */
  sign(method: string, target: string, body?: string, keyType?: KeyType): SignedHeaders;
  /** Sends a signed request (JSON body) and returns the status and parsed answer (the text when it is not JSON: the gateway-html variant). */
  request<T = unknown>(method: string, target: string, body?: unknown, keyType?: KeyType): Promise<{ status: number; body: T }>;
  /** Calls the control API (`/_sandbox` + path) with the admin token. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: { success: boolean; message: string; data?: T; code?: string; errors?: unknown } }>;
  /** Webhook deliveries of the application with their attempts and what chaos did, oldest first. */
  deliveries(): WebhookDelivery[];
  /** Sets (or with null removes) where webhooks go; returns the `whsec_` secret to verify them with. */
  setWebhookUrl(url: string | null): string;
  /** Moves the engine clock forward: settlements, expiries and webhook retries due by then run. */
  advanceClock(seconds: number): void;
  /** Adds a scenario per transaction (see docs/scenarios.md). */
  addScenario(input: ScenarioInput): Scenario;
  /** Turns webhook chaos on for the application (see docs/webhook-chaos.md); null turns it off. */
  setWebhookChaos(settings: ChaosSettingsInput | null): WebhookChaos | null;
  /**
   * Replaces the service variants (docs/sandbox-engine.md): names or `{ enabled, resetEvery }`; [] is
   * the default engine. RangeError naming each bad field.
   */
  setVariants(input: readonly ServiceVariant[] | ServiceVariantsInput): ServiceVariants;
  /** Resolves when `predicate` holds for the transaction's status (checked on every status change). */
  waitForStatus(transactionId: string, status: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a sandbox in this process: port 0, an in-memory database and no settle delay unless told otherwise. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { appId: wantedApp, ...engineOptions } = options;
  const engine = await startEngine({ port: 0, db: ':memory:', settleMs: 0, ...engineOptions });
  const apps = engine.api.applications();
  const app = apps.find((candidate) => candidate.id === wantedApp) ?? (wantedApp === undefined ? apps[0] : undefined);
  if (!app) {
    await engine.stop();
    throw new RangeError(`no seeded application ${String(wantedApp)}`);
  }
  const keyOf = (type: KeyType): SandboxKey => {
    const key = app.keys.find((candidate) => candidate.environment === 'sandbox' && candidate.type === type);
    if (!key) throw new RangeError(`application ${app.id} has no sandbox ${type} key`);
    return { publicKey: key.publicKey, secretKey: key.secretKey };
  };
  const headerWord = options.headerWord ?? 'SVC';
  const names = authHeaderNames(headerWord);

  function sign(method: string, target: string, body?: string, keyType: KeyType = 'payment'): SignedHeaders {
    const key = keyOf(keyType);
    // Real time, as the engine checks it: after advanceClock the engine clock runs ahead of it.
    const timestamp = String(engine.clock.wallSeconds());
    const { path, query } = splitTarget(target);
    const signature = signParts(key.secretKey, { publicKey: key.publicKey, timestamp, method, path, payload: payloadFor(method, query, body) });
    return { [names.authorization]: key.publicKey, [names.timestamp]: timestamp, [names.signature]: signature, [names.environment]: 'sandbox' };
  }

  return {
    url: engine.api.url,
    adminToken: engine.control.adminToken,
    appId: app.id,
    keys: { payment: keyOf('payment'), payout: keyOf('payout') },
    engine,
    sign,
    async request(method, target, body, keyType) {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const kind = keyType ?? (target.startsWith('/v1/payout') || target.startsWith('/v1/balance') ? 'payout' : 'payment');
      const headers = { ...sign(method, target, text, kind), ...(text === undefined ? {} : { 'content-type': 'application/json' }) };
      const response = await fetch(`${engine.api.url}${target}`, { method, headers, body: text });
      const raw = await response.text();
      const json = /^application\/json\b/i.test(response.headers.get('content-type') ?? 'application/json');
      return { status: response.status, body: (raw === '' ? null : json ? JSON.parse(raw) : raw) as never };
    },
    async control(method, path, body) {
      const response = await fetch(`${engine.api.url}/_sandbox${path}`, {
        method,
        headers: { authorization: `Bearer ${engine.control.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as never };
    },
    deliveries: () => engine.webhooks.deliveries(app.id),
    setWebhookUrl(url) {
      engine.webhooks.setUrl(app.id, url);
      return engine.webhooks.secret(app.id);
    },
    advanceClock: (seconds) => engine.clock.advance(seconds),
    addScenario: (input) => engine.control.scenarios.add(scenarioSpec(input)),
    setWebhookChaos(settings) {
      if (settings === null) {
        engine.webhooks.chaos.clear(app.id);
        return null;
      }
      return engine.webhooks.chaos.set(app.id, settings);
    },
    setVariants(input) {
      try {
        return engine.control.variants.set(input);
      } catch (error) {
        if (error instanceof ControlError) throw new RangeError(`invalid service variants: ${JSON.stringify(error.errors)}`, { cause: error });
        throw error;
      }
    },
    waitForStatus(transactionId, status, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          unsubscribe();
          resolve();
        };
        const timer = setTimeout(() => {
          unsubscribe();
          reject(new Error(`transaction ${transactionId} did not reach ${status} within ${timeoutMs} ms (now ${engine.control.transaction(transactionId)?.status ?? 'missing'})`));
        }, timeoutMs);
        const unsubscribe = engine.onEvent((event) => {
          if (event.type === 'status' && event.transactionId === transactionId && event.to === status) done();
        });
        if (engine.control.transaction(transactionId)?.status === status) done();
      });
    },
    stop: () => engine.stop(),
  };
}

/** The control API's validation for an in-process scenario (a RangeError naming each bad field). */
function scenarioSpec(input: ScenarioInput) {
  const parsed = scenarioInputSchema.safeParse(input);
  if (!parsed.success) throw new RangeError(`invalid scenario: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
  return parsed.data;
}
