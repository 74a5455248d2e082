/**
 * The request inspector: the last N public API requests the engine answered (a ring buffer in
 * memory, nothing on disk), each with its status, error code, duration, the public key used and,
 * for an authentication failure, a diagnosis (see diagnose.ts). Every recorded request is also
 * published as an extension event with topic `request` (the `/_sandbox/events` stream and the
 * console's `onEvent`).
 *
 * Recorded: everything except the control API (`/_sandbox/...`) and `/openapi.json`, so the public
 * API and requests to unknown paths (404s, often a developer's wrong URL) are kept, and the
 * tools that read the inspector do not flood it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authHeaderNames, formatTimestamp, type InspectedPage, type InspectedRequest } from '../../../../shared/contract';
import { splitTarget } from '../signing';
import { normalizeAddress } from '../net/loopback';
import { AuthFailure, type AuthFailureDetail } from '../auth/auth';
import type { EngineContext } from '../context';
import { diagnose, knownSecrets } from './diagnose';
import { processLog } from '../log';

export const DEFAULT_INSPECTOR_SIZE = 500;
export const MAX_INSPECTOR_SIZE = 100_000;
export const REQUEST_EVENT_TOPIC = 'request';

const MAX_PATH_SHOWN = 500;
const MAX_QUERY_SHOWN = 2000;
const MAX_BODY_SHOWN = 4096;
/** Secret keys as this engine makes them (`sk_<env>_<type>_…`), hidden even once rotated away. */
const SECRET_SHAPE = /(?<![A-Za-z0-9])sk_(?:sandbox|live)_[A-Za-z0-9_]{6,}/g;
const SECRET_SHAPE_TEST = new RegExp(SECRET_SHAPE.source);
const HIDDEN = '[secret key hidden]';

/** A status class (`4xx`) or one exact status. */
export type StatusFilter = number | `${1 | 2 | 3 | 4 | 5}xx`;

export interface InspectorQuery {
  limit: number;
  /** Only requests older than this sequence number (the previous page's `nextCursor`). */
  cursor?: number;
  status?: StatusFilter;
  /** The public key sent. */
  key?: string;
}

export interface RequestInspector {
  readonly capacity: number;
  /** Adds the hooks that record every answered request (no hooks at all when the capacity is 0). */
  install(app: FastifyInstance): void;
  list(query: InspectorQuery): InspectedPage;
  get(id: string): InspectedRequest | null;
}

export function checkInspectorSize(size: number): number {
  if (!Number.isInteger(size) || size < 0 || size > MAX_INSPECTOR_SIZE) {
    throw new RangeError(`inspectorSize must be a whole number from 0 to ${MAX_INSPECTOR_SIZE}, got ${String(size)}`);
  }
  return size;
}

function matchesStatus(status: number, filter: StatusFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'number') return status === filter;
  return Math.floor(status / 100) === Number(filter[0]);
}

