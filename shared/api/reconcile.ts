/**
 * Reconciliation: the merchant's own records (a CSV file) matched against the journal and the
 * service. Channel inputs, result types and the vocabulary both sides share.
 */
import { z } from 'zod';
import { isFinalStatus, type Environment, type ServiceStatus } from '../contract/codes';
import { LANGUAGES } from '../i18n/types';
import { RECONCILE_PART_CHARS } from './plain';

/** Largest file, in data rows. */
export const RECONCILE_MAX_ROWS = 100_000;
export { RECONCILE_PART_CHARS };
/** Largest file in characters (about 100,000 rows of 160 characters). */
export const RECONCILE_MAX_CHARS = 16_000_000;
/** Rows the import answers errors for (the count covers all of them). */
export const RECONCILE_MAX_ERRORS = 200;
/** Default for "still processing after N minutes". */
export const DEFAULT_PROCESSING_MINUTES = 30;
/** Service look-ups in flight at once. */
export const DEFAULT_RECONCILE_CONCURRENCY = 4;

/**
 * Report categories, in the order the report shows them.
 * - matched: the service has it, same amount, status as expected (or no status expected);
 * - amount_differs: the service has it with another amount;
 * - status_differs: the status the merchant expects is not the service's final status;
 * - missing_at_service: neither the journal nor the service knows this external id;
 * - unknown_to_merchant: in the journal for the period, not in the file;
 * - duplicate_in_records: the file's later row with the same kind and external id as an earlier
 *   one (the earlier row is matched; this one is not looked up, its note names the earlier row);
 * - still_processing: processing at the service for at least N minutes;
 * - processing_recent: processing, younger than N minutes (not yet a concern);
 * - not_checked: the service could not be asked (an error, or no payout look-up on that service).
 */
export const RECONCILE_CATEGORIES = [
  'matched',
  'amount_differs',
  'status_differs',
  'missing_at_service',
  'unknown_to_merchant',
  'duplicate_in_records',
  'still_processing',
  'processing_recent',
  'not_checked',
] as const;
export type ReconcileCategory = (typeof RECONCILE_CATEGORIES)[number];

/**
 * What the merchant's "expected status" means. `not_completed` (unpaid) is satisfied by failed
 * or cancelled; `processing` by a transaction still processing.
 */
export type ExpectedStatus = 'completed' | 'failed' | 'cancelled' | 'processing' | 'not_completed';

/** Words accepted in the expected-status column (trimmed, case and accents ignored). */
export const EXPECTED_STATUS_WORDS: Readonly<Record<string, ExpectedStatus>> = {
  completed: 'completed',
  paid: 'completed',
  success: 'completed',
  successful: 'completed',
  succeeded: 'completed',
  paye: 'completed',
  reussi: 'completed',
  failed: 'failed',
  declined: 'failed',
  echoue: 'failed',
  echec: 'failed',
  refuse: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  annule: 'cancelled',
  processing: 'processing',
  pending: 'processing',
  initiated: 'processing',
  'en cours': 'processing',
  'en attente': 'processing',
  unpaid: 'not_completed',
  'not paid': 'not_completed',
  impaye: 'not_completed',
  'non paye': 'not_completed',
};

/** The expected status for a cell, or null when the word is not in the vocabulary. */
export function expectedStatusOf(word: string): ExpectedStatus | null {
  const key = word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');
  return Object.hasOwn(EXPECTED_STATUS_WORDS, key) ? EXPECTED_STATUS_WORDS[key]! : null;
}

/** Whether a service status satisfies what the merchant expects. */
export function statusSatisfies(expected: ExpectedStatus, status: ServiceStatus): boolean {
  switch (expected) {
    case 'completed':
    case 'failed':
    case 'cancelled':
      return status === expected;
    case 'processing':
      // Not final yet, a status the spec does not list included (it is followed up like processing).
      return !isFinalStatus(status);
    case 'not_completed':
      return status === 'failed' || status === 'cancelled';
    default: {
      const never: never = expected;
      throw new Error(`unknown expectation ${String(never)}`);
    }
  }
}

export type ReconcileStatus = 'running' | 'done' | 'cancelled' | 'interrupted';
export type ReconcilePhase = 'matching' | 'verifying';

export interface CategoryTotal {
  count: number;
  /** Sum of the merchant's amounts (for unknown_to_merchant: the journal's), smallest unit. */
  amount: number;
  /** Sum of the service's amounts where known. */
  serviceAmount: number;
}

