/**
 * Pages of webhook deliveries for the control API and the console: newest first, `limit` per page
 * (default 50, at most 500), and an opaque cursor for the next page that stays valid while new
 * deliveries are added (it marks a position in insertion order, not an offset).
 */
import type Database from 'better-sqlite3';
import { pageDeliveries, toWebhookDelivery, type WebhookDelivery } from './store';

export const DELIVERY_PAGE_DEFAULT_LIMIT = 50;
export const DELIVERY_PAGE_MAX_LIMIT = 500;

/** A delivery as listed: everything but the body (read one delivery for its `payload`). */
export type WebhookDeliverySummary = Omit<WebhookDelivery, 'payload'>;

export interface DeliveryPage {
  deliveries: WebhookDeliverySummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

const CURSOR_PREFIX = 'dlv1.';

export function encodeDeliveryCursor(seq: number): string {
  return CURSOR_PREFIX + Buffer.from(`seq:${seq}`, 'utf8').toString('base64url');
}

/** The position a cursor marks, or null when the text is not a cursor this engine made. */
export function decodeDeliveryCursor(cursor: string): number | null {
  if (!cursor.startsWith(CURSOR_PREFIX) || cursor.length > 64) return null;
  const body = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return null;
  const match = /^seq:([1-9]\d{0,15})$/.exec(Buffer.from(body, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : null;
}

export function deliveryPage(db: Database.Database, options: { appId?: string; limit?: number; cursor?: string }): DeliveryPage {
  const limit = options.limit ?? DELIVERY_PAGE_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > DELIVERY_PAGE_MAX_LIMIT) {
    throw new RangeError(`limit must be a whole number from 1 to ${DELIVERY_PAGE_MAX_LIMIT}, got ${String(limit)}`);
  }
  let beforeSeq: number | undefined;
  if (options.cursor !== undefined) {
    const decoded = decodeDeliveryCursor(options.cursor);
    if (decoded === null) throw new RangeError('cursor is not a nextCursor returned by an earlier page');
    beforeSeq = decoded;
  }
  const { rows, nextSeq } = pageDeliveries(db, { appId: options.appId, limit, beforeSeq });
  return {
    deliveries: rows.map((row) => {
      const { payload: _payload, ...summary } = toWebhookDelivery(db, row);
      return summary;
    }),
    nextCursor: nextSeq === null ? null : encodeDeliveryCursor(nextSeq),
  };
}
