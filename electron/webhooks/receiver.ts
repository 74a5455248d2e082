/**
 * The service's webhooks, received (issue 38 item 3): a callback is a trigger to read the
 * service, never the truth (docs/decisions/webhooks-are-triggers.md). What it names (a transaction
 * id, else an external id) is handed to `follow`, which reads the service with a signed GET and
 * records what the service says; nothing of the callback's body is ever written. So a forged,
 * repeated or out-of-order callback changes nothing the service does not say, and a flood is
 * bounded:
 * - a reference already waiting or being read is not read twice (one trailing read after the
 *   running one, so a change that arrives mid-read is not missed);
 * - a reference read less than `minIntervalMs` ago is read once more when that time is up;
 * - at most `maxWaiting` references wait at once; beyond that the callback is answered 429 with
 *   Retry-After (a sender retries it later, and the follow-up sweep catches up anyway);
 * - at most `concurrency` reads at once.
 *
 * The spec does not show the payload's shape nor how deliveries are signed (service-interface.md
 * section 6): the reader takes `data.transaction_id`/`transaction_id` and `data.external_id`/
 * `external_id` wherever they are, the kind from a `payout.`/`payment.` event type. When a signing
 * secret is set (Standard Webhooks `whsec_…`, as the sandbox signs), an unsigned or badly signed
 * delivery is refused 401 before anything is read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TransactionKind } from '../../shared/api';
import type { FollowReference } from '../console/sweeper';

export const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;
const SIGNATURE_TOLERANCE_S = 5 * 60;

export interface WebhookReceiverOptions {
  /** Reads the service for what the reference names and records it; resolves with the entries read. */
  follow(reference: FollowReference): Promise<number>;
  /** Standard Webhooks secret (`whsec_…`); absent: deliveries are not signature-checked (the spec shows no signing). */
  secret?: string;
  maxWaiting?: number;
  concurrency?: number;
  minIntervalMs?: number;
  now?: () => number;
  logger?: { warn(message: string, fields?: Record<string, unknown>): void; info(message: string, fields?: Record<string, unknown>): void };
}

export interface WebhookStats {
  /** Callbacks accepted (2xx). */
  received: number;
  /** Reads started through `follow`. */
  reads: number;
  /** Callbacks folded into a read already waiting or running. */
  coalesced: number;
  /** Callbacks refused: bad body 400, bad signature 401, too large 413, too many waiting 429. */
  refused: { badBody: number; badSignature: number; tooLarge: number; tooMany: number };
}

export interface WebhookReceiver {
  /** A node:http handler for POST requests at the receiver's path. */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Takes a parsed callback body (tests, other transports); same answer codes as `handle`. */
  accept(body: unknown): { status: 202 | 400 | 429; message: string };
  /** Resolves when nothing waits and nothing is being read. */
  idle(): Promise<void>;
  stats(): WebhookStats;
  close(): void;
}

interface Waiting {
  reference: FollowReference;
  running: boolean;
  /** Another callback came while it ran: read once more after it. */
  again: boolean;
  timer: NodeJS.Timeout | null;
}

/** The reference a callback names, or a precise reason it names none. */
export function referenceOf(body: unknown): FollowReference | { error: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { error: 'the callback body is not a JSON object' };
  const top = body as Record<string, unknown>;
  const data = top.data !== null && typeof top.data === 'object' && !Array.isArray(top.data) ? (top.data as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' && value.length <= 200 ? value.trim() : undefined);
  const transactionId = text(data.transaction_id) ?? text(top.transaction_id);
  const externalId = text(data.external_id) ?? text(top.external_id);
  if (!transactionId && !externalId) return { error: 'the callback names no transaction_id nor external_id' };
  const type = text(top.type) ?? text(top.event) ?? '';
  const kind: TransactionKind | undefined = type.startsWith('payout.') ? 'payout' : type.startsWith('payment.') ? 'payment' : undefined;
  return { ...(transactionId ? { transactionId } : {}), ...(externalId ? { externalId } : {}), ...(kind ? { kind } : {}) };
}

function keyOf(reference: FollowReference): string {
  return reference.transactionId ? `tx:${reference.transactionId}` : `ext:${reference.kind ?? '*'}:${reference.externalId ?? ''}`;
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256("{id}.{timestamp}.{body}")>` keyed with the secret's base64 part; any listed signature may match. */
export function verifySignature(secret: string, headers: { id?: string; timestamp?: string; signature?: string }, body: string, nowSeconds: number): string | null {
  if (!headers.id || !headers.timestamp || !headers.signature) return 'the webhook-id, webhook-timestamp and webhook-signature headers are required';
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || timestamp <= 0) return 'webhook-timestamp is not a Unix time in seconds';
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_S) return 'webhook-timestamp is more than 5 minutes from now';
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${headers.id}.${timestamp}.${body}`).digest('base64'));
  for (const part of headers.signature.split(' ')) {
    const [version, mac] = part.split(',');
    if (version !== 'v1' || !mac) continue;
    const given = Buffer.from(mac);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no webhook-signature matches this body';
}

