/**
 * How the shaping variants change a transaction object and its envelope: the one place the engine's
 * default answer is bent into nulls-omitted, millisecond-timestamps, extra-fields and unlisted-status
 * (catalogue.ts), for initiate, retrieve, verify and webhook payloads alike.
 */
import type { TransactionKind } from '../events';
import type { ServiceVariantState } from './state';

/** The spec's timestamp form, whose fraction millisecond-timestamps cuts to 3 digits. */
const MICROSECOND_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\d{3}Z$/;
const TIMESTAMP_FIELDS = ['failed_at', 'cancelled_at', 'completed_at', 'created_at', 'updated_at'] as const;
/** The status unlisted-status answers while a transaction is not final. */
export const UNLISTED_PENDING_STATUS = 'pending';

const PATHS: Record<TransactionKind, string> = { payment: '/v1/payments', payout: '/v1/payouts' };

/** `…:00.123456Z` -> `…:00.123Z`; anything else as it is. */
export function toMilliseconds(timestamp: string): string {
  const match = MICROSECOND_TIMESTAMP.exec(timestamp);
  return match ? `${match[1]}Z` : timestamp;
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    kept[key] = typeof field === 'object' && !Array.isArray(field) ? withoutNulls(field as Record<string, unknown>) : field;
  }
  return kept;
}

/** A transaction object as the variants in force answer it (the same object when none shapes it). */
export function shapeTransaction<T extends { transaction_id: string; status: string }>(
  variants: ServiceVariantState,
  transaction: T,
  origin: { kind: TransactionKind; providerRef: string },
): T | Record<string, unknown> {
  if (!variants.shapesTransactions()) return transaction;
  let shaped: Record<string, unknown> = { ...transaction };
  if (variants.has('unlisted-status') && (transaction.status === 'initiated' || transaction.status === 'processing')) {
    shaped.status = UNLISTED_PENDING_STATUS;
  }
  if (variants.has('millisecond-timestamps')) {
    for (const field of TIMESTAMP_FIELDS) {
      const value = shaped[field];
      if (typeof value === 'string') shaped[field] = toMilliseconds(value);
    }
  }
  if (variants.has('extra-fields')) {
    const self = `${PATHS[origin.kind]}/${transaction.transaction_id}`;
    shaped.provider_ref = origin.providerRef;
    shaped.links = { self, verify: `${self}/verify` };
    shaped.risk = { score: 0, checks: ['velocity', 'blocklist'], reviewed: false };
  }
  if (variants.has('nulls-omitted')) shaped = withoutNulls(shaped);
  return shaped;
}

/** A success envelope as the variants in force answer it. */
export function shapeEnvelope<T extends object>(variants: ServiceVariantState, envelope: T): T | Record<string, unknown> {
  if (!variants.has('extra-fields')) return envelope;
  return { ...envelope, meta: { api_version: 'v1', served_by: 'paydesk-sandbox', deprecations: [] } };
}

/** A webhook payload's event timestamp as the variants in force write it. */
export function shapeTimestamp(variants: ServiceVariantState, timestamp: string): string {
  return variants.has('millisecond-timestamps') ? toMilliseconds(timestamp) : timestamp;
}