export interface ReconciliationSummary {
  id: string;
  fileName: string;
  profileId: string;
  profileName: string;
  environment: Environment;
  status: ReconcileStatus;
  phase: ReconcilePhase;
  totalRows: number;
  /** File rows with a category. */
  checkedRows: number;
  /** Verify phase: rows asked / rows to ask. */
  verify: { done: number; total: number } | null;
  processingMinutes: number;
  /** The period "unknown to the merchant" looks at (ISO), or null when the file has no dates and none was picked. */
  period: { from: string; to: string; source: 'file' | 'picked' } | null;
  currency: string;
  categories: Record<ReconcileCategory, CategoryTotal>;
  /** Times the service answered 429 and the job waited its Retry-After. */
  rateLimitWaits: number;
  /** Header names of the file's columns Paydesk read past (`#N` for an unnamed one with data). */
  ignoredColumns: string[];
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface ReconciliationRow {
  /** The row in the file (the header is row 1, as a spreadsheet counts); null for journal entries not in the file. */
  row: number | null;
  externalId: string | null;
  kind: 'payment' | 'payout';
  /** The merchant's amount; null for unknown_to_merchant. */
  amount: number | null;
  expectedStatus: string | null;
  date: string | null;
  category: ReconcileCategory | null;
  journalId: string | null;
  transactionId: string | null;
  serviceStatus: ServiceStatus | null;
  serviceAmount: number | null;
  currency: string;
  /** Why it is not checked, or a note (e.g. "verified"). */
  detail: string | null;
}

/** The note of a `duplicate_in_records` row: the earlier row of the file (worded by the screen and the export). */
export const duplicateNote = (earlierRow: number): string => `duplicate of row ${earlierRow}`;
export const DUPLICATE_NOTE = /^duplicate of row (\d+)$/;

/** Why a cell or the file was refused: the renderer words it from its catalogue (`rowError.<code>`). */
export const RECONCILE_ROW_ERROR_CODES = [
  'empty_file',
  'encoding',
  'csv',
  'cell_count',
  'duplicate_column',
  'missing_column',
  'too_many_rows',
  'no_rows',
  'required',
  'external_id_format',
  'external_id_too_long',
  'kind',
  'amount_format',
  'amount_min',
  'amount_max',
  'expected_status',
  'date',
  'duplicate_row',
] as const;
export type ReconcileRowErrorCode = (typeof RECONCILE_ROW_ERROR_CODES)[number];

/** One rejected cell of the file (the message is English; `code` and `params` let the screen translate it). */
export interface ReconcileRowError {
  row: number;
  column: string;
  code: ReconcileRowErrorCode;
  message: string;
  params?: Record<string, string | number>;
}

const id = z.string().min(1).max(200);
const isoDateTime = z.iso.datetime({ offset: true });

/** Reconciliation channels (issue 11), merged into CHANNEL_INPUTS. */
export const RECONCILE_CHANNEL_INPUTS = {
  /** Starts sending a file; the text follows in parts. */
  'reconcile:begin': z.strictObject({ fileName: z.string().trim().min(1, 'is required').max(255) }),
  'reconcile:append': z.strictObject({ uploadId: id, text: z.string().max(RECONCILE_PART_CHARS) }),
  /** Parses and validates the whole file; when every row is valid, saves it and starts matching. */
  'reconcile:import': z.strictObject({
    uploadId: id,
    processingMinutes: z.number().int().min(0).max(7 * 24 * 60).default(DEFAULT_PROCESSING_MINUTES),
    /** The period for "unknown to the merchant"; omitted: the file's dates. */
    period: z
      .strictObject({ from: isoDateTime, to: isoDateTime })
      .refine((p) => Date.parse(p.from) <= Date.parse(p.to), { message: 'from must not be after to', path: ['to'] })
      .optional(),
    /** Minutes to add to a local time to get UTC (JavaScript's getTimezoneOffset), for dates without an offset. */
    utcOffsetMinutes: z.number().int().min(-14 * 60).max(14 * 60).default(0),
  }),
  'reconcile:list': z.strictObject({}),
  'reconcile:get': z.strictObject({ id }),
  'reconcile:rows': z.strictObject({
    id,
    category: z.enum(RECONCILE_CATEGORIES).optional(),
    offset: z.number().int().nonnegative().max(10_000_000).default(0),
    limit: z.number().int().positive().max(500).default(100),
  }),
  'reconcile:cancel': z.strictObject({ id }),
  /** Continues an interrupted or cancelled reconciliation from the rows not yet checked. */
  'reconcile:resume': z.strictObject({ id }),
  /** Asks the provider about the rows still processing (a separate step: it reaches the provider). */
  'reconcile:verify': z.strictObject({ id }),
  'reconcile:export': z.strictObject({ id, category: z.enum(RECONCILE_CATEGORIES).optional(), language: z.enum(LANGUAGES).default('en') }),
} as const;

export interface ReconcileChannelResults {
  'reconcile:begin': { uploadId: string };
  'reconcile:append': { chars: number };
  'reconcile:import':
    | { accepted: true; reconciliation: ReconciliationSummary }
    | { accepted: false; rows: number; errorCount: number; errors: ReconcileRowError[]; ignoredColumns: string[] };
  'reconcile:list': { reconciliations: ReconciliationSummary[] };
  'reconcile:get': ReconciliationSummary;
  'reconcile:rows': { rows: ReconciliationRow[]; total: number; offset: number; limit: number };
  'reconcile:cancel': ReconciliationSummary;
  'reconcile:resume': ReconciliationSummary;
  'reconcile:verify': ReconciliationSummary;
  'reconcile:export': { filename: string; csv: string; rows: number };
}

/** Push event while a reconciliation runs (a small "changed" event: the store fetches again). */
export interface ReconcileProgress {
  id: string;
  status: ReconcileStatus;
  phase: ReconcilePhase;
  checkedRows: number;
  totalRows: number;
  verify: { done: number; total: number } | null;
}
