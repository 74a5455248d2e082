/**
 * The webhook dispatcher: sends due deliveries outside any API request, records every attempt,
 * and schedules retries on the engine clock (so `clock.advance` makes them due at once).
 *
 * At least once: before an attempt starts, its row is leased (its next attempt time moved past the
 * attempt's timeout). If the engine stops or dies mid-attempt, nothing is recorded and the lease
 * expires, so the next start sends it again. Receivers dedupe on `webhook-id`.
 */
import { Agent, request } from 'undici';
import type { EngineContext } from '../context';
import { takeDuplicate } from './chaos';
import { signWebhook } from './signature';
import {
  disableEndpoint,
  dueDeliveries,
  earliestPending,
  getDelivery,
  recordAttempt,
  toWebhookDelivery,
  updateDelivery,
  webhookEndpoint,
  type DeliveryRow,
} from './store';
import { processLog } from '../log';

export interface WebhookOptions {
  /**
   * Seconds to wait after a failed attempt before the next one; one more attempt than delays.
   * Default [5, 30, 120, 600, 1800]: six attempts over about 42 minutes, the Standard Webhooks
   * schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h...) compressed for a sandbox.
   */
  retryDelaysSeconds?: number[];
  /** Up to this fraction is added to each delay at random (0.2: up to +20 %); never earlier. */
  jitter?: number;
  /** One attempt's limit, connecting included; default 5000 ms. */
  timeoutMs?: number;
  /** Attempts in flight at once; default 4. */
  concurrency?: number;
}

export const DEFAULT_RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1800];

export interface ResolvedWebhookOptions {
  retryDelaysSeconds: number[];
  jitter: number;
  timeoutMs: number;
  concurrency: number;
}

export function resolveWebhookOptions(options: WebhookOptions = {}): ResolvedWebhookOptions {
  const delays = options.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS;
  if (!Array.isArray(delays) || delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new RangeError('webhooks.retryDelaysSeconds must be a list of non-negative numbers of seconds');
  }
  const jitter = options.jitter ?? 0.2;
  if (!Number.isFinite(jitter) || jitter < 0 || jitter > 1) throw new RangeError(`webhooks.jitter must be from 0 to 1, got ${String(jitter)}`);
  const timeoutMs = options.timeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new RangeError(`webhooks.timeoutMs must be a positive whole number, got ${String(timeoutMs)}`);
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`webhooks.concurrency must be a positive whole number, got ${String(concurrency)}`);
  return { retryDelaysSeconds: [...delays], jitter, timeoutMs, concurrency };
}

export interface Dispatcher {
  /** Looks for due deliveries soon (never synchronously: callers may be inside a write). */
  kick(): void;
  stop(): Promise<void>;
}

type Outcome = { httpStatus: number; error: null } | { httpStatus: null; error: string };

const MAX_TIMER_MS = 60_000;
const USER_AGENT = 'Paydesk-Sandbox-Webhooks/1';
const PAUSED_REASON = 'the endpoint answered 410 Gone and is disabled until its URL is set again';

