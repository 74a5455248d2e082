/**
 * Recordings: what the sandbox saw in a period, to share or attach to a bug report. The request
 * inspector's records (public API requests) and the webhook deliveries (every attempt), as a HAR
 * 1.2 file (what browsers and proxies export) or as JSON lines (one record per line).
 *
 * Secrets are redacted: the inspector never holds a secret key (it hides them when it records),
 * webhook signatures are not stored and show as `[redacted]`, and anything shaped like a secret
 * key or a `whsec_` signing secret in a body is replaced again here, whatever its source.
 */
import { authHeaderNames, formatTimestamp, parseTimestamp, type InspectedRequest } from '../../../../shared/contract';
import type { RequestInspector } from '../inspector';
import type { WebhookDelivery } from '../webhooks';

export const RECORDING_FORMATS = ['har', 'jsonl'] as const;
export type RecordingFormat = (typeof RECORDING_FORMATS)[number];

export interface RecordingQuery {
  format: RecordingFormat;
  /** Engine time (API timestamp format); omitted: from the oldest record. */
  from?: string;
  /** Engine time; omitted: up to now. */
  to?: string;
  /** Only this application's webhook deliveries; omitted: all. */
  appId?: string;
}

export interface Recording {
  contentType: string;
  fileName: string;
  body: string;
  /** How many requests and webhook deliveries it holds. */
  counts: { requests: number; deliveries: number };
}

export const REDACTED = '[redacted]';
const SECRET_PATTERNS = [/(?<![A-Za-z0-9])sk_(?:sandbox|live)_[A-Za-z0-9_]{6,}/g, /whsec_[A-Za-z0-9+/=]{8,}/g, /(?<![A-Za-z0-9])v1,[A-Za-z0-9+/]{20,}={0,2}/g];

export function redactSecrets(text: string): string {
  let clean = text;
  for (const pattern of SECRET_PATTERNS) clean = clean.replace(pattern, REDACTED);
  return clean;
}

interface HarHeader {
  name: string;
  value: string;
}

function harHeaders(headers: Record<string, string | null>): HarHeader[] {
  return Object.entries(headers)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => ({ name, value: redactSecrets(value) }));
}

