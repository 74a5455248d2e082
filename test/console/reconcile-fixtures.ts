/**
 * Reconciliation test setup: a console runtime whose clock IS the engine's clock (a sleep moves
 * engine time, so a 429's Retry-After really passes for the engine's rate limit without waiting),
 * a client of the engine's public API for creating the merchant's transactions, the control API
 * for settling them, and the file upload through the console's channels.
 */
import { rmSync } from 'node:fs';
import type { ChannelInput, ReconcileProgress, ReconciliationSummary } from '../../shared/api';
import { RECONCILE_PART_CHARS } from '../../shared/api/reconcile';
import type { TransactionRequest } from '../../shared/contract';
import { createClient, type PaydeskClient } from '../../electron/client';
import type { Clock } from '../../electron/console/deps';
import type { ConsoleRuntime } from '../../electron/console/runtime';
import { expectOk, paymentRequest, startRuntime, tempDir } from './helpers';

export type Runtime = ConsoleRuntime & { dir: string };

/** A runtime on the engine's clock. `dir` reuses a user-data folder (a restart). */
export async function startEngineTimeRuntime(dir = tempDir('paydesk-reconcile-')): Promise<Runtime> {
  let runtime: ConsoleRuntime | null = null;
  const engineNow = () => (runtime?.engine ? runtime.engine.clock.nowMicros() / 1000 : Date.now());
  const clock: Clock = {
    now: engineNow,
    async sleep(ms, signal) {
      if (signal?.aborted) throw new Error('aborted');
      runtime?.engine?.clock.advance(ms / 1000);
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw new Error('aborted');
    },
  };
  // The console lives on engine time; its client signs with real time, as against the real service.
  runtime = await startRuntime({ userDataDir: dir, clock, client: { now: Date.now, retry: { attempts: 1 } }, watch: { limitMs: 0 } });
  return runtime as Runtime;
}

export async function closeRuntime(runtime: Runtime | undefined, removeDir = true): Promise<void> {
  if (!runtime) return;
  await runtime.close();
  if (removeDir) rmSync(runtime.dir, { recursive: true, force: true });
}

/** The merchant's own backend: a client of the engine's public API with the sandbox keys. */
export function merchantClient(runtime: Runtime): PaydeskClient {
  const engine = runtime.engine!;
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  const key = (type: 'payment' | 'payout') => keys.find((k) => k.type === type)!;
  return createClient(
    { baseUrl: engine.api.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: key('payment').publicKey, payoutPublicKey: key('payout').publicKey },
    async (publicKey) => keys.find((k) => k.publicKey === publicKey)!.secretKey,
    { now: () => engine.clock.wallSeconds() * 1000, retry: { attempts: 1 } },
  );
}

/**
 * Creates a transaction as the merchant's backend would. A 429 means it was not created (the
 * limit is checked before anything else), so the engine's clock is moved past Retry-After and
 * the same request sent again.
 */
export async function createAtService(runtime: Runtime, client: PaydeskClient, kind: 'payment' | 'payout', request: TransactionRequest): Promise<string> {
  const clock = runtime.engine!.clock;
  for (;;) {
    const sentMinute = Math.floor(clock.nowSeconds() / 60);
    const result = kind === 'payment' ? await client.createPayment(request) : await client.initiatePayout(request);
    if (result.kind === 'success') return result.data.transaction_id;
    if (result.kind === 'api-error' && result.httpStatus === 429) {
      // Several creators are told at once: only one moves the clock (to the next one-minute
      // window), or it would run past the 5-minute timestamp window of requests in flight.
      if (Math.floor(clock.nowSeconds() / 60) === sentMinute) runtime.engine!.clock.advance(result.retryAfterSeconds ?? 1);
      continue;
    }
    throw new Error(`create failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

/** Settles a transaction now through the control API (the provider decides; +237650000008 stays processing). */
export async function settleViaControlApi(runtime: Runtime, transactionId: string): Promise<string> {
  const engine = runtime.engine!;
  const response = await fetch(`${engine.api.url}/_sandbox/transactions/${transactionId}/settle`, {
    method: 'POST',
    headers: { authorization: `Bearer ${engine.control.adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await response.json()) as { data?: { status?: string } };
  if (!response.ok) throw new Error(`settle ${transactionId}: ${response.status} ${JSON.stringify(body)}`);
  return body.data?.status ?? 'unknown';
}

/** Runs `work` over `items` with `concurrency` at once. */
export async function inParallel<T>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

export function request(externalId: string, amount: number, phone: string): TransactionRequest {
  return paymentRequest({ external_id: externalId, amount, phone_number: phone, payment_method: 'momo_cm' });
}

/** Sends a file through the console's channels in parts, as the renderer does, and imports it. */
export async function importFile(runtime: Runtime, text: string, options: Omit<ChannelInput<'reconcile:import'>, 'uploadId'> = {}) {
  const { uploadId } = expectOk(await runtime.handlers['reconcile:begin']({ fileName: 'orders.csv' }));
  for (let at = 0; at < text.length; at += RECONCILE_PART_CHARS) {
    expectOk(await runtime.handlers['reconcile:append']({ uploadId, text: text.slice(at, at + RECONCILE_PART_CHARS) }));
  }
  return expectOk(await runtime.handlers['reconcile:import']({ uploadId, ...options }));
}

/** Resolves with the first progress event that leaves the run in one of `statuses`. */
export function untilStatus(runtime: Runtime, statuses: ReconcileProgress['status'][]): Promise<ReconcileProgress> {
  return new Promise((resolve) => {
    const off = runtime.on('reconcile:progress', (event) => {
      if (statuses.includes(event.status)) {
        off();
        resolve(event);
      }
    });
  });
}

/** Imports and waits until the run is done; answers the finished summary. */
export async function reconcile(runtime: Runtime, text: string, options: Omit<ChannelInput<'reconcile:import'>, 'uploadId'> = {}): Promise<ReconciliationSummary> {
  const finished = untilStatus(runtime, ['done', 'cancelled', 'interrupted']);
  const imported = await importFile(runtime, text, options);
  if (!imported.accepted) throw new Error(`not accepted: ${JSON.stringify(imported.errors.slice(0, 5))}`);
  await finished;
  return expectOk(await runtime.handlers['reconcile:get']({ id: imported.reconciliation.id }));
}
