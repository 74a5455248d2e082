/**
 * A console in front of a flaky network, for the money-path tests of issue 23: the real engine on
 * its own (so the console can be stopped and started again while the service keeps its state), a
 * gate proxy between them (./gate-proxy.ts) and the console on a saved profile whose secrets are
 * in the real keychain. A short client timeout (3 s), so a held answer becomes a timeout soon.
 */
import { join } from 'node:path';
import { startEngine, type EngineHandle } from '../../packages/sandbox/src/engine';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { createConsoleRuntime, type ConsoleRuntime } from '../../electron/console/runtime';
import { expectOk, tempDir, virtualClock } from './helpers';
import { startGateProxy, type GateProxy } from './gate-proxy';

export interface ProxiedConsole {
  engine: EngineHandle;
  proxy: GateProxy;
  dir: string;
  runtime: ConsoleRuntime;
  /** Stops the console (a graceful close) and starts it again on the same folder and profile. */
  restart(): Promise<ConsoleRuntime>;
  /** Transactions the engine holds for an external id. */
  engineCount(externalId: string): number;
  /** POSTs the proxy saw for an external id. */
  postsFor(externalId: string): number;
  close(): Promise<void>;
}

/**
 * How long the client waits for an answer's headers before it gives up (the outcome is then
 * unknown): far above a loaded machine's answer through the proxy, so only a held answer meets it.
 */
export const HEADERS_TIMEOUT_MS = 3000;

async function consoleOn(dir: string): Promise<ConsoleRuntime> {
  return createConsoleRuntime({
    userDataDir: join(dir, 'console'),
    transport: 'browser',
    allowLive: false,
    version: 'test',
    engine: false,
    clock: virtualClock(),
    // One sweep per burst: the follow-up is observed sweep by sweep, not in a loop of virtual minutes.
    watch: { limitMs: 0 },
    client: { now: Date.now, retry: { attempts: 1 }, timeouts: { headersMs: HEADERS_TIMEOUT_MS } },
  });
}

export async function startProxiedConsole(prefix: string): Promise<ProxiedConsole> {
  const dir = tempDir(prefix);
  const engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir, 'engine.db'), settleMs: 0, rateLimit: { perKeyPerMinute: 0 } });
  const proxy = await startGateProxy(engine.api.url);
  const runtime = await consoleOn(dir);
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name: 'Through a flaky network',
      baseUrl: proxy.url,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));

  const proxied: ProxiedConsole = {
    engine,
    proxy,
    dir,
    runtime,
    async restart() {
      await proxied.runtime.close();
      proxied.runtime = await consoleOn(dir);
      return proxied.runtime;
    },
    engineCount: (externalId) => (engineInternals(engine).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalId) as { n: number }).n,
    postsFor: (externalId) => proxy.seen.filter((request) => request.method === 'POST' && request.externalId === externalId).length,
    async close() {
      await proxied.runtime.close();
      await proxy.close();
      await engine.stop();
    },
  };
  return proxied;
}