export function createDispatcher(ctx: EngineContext, options: ResolvedWebhookOptions): Dispatcher {
  const agent = new Agent({ connect: { timeout: options.timeoutMs }, keepAliveTimeout: 1000 });
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void>; transactionId: string }>();
  let timer: NodeJS.Timeout | null = null;
  let kicked = false;
  let stopped = false;

  function kick(): void {
    if (stopped || kicked) return;
    kicked = true;
    setImmediate(function pumpWebhooks() {
      kicked = false;
      try {
        pump();
      } catch (error) {
        if (!stopped) processLog.error('engine: webhook dispatch failed', { error });
      }
    });
  }

  function pump(): void {
    if (stopped) return;
    // Only committed deliveries go out: a commit group still open (it can span a few event-loop
    // turns, see context.ts) commits first, so no webhook announces a change that could roll back.
    ctx.flushWrites();
    const now = ctx.clock.nowMicros();
    const free = options.concurrency - inFlight.size;
    if (free > 0) {
      // One send at a time per transaction, oldest first, so a receiver sees `processing` before
      // `completed` unless the earlier one needs a retry (which never holds the later one back).
      const busy = new Set([...inFlight.values()].map((flight) => flight.transactionId));
      let started = 0;
      for (const row of dueDeliveries(ctx.db, now, free + inFlight.size + 50)) {
        if (started >= free) break;
        if (inFlight.has(row.id) || busy.has(row.transaction_id)) continue;
        busy.add(row.transaction_id);
        start(row, now);
        started += 1;
      }
    }
    arm();
  }

  /** One timer, for the earliest pending delivery that can be sent. */
  function arm(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (stopped) return;
    // Rows waiting on an in-flight send of their transaction are kicked when it finishes.
    const busy = new Set([...inFlight.values()].map((flight) => flight.transactionId));
    const next = earliestPending(ctx.db, inFlight.size + 50).find((row) => !inFlight.has(row.id) && !busy.has(row.transaction_id));
    if (!next || inFlight.size >= options.concurrency) return;
    const delayMs = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil((next.next_attempt_at - ctx.clock.nowMicros()) / 1000)));
    timer = setTimeout(kick, delayMs);
    timer.unref();
  }

  function start(row: DeliveryRow, now: number): void {
    const endpoint = webhookEndpoint(ctx.db, row.app_id);
    if (!endpoint || endpoint.url === null || endpoint.disabledAt !== null) {
      ctx.write(() => {
        if (endpoint && endpoint.url !== null) {
          // Disabled by a 410 meanwhile: kept until the URL is set again.
          updateDelivery(ctx.db, { ...row, status: 'paused', next_attempt_at: null, last_error: PAUSED_REASON });
        } else {
          const reason = !endpoint ? 'the application no longer exists' : 'the application has no webhook URL';
          updateDelivery(ctx.db, { ...row, status: 'failed', next_attempt_at: null, finished_at: now, last_error: reason });
        }
        queueChange(row.id);
      });
      return;
    }
    // The lease: if this attempt never finishes (stop, crash), the row is due again after it.
    const lease = now + (options.timeoutMs + 1000) * 1000;
    ctx.write(() => updateDelivery(ctx.db, { ...row, next_attempt_at: lease }));
    const controller = new AbortController();
    const done = attempt(row, lease, endpoint.url, endpoint.secret, now, controller.signal).finally(() => {
      inFlight.delete(row.id);
      kick();
    });
    inFlight.set(row.id, { controller, done, transactionId: row.transaction_id });
  }

  async function attempt(row: DeliveryRow, lease: number, url: string, secret: string, at: number, signal: AbortSignal): Promise<void> {
    // The header is wall-clock time: receivers check it against their own clock, which the
    // engine's advanced clock would fail. The body's `timestamp` is the event's engine time.
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    const outcome = await send(url, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': row.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, row.id, timestamp, row.payload),
    }, row.payload, signal);
    if (stopped || outcome === 'aborted') return;
    const durationMs = Math.round(performance.now() - started);
    ctx.write(() => {
      const current = getDelivery(ctx.db, row.id);
      // Reset to the seed or redelivered meanwhile (the lease is gone): this attempt belongs to nothing any more.
      // Paused meanwhile (another delivery's 410) with the lease kept: the attempt still counts.
      if (!current || (current.status !== 'pending' && current.status !== 'paused') || current.next_attempt_at !== lease) return;
      recordAttempt(ctx.db, { deliveryId: row.id, at, url, httpStatus: outcome.httpStatus, error: outcome.error, durationMs });
      settle(current, outcome);
      queueChange(row.id);
    });
  }

  function settle(row: DeliveryRow, outcome: Outcome): void {
    const now = ctx.clock.nowMicros();
    row.round_attempts += 1;
    if (outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300) {
      if (takeDuplicate(ctx.db, row.id)) {
        // Chaos or a scenario duplicates it: the same message goes out once more, now.
        updateDelivery(ctx.db, { ...row, status: 'pending', round_attempts: 0, next_attempt_at: now, finished_at: null, last_error: null });
        return;
      }
      updateDelivery(ctx.db, { ...row, status: 'delivered', next_attempt_at: null, finished_at: now, last_error: null });
      return;
    }
    const error = outcome.error ?? `HTTP ${String(outcome.httpStatus)}`;
    if (outcome.httpStatus === 410) {
      // Standard Webhooks: 410 Gone means the endpoint is gone; stop sending to it. The deliveries
      // are kept (paused) and go out when the URL is set again: a 410 stops sending, it does not
      // destroy the record.
      updateDelivery(ctx.db, { ...row, status: 'paused', next_attempt_at: null, finished_at: null, last_error: 'HTTP 410 Gone: ' + PAUSED_REASON });
      disableEndpoint(ctx.db, row.app_id, now, PAUSED_REASON);
      return;
    }
    if (row.status === 'paused') {
      // Another delivery's 410 paused this one while it was in flight: it waits with the others.
      updateDelivery(ctx.db, { ...row, next_attempt_at: null, last_error: `${error}; ${PAUSED_REASON}` });
      return;
    }
    const delaySeconds = options.retryDelaysSeconds[row.round_attempts - 1];
    if (delaySeconds === undefined) {
      updateDelivery(ctx.db, { ...row, status: 'failed', next_attempt_at: null, finished_at: now, last_error: `${error} (after ${row.round_attempts} attempts)` });
      return;
    }
    const withJitter = delaySeconds * (1 + Math.random() * options.jitter);
    updateDelivery(ctx.db, { ...row, status: 'pending', next_attempt_at: now + Math.round(withJitter * 1_000_000), finished_at: null, last_error: error });
  }

  function queueChange(deliveryId: string): void {
    const row = getDelivery(ctx.db, deliveryId);
    if (row) ctx.queueEvent({ type: 'extension', topic: 'webhook.delivery', data: toWebhookDelivery(ctx.db, row) });
  }

  async function send(url: string, headers: Record<string, string>, body: string, stopSignal: AbortSignal): Promise<Outcome | 'aborted'> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
    const onStop = () => timeout.abort();
    stopSignal.addEventListener('abort', onStop, { once: true });
    try {
      const response = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal: timeout.signal, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
      // The answer's body is not used, but reading it frees the connection.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { httpStatus: response.statusCode, error: null };
    } catch (error) {
      if (stopSignal.aborted) return 'aborted';
      if (timeout.signal.aborted) return { httpStatus: null, error: `timed out after ${options.timeoutMs} ms` };
      return { httpStatus: null, error: describeNetworkError(error) };
    } finally {
      clearTimeout(timer);
      stopSignal.removeEventListener('abort', onStop);
    }
  }

  return {
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const pending = [...inFlight.values()];
      for (const flight of pending) flight.controller.abort();
      await Promise.allSettled(pending.map((flight) => flight.done));
      await agent.destroy().catch(() => undefined);
    },
  };
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
      return 'host not found';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out waiting for the answer';
    default:
      return code ? `network error ${code}` : `network error: ${(error as Error).message ?? String(error)}`;
  }
}
