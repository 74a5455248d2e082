/**
 * Shared test setup: a console runtime in a temp user-data folder, with the real engine, the real
 * journal file and the real keychain, and a clock whose sleeps move virtual time instead of waiting.
 */
import type { PushEvent, PushEvents, Result } from '../../shared/api';
import type { TransactionRequest } from '../../shared/contract';
import type { EngineHandle } from '../../packages/sandbox/src/engine';
import type { Clock } from '../../electron/console/deps';
import { createConsoleRuntime, type ConsoleRuntime, type ConsoleRuntimeOptions } from '../../electron/console/runtime';
import { makeTempDir } from '../temp-dir';

/** A temp folder removed after the test file (see test/temp-dir.ts). */
export function tempDir(prefix = 'paydesk-console-'): string {
  return makeTempDir(prefix);
}

/** Wall time plus a virtual offset that `sleep` and `advance` move (no real waiting). */
export function virtualClock(): Clock & { advance(ms: number): void; offset(): number } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    async sleep(ms, signal) {
      if (signal?.aborted) throw new Error('aborted');
      offset += ms;
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new Error('aborted');
    },
    advance(ms) {
      offset += ms;
    },
    offset: () => offset,
  };
}

/**
 * A virtual clock whose waits also move `engine`'s minute (its rate-limit window is on its own
 * clock), each wait told to `onWait` first: the console sleeps out a Retry-After with no real waiting.
 */
export function engineMovingClock(engine: EngineHandle, onWait: (ms: number) => void = () => undefined): ReturnType<typeof virtualClock> {
  const clock = virtualClock();
  const sleep = clock.sleep.bind(clock);
  clock.sleep = async (ms, signal) => {
    onWait(ms);
    engine.clock.advance(Math.ceil(ms / 1000));
    return sleep(ms, signal);
  };
  return clock;
}

export async function startRuntime(overrides: Partial<ConsoleRuntimeOptions> = {}): Promise<ConsoleRuntime & { dir: string; clock: ReturnType<typeof virtualClock> }> {
  const dir = overrides.userDataDir ?? tempDir();
  const clock = virtualClock();
  const runtime = await createConsoleRuntime({
    userDataDir: dir,
    transport: 'browser',
    allowLive: true,
    version: '0.0.0-test',
    engine: { settleMs: 3_600_000 },
    clock,
    // Signing uses wall time: the virtual offset would trip the service's 5-minute window.
    client: { now: Date.now, retry: { attempts: 1 } },
    ...overrides,
  });
  return Object.assign(runtime, { dir, clock });
}

export function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message} ${JSON.stringify(result.error.fields ?? {})}`);
  return result.value;
}

export function expectFail<T>(result: Result<T>, code: string) {
  if (result.ok) throw new Error(`expected ${code}, got ok: ${JSON.stringify(result.value).slice(0, 300)}`);
  if (result.error.code !== code) throw new Error(`expected ${code}, got ${result.error.code}: ${result.error.message}`);
  return result.error;
}

/** Resolves with the first push event that matches. */
export function nextEvent<E extends PushEvent>(runtime: ConsoleRuntime, event: E, match: (payload: PushEvents[E]) => boolean): Promise<PushEvents[E]> {
  return new Promise((resolve) => {
    const off = runtime.on(event, (payload) => {
      if (match(payload)) {
        off();
        resolve(payload);
      }
    });
  });
}

export function paymentRequest(overrides: Partial<TransactionRequest> = {}): TransactionRequest {
  return {
    payment_method: 'service_demo',
    amount: 5000,
    phone_number: '+237650000001',
    customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' },
    description: 'Order 1042',
    ...overrides,
  };
}

/**
 * A saved profile on the running engine's sandbox keys (secrets in the keychain), pointed at
 * `baseUrl` (often a gate proxy in front of the engine), made the active one; returns its id.
 * `engine`: the console's own unless the test started one itself (`engine: false`).
 */
export async function activateEngineProfile(runtime: ConsoleRuntime, baseUrl: string, name: string, engine: EngineHandle = runtime.engine!): Promise<string> {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const profile = expectOk(
    await runtime.handlers['profiles:save']({
      name,
      baseUrl,
      environment: 'sandbox',
      headerWord: 'SVC',
      paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
      payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
    }),
  );
  for (const key of keys) expectOk(await runtime.handlers['secrets:set']({ profileId: profile.id, keyType: key.type, secret: key.secretKey }));
  expectOk(await runtime.handlers['profiles:activate']({ id: profile.id }));
  return profile.id;
}
