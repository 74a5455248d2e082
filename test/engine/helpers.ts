/**
 * Shared test fixtures: an engine on port 0 and the real client pointed at it.
 */
import { rmSync } from 'node:fs';
import { createClient, type ClientProfile, type PaydeskClient } from '../../electron/client';
import { startEngine, type EngineHandle, type EngineOptions, type StatusEvent } from '../../packages/sandbox/src/engine';
import type { Environment, TransactionRequest, TransactionStatus } from '../../shared/contract';
import type { RawSigner } from '../helpers/raw-request';
import { makeTempDir } from '../temp-dir';

export const DEMO_APP = 'app_paydesk_demo';

/** A temp folder; `cleanup` removes it early, and it is removed after the test file anyway (test/temp-dir.ts). */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = makeTempDir('paydesk-engine-');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Secret source over every key the engine was seeded with. */
export function secretsOf(engine: EngineHandle, extra: Record<string, string> = {}): (publicKey: string) => Promise<string> {
  const secrets = new Map<string, string>();
  for (const app of engine.api.applications()) for (const key of app.keys) secrets.set(key.publicKey, key.secretKey);
  for (const [publicKey, secret] of Object.entries(extra)) secrets.set(publicKey, secret);
  return async (publicKey) => {
    const secret = secrets.get(publicKey);
    // Unknown keys sign with a throwaway secret, so tests can send keys the engine does not know.
    return secret ?? 'sk_unknown_key_for_tests_000000';
  };
}

export function keysOf(engine: EngineHandle, appId = DEMO_APP, environment: Environment = 'sandbox') {
  const app = engine.api.applications().find((candidate) => candidate.id === appId);
  if (!app) throw new Error(`no app ${appId}`);
  const payment = app.keys.find((key) => key.environment === environment && key.type === 'payment');
  const payout = app.keys.find((key) => key.environment === environment && key.type === 'payout');
  if (!payment || !payout) throw new Error(`app ${appId} has no ${environment} key pair`);
  return { payment, payout };
}

export function profileFor(engine: EngineHandle, appId = DEMO_APP, environment: Environment = 'sandbox', overrides: Partial<ClientProfile> = {}): ClientProfile {
  const keys = keysOf(engine, appId, environment);
  return { baseUrl: engine.api.url, environment, paymentPublicKey: keys.payment.publicKey, payoutPublicKey: keys.payout.publicKey, ...overrides };
}

/** Signs with real time as any client does (the engine checks the window against it). */
export function signerFor(engine: EngineHandle, profile: ClientProfile = profileFor(engine), extraSecrets: Record<string, string> = {}): RawSigner {
  return { profile, secretFor: secretsOf(engine, extraSecrets), now: () => engine.clock.wallSeconds() * 1000 };
}

/** The real client for a signer, no GET retries. */
export function clientFor(engine: EngineHandle, profile: ClientProfile = profileFor(engine), extraSecrets: Record<string, string> = {}): PaydeskClient {
  const signer = signerFor(engine, profile, extraSecrets);
  return createClient(signer.profile, signer.secretFor, { now: signer.now, retry: { attempts: 1 } });
}

export interface TestEngine {
  engine: EngineHandle;
  client: PaydeskClient;
  /** The client's profile and keys, for requests the client never sends (test/helpers/raw-request.ts). */
  signer: RawSigner;
  stop: () => Promise<void>;
}

export async function startTestEngine(options: EngineOptions = {}): Promise<TestEngine> {
  const engine = await startEngine({ db: ':memory:', port: 0, settleMs: 0, ...options });
  const signer = signerFor(engine, profileFor(engine, engine.api.applications()[0]?.id ?? DEMO_APP));
  const client = clientFor(engine, signer.profile);
  return {
    engine,
    client,
    signer,
    stop: async () => {
      await client.close();
      await engine.stop();
    },
  };
}

let counter = 0;
export function paymentBody(overrides: Partial<TransactionRequest> = {}): TransactionRequest {
  counter += 1;
  return {
    payment_method: 'service_demo',
    amount: 5000,
    phone_number: '+237650000001',
    customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
    external_id: `order-${process.pid}-${Date.now()}-${counter}`,
    description: 'Test order',
    metadata: { order: counter },
    ...overrides,
  };
}

/** Resolves when the transaction reaches `status` (checking the stored state first). */
export function waitForStatus(engine: EngineHandle, transactionId: string, status: TransactionStatus, timeoutMs = 10_000): Promise<StatusEvent | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`transaction ${transactionId} did not reach ${status} (now ${engine.control.transaction(transactionId)?.status ?? 'missing'})`));
    }, timeoutMs);
    const unsubscribe = engine.onEvent((event) => {
      if (event.type === 'status' && event.transactionId === transactionId && event.to === status) {
        clearTimeout(timer);
        unsubscribe();
        resolve(event);
      }
    });
    if (engine.control.transaction(transactionId)?.status === status) {
      clearTimeout(timer);
      unsubscribe();
      resolve(null);
    }
  });
}

/** Expects a success result and returns its data. */
export function ok<T>(result: { kind: string; data?: T } & Record<string, unknown>): T {
  if (result.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result.data as T;
}