export function createInspector(ctx: EngineContext, capacity: number, headerWord: string): RequestInspector {
  checkInspectorSize(capacity);
  // Slots (see `Slot`, below) hold each request's facts until its entry is first read.
  const ring: ({ seq: number; status: number; entry(): InspectedRequest } | undefined)[] = new Array(capacity);
  let seq = 0;
  const failures = new WeakMap<FastifyRequest, AuthFailureDetail>();
  const codes = new WeakMap<FastifyRequest, string>();
  const authorizationHeader = authHeaderNames(headerWord).authorization.toLowerCase();
  const environmentHeader = authHeaderNames(headerWord).environment.toLowerCase();

  /**
   * A record is built when something reads it (the list, one request, a listener of the `request`
   * event), not while the request is answered: a busy API pays for the facts it keeps (a few
   * strings), not for shaping and scrubbing entries nobody looks at. The secrets to hide are the
   * ones known when the request was answered, so a later key rotation changes nothing.
   */
  function scrub(text: string, secrets: readonly string[]): string {
    let clean = SECRET_SHAPE_TEST.test(text) ? text.replace(SECRET_SHAPE, HIDDEN) : text;
    for (const secret of secrets) if (clean.includes(secret)) clean = clean.split(secret).join(HIDDEN);
    return clean;
  }

  function isSecret(value: string, secrets: readonly string[]): boolean {
    return SECRET_SHAPE_TEST.test(value) || secrets.includes(value);
  }

  /** What `record` keeps of a request: enough to build its entry later, exactly as it would have been built then. */
  interface Facts extends Pick<InspectedRequest, 'seq' | 'method' | 'path' | 'query' | 'status' | 'code' | 'durationMs'> {
    atMicros: number;
    sentKey: string;
    environment: string | string[] | undefined;
    bodyLength: number;
    /** At most MAX_BODY_SHOWN bytes, as text. */
    body: string;
    remoteAddress: string | undefined;
    detail: AuthFailureDetail | undefined;
    secrets: readonly string[];
  }

  function build(facts: Facts): InspectedRequest {
    const { secrets, sentKey } = facts;
    const secretSent = sentKey !== '' && isSecret(sentKey, secrets);
    let diagnosis = facts.detail === undefined ? null : diagnose(ctx.db, facts.detail, facts.query);
    if (diagnosis?.check === 'api-key' && secretSent) diagnosis = { ...diagnosis, reason: 'secret-sent' };
    if (diagnosis !== null) diagnosis = JSON.parse(scrub(JSON.stringify(diagnosis), secrets)) as InspectedRequest['diagnosis'];
    return {
      id: `req_${facts.seq}`,
      seq: facts.seq,
      at: formatTimestamp(facts.atMicros),
      method: facts.method,
      path: scrub(facts.path.slice(0, MAX_PATH_SHOWN), secrets),
      query: scrub(facts.query.slice(0, MAX_QUERY_SHOWN), secrets),
      status: facts.status,
      code: facts.code,
      durationMs: Math.round(facts.durationMs * 10) / 10,
      publicKey: sentKey === '' || secretSent ? null : scrub(sentKey.slice(0, 200), secrets),
      environment: facts.environment === 'sandbox' || facts.environment === 'live' ? facts.environment : null,
      bodyLength: facts.bodyLength,
      body: facts.body === '' ? '' : scrub(facts.body, secrets),
      bodyTruncated: facts.bodyLength > MAX_BODY_SHOWN,
      remoteAddress: normalizeAddress(facts.remoteAddress),
      diagnosis,
    };
  }

  /** A ring slot: the facts until the entry is first read, then the entry. */
  class Slot {
    private built: InspectedRequest | null = null;
    constructor(
      readonly seq: number,
      readonly status: number,
      private facts: Facts | null,
    ) {}

    entry(): InspectedRequest {
      if (this.built === null) {
        this.built = build(this.facts as Facts);
        this.facts = null;
      }
      return this.built;
    }
  }

  function record(request: FastifyRequest, status: number, durationMs: number): void {
    const { path, query } = splitTarget(request.raw.url ?? request.url);
    if (path === '/openapi.json' || path === '/_sandbox' || path.startsWith('/_sandbox/')) return;
    const header = request.headers[authorizationHeader];
    const body = Buffer.isBuffer(request.body) ? request.body : null;
    seq += 1;
    // A diagnosis reads key rows as they are now (a failure is rare): built at once, scrubbed when read.
    const detail = failures.get(request);
    const slot = new Slot(seq, status, {
      seq,
      atMicros: ctx.clock.nowMicros(),
      method: request.method,
      path,
      query,
      status,
      code: status >= 400 ? (codes.get(request) ?? null) : null,
      durationMs,
      sentKey: (Array.isArray(header) ? header[0] : header)?.trim() ?? '',
      environment: request.headers[environmentHeader],
      bodyLength: body === null ? 0 : body.length,
      body: body === null || body.length === 0 ? '' : body.toString('utf8', 0, Math.min(body.length, MAX_BODY_SHOWN)),
      remoteAddress: request.socket.remoteAddress,
      detail,
      secrets: knownSecrets(ctx.db),
    });
    if (detail !== undefined) slot.entry();
    ring[(seq - 1) % capacity] = slot;
    // The event's data is the entry, built on first read (JSON.stringify and property reads alike).
    ctx.queueEvent({
      type: 'extension',
      topic: REQUEST_EVENT_TOPIC,
      get data() {
        return slot.entry();
      },
    });
  }

  /** Newest first. */
  function* newestFirst(before: number): Generator<{ seq: number; status: number; entry(): InspectedRequest }> {
    const oldest = Math.max(1, seq - capacity + 1);
    for (let at = Math.min(seq, before - 1); at >= oldest; at -= 1) {
      const slot = ring[(at - 1) % capacity];
      if (slot !== undefined && slot.seq === at) yield slot;
    }
  }

  return {
    capacity,
    install(app) {
      if (capacity === 0) return;
      app.addHook('onError', function rememberAuthFailure(request, _reply, error, done) {
        if (error instanceof AuthFailure) failures.set(request, error.detail);
        done();
      });
      app.addHook('onSend', function rememberErrorCode(request, reply, payload, done) {
        if (reply.statusCode >= 400 && typeof payload === 'string') {
          const code = /"code":"([A-Z0-9_]{1,64})"/.exec(payload)?.[1];
          if (code !== undefined) codes.set(request, code);
        }
        done(null, payload);
      });
      app.addHook('onResponse', function recordRequest(request, reply, done) {
        try {
          record(request, reply.statusCode, reply.elapsedTime);
        } catch (error) {
          // The inspector must never break the API; a failure here is a bug to report.
          processLog.error('engine: the request inspector failed', { error });
        }
        done();
      });
    },
    list(query) {
      const requests: InspectedRequest[] = [];
      let more = false;
      for (const slot of newestFirst(query.cursor ?? Number.MAX_SAFE_INTEGER)) {
        if (!matchesStatus(slot.status, query.status)) continue;
        const entry = slot.entry();
        if (query.key !== undefined && entry.publicKey !== query.key) continue;
        if (requests.length === query.limit) {
          more = true;
          break;
        }
        requests.push(entry);
      }
      const last = requests.at(-1);
      return { requests, nextCursor: more && last ? String(last.seq) : null, capacity };
    },
    get(id) {
      const match = /^req_([1-9]\d{0,15})$/.exec(id);
      if (!match || capacity === 0) return null;
      const at = Number(match[1]);
      const slot = ring[(at - 1) % capacity];
      return slot !== undefined && slot.seq === at ? slot.entry() : null;
    },
  };
}