function queryString(query: string): HarHeader[] {
  if (query === '') return [];
  return [...new URLSearchParams(query)].map(([name, value]) => ({ name, value: redactSecrets(value) }));
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 410: 'Gone', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' };

function requestEntry(record: InspectedRequest, baseUrl: string, headerWord: string): Record<string, unknown> {
  const url = `${baseUrl}${record.path}${record.query === '' ? '' : `?${record.query}`}`;
  const names = authHeaderNames(headerWord);
  const headers = harHeaders({
    [names.authorization]: record.publicKey,
    [names.environment]: record.environment,
    // The inspector never keeps the signature; its presence is not known either.
  });
  return {
    startedDateTime: new Date(Date.parse(record.at) - Math.round(record.durationMs)).toISOString(),
    time: record.durationMs,
    request: {
      method: record.method,
      url: redactSecrets(url),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers,
      queryString: queryString(record.query),
      ...(record.bodyLength > 0 ? { postData: { mimeType: 'application/json', text: redactSecrets(record.body) } } : {}),
      headersSize: -1,
      bodySize: record.bodyLength,
    },
    response: {
      status: record.status,
      statusText: STATUS_TEXT[record.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: -1, mimeType: 'application/json', ...(record.code === null ? {} : { comment: `error code ${record.code}` }) },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: record.durationMs, receive: 0 },
    comment: record.diagnosis === null ? `request ${record.id}` : `request ${record.id}: authentication failed at the ${record.diagnosis.check} check`,
    _paydesk: { kind: 'request', id: record.id, remoteAddress: record.remoteAddress, bodyTruncated: record.bodyTruncated, diagnosis: record.diagnosis },
  };
}

function deliveryEntries(delivery: WebhookDelivery): Record<string, unknown>[] {
  return delivery.attempts.map((attempt, index) => ({
    startedDateTime: new Date(Date.parse(attempt.at)).toISOString(),
    time: attempt.durationMs,
    request: {
      method: 'POST',
      url: attempt.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders({ 'content-type': 'application/json', 'webhook-id': delivery.id, 'webhook-signature': REDACTED }),
      queryString: [],
      postData: { mimeType: 'application/json', text: redactSecrets(delivery.payload) },
      headersSize: -1,
      bodySize: Buffer.byteLength(delivery.payload),
    },
    response: {
      status: attempt.httpStatus ?? 0,
      statusText: attempt.httpStatus === null ? '' : (STATUS_TEXT[attempt.httpStatus] ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: -1, mimeType: 'text/plain' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...(attempt.error === null ? {} : { _error: attempt.error }),
    },
    cache: {},
    timings: { send: 0, wait: attempt.durationMs, receive: 0 },
    comment: `webhook ${delivery.eventType}, attempt ${index + 1} of delivery ${delivery.id}${delivery.chaos.length > 0 ? `; ${delivery.chaos.map((c) => c.note).join('; ')}` : ''}`,
    _paydesk: { kind: 'webhook', deliveryId: delivery.id, transactionId: delivery.transactionId, status: delivery.status, chaos: delivery.chaos },
  }));
}

function inPeriod(at: string, from: number | null, to: number | null): boolean {
  const micros = parseTimestamp(at);
  if (micros === null) return false;
  return (from === null || micros >= from) && (to === null || micros <= to);
}

/** Builds a recording; `from`/`to` must already be valid timestamps (the route checks them). */
export function buildRecording(
  sources: { inspector: RequestInspector; deliveries: (appId?: string) => WebhookDelivery[]; baseUrl: string; headerWord: string; now: number },
  query: RecordingQuery,
): Recording {
  const from = query.from === undefined ? null : parseTimestamp(query.from);
  const to = query.to === undefined ? null : parseTimestamp(query.to);
  const requests = sources.inspector.capacity === 0 ? [] : sources.inspector.list({ limit: sources.inspector.capacity }).requests.filter((record) => inPeriod(record.at, from, to)).reverse();
  const deliveries = sources.deliveries(query.appId).filter((delivery) => inPeriod(delivery.createdAt, from, to));
  const counts = { requests: requests.length, deliveries: deliveries.length };
  const stamp = formatTimestamp(sources.now).replace(/[^0-9]/g, '').slice(0, 14);
  if (query.format === 'jsonl') {
    const lines = [
      ...requests.map((record) => ({ type: 'request', at: record.at, record })),
      ...deliveries.map((delivery) => ({ type: 'webhook', at: delivery.createdAt, record: { ...delivery, payload: delivery.payload } })),
    ].sort((a, b) => (parseTimestamp(a.at) ?? 0) - (parseTimestamp(b.at) ?? 0));
    const body = lines.map((line) => redactSecrets(JSON.stringify(line))).join('\n') + (lines.length > 0 ? '\n' : '');
    return { contentType: 'application/x-ndjson; charset=utf-8', fileName: `paydesk-sandbox-${stamp}.jsonl`, body, counts };
  }
  const entries = [...requests.map((record) => requestEntry(record, sources.baseUrl, sources.headerWord)), ...deliveries.flatMap(deliveryEntries)].sort(
    (a, b) => Date.parse(a.startedDateTime as string) - Date.parse(b.startedDateTime as string),
  );
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'Paydesk sandbox', version: '1' },
      pages: [],
      entries,
      comment: `Public API requests (request inspector) and webhook attempts${query.from || query.to ? ` from ${query.from ?? 'the start'} to ${query.to ?? 'now'}` : ''}; secrets redacted.`,
    },
  };
  return { contentType: 'application/json; charset=utf-8', fileName: `paydesk-sandbox-${stamp}.har`, body: JSON.stringify(har, null, 2), counts };
}