export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const maxWaiting = options.maxWaiting ?? 1_000;
  const concurrency = options.concurrency ?? 4;
  const minIntervalMs = options.minIntervalMs ?? 1_000;
  const now = options.now ?? Date.now;
  const waiting = new Map<string, Waiting>();
  /** When each reference was last read (pruned once older than minIntervalMs). */
  const lastRead = new Map<string, number>();
  const queue: string[] = [];
  let active = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];
  const stats: WebhookStats = { received: 0, reads: 0, coalesced: 0, refused: { badBody: 0, badSignature: 0, tooLarge: 0, tooMany: 0 } };

  function settleIdle(): void {
    if (waiting.size > 0 || active > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function pump(): void {
    while (!closed && active < concurrency && queue.length > 0) {
      const key = queue.shift()!;
      const item = waiting.get(key);
      if (!item) continue;
      item.running = true;
      active += 1;
      stats.reads += 1;
      lastRead.set(key, now());
      void options
        .follow(item.reference)
        .catch((error: unknown) => options.logger?.warn('webhook: reading the service for a callback failed', { error: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          active -= 1;
          item.running = false;
          if (item.again && !closed) {
            item.again = false;
            schedule(key, item);
          } else {
            waiting.delete(key);
          }
          pump();
          settleIdle();
        });
    }
  }

  /** Into the queue now, or when its last read is minIntervalMs old. */
  function schedule(key: string, item: Waiting): void {
    const last = lastRead.get(key);
    const wait = last === undefined ? 0 : last + minIntervalMs - now();
    if (wait <= 0) {
      queue.push(key);
      pump();
      return;
    }
    item.timer = setTimeout(() => {
      item.timer = null;
      queue.push(key);
      pump();
    }, wait);
    item.timer.unref?.();
  }

  function prune(): void {
    if (lastRead.size < maxWaiting * 4) return;
    const before = now() - minIntervalMs;
    for (const [key, at] of lastRead) if (at < before && !waiting.has(key)) lastRead.delete(key);
  }

  function accept(body: unknown): { status: 202 | 400 | 429; message: string } {
    const reference = referenceOf(body);
    if ('error' in reference) {
      stats.refused.badBody += 1;
      return { status: 400, message: reference.error };
    }
    const key = keyOf(reference);
    const held = waiting.get(key);
    if (held) {
      // Waiting: this callback is the same read. Running: one more read after it.
      if (held.running) held.again = true;
      stats.coalesced += 1;
      stats.received += 1;
      return { status: 202, message: 'accepted: the service will be read for it' };
    }
    if (waiting.size >= maxWaiting) {
      stats.refused.tooMany += 1;
      return { status: 429, message: `too many callbacks waiting (${maxWaiting}): retry later` };
    }
    prune();
    const item: Waiting = { reference, running: false, again: false, timer: null };
    waiting.set(key, item);
    stats.received += 1;
    schedule(key, item);
    return { status: 202, message: 'accepted: the service will be read for it' };
  }

  function answer(response: ServerResponse, status: number, message: string, extra: Record<string, string> = {}): void {
    response.writeHead(status, { 'content-type': 'application/json', ...extra });
    response.end(JSON.stringify({ success: status < 300, message }));
  }

  return {
    accept,
    handle(request, response) {
      if (request.method !== 'POST') return answer(response, 405, 'POST a callback here', { allow: 'POST' });
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > WEBHOOK_BODY_LIMIT_BYTES) tooLarge = true;
        else chunks.push(chunk);
      });
      request.on('error', () => answer(response, 400, 'the callback could not be read'));
      request.on('end', () => {
        if (tooLarge) {
          stats.refused.tooLarge += 1;
          return answer(response, 413, `a callback is at most ${WEBHOOK_BODY_LIMIT_BYTES} bytes`);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        if (options.secret) {
          const header = (name: string) => {
            const value = request.headers[name];
            return Array.isArray(value) ? value[0] : value;
          };
          const refusal = verifySignature(options.secret, { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature') }, raw, Math.floor(now() / 1000));
          if (refusal) {
            stats.refused.badSignature += 1;
            options.logger?.warn('webhook: a delivery was refused', { reason: refusal });
            return answer(response, 401, refusal);
          }
        }
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          stats.refused.badBody += 1;
          return answer(response, 400, 'the callback body is not JSON');
        }
        const result = accept(body);
        answer(response, result.status, result.message, result.status === 429 ? { 'retry-after': '60' } : {});
      });
    },
    idle() {
      if (waiting.size === 0 && active === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    stats: () => structuredClone(stats),
    close() {
      closed = true;
      for (const item of waiting.values()) if (item.timer) clearTimeout(item.timer);
      for (const [key, item] of waiting) if (!item.running) waiting.delete(key);
      queue.length = 0;
      settleIdle();
    },
  };
}
