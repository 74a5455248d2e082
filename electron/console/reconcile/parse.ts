/**
 * Reading the merchant's CSV with the one CSV reader (shared/csv), in chunks (yielding to the
 * event loop between them, so a 100,000-row file never holds main for long), then each row checked
 * with zod, every error named by row, column and message. A row with more or fewer cells than the
 * header is refused as the batch import refuses it ("has N cells where the header has M"): a
 * `25,000` written without quotes must not be read as 25. Columns Paydesk does not know are read
 * past and named on the report (merchant exports always carry some: docs/decisions/
 * reconcile-extra-columns.md); a header problem does not hide the cell errors of the same file.
 * Amounts are read as bulk payouts read them (`45 000` is 45000). One external id twice for the
 * same kind is not a refusal: the later row is kept with `duplicateOf` (the earlier row), and the
 * report files it as "duplicate in your records" (docs/decisions/reconcile-duplicate-in-file.md).
 */
import { z } from 'zod';
import { cellCountProblem, readCsvInChunks } from '../../../shared/csv';
import { EXTERNAL_ID_PATTERN, LIMITS } from '../../../shared/contract/schemas';
import { parseAmount } from '../../../shared/batch/validate';
import {
  expectedStatusOf,
  RECONCILE_MAX_ERRORS,
  RECONCILE_MAX_ROWS,
  type ExpectedStatus,
  type ReconcileRowError,
  type ReconcileRowErrorCode,
} from '../../../shared/api/reconcile';

/** Columns of the file; the header row names them (any order, case and spaces ignored). */
export const FILE_COLUMNS = ['external_id', 'kind', 'amount', 'expected_status', 'date'] as const;
type FileColumn = (typeof FILE_COLUMNS)[number];
const REQUIRED: readonly FileColumn[] = ['external_id', 'kind', 'amount'];
/** Other spellings a header may use. */
const HEADER_ALIASES: Record<string, FileColumn> = {
  externalid: 'external_id',
  type: 'kind',
  montant: 'amount',
  status: 'expected_status',
  expected: 'expected_status',
  statut: 'expected_status',
  created_at: 'date',
};

export interface MerchantRow {
  /** Spreadsheet row: the header is row 1. */
  row: number;
  externalId: string;
  kind: 'payment' | 'payout';
  amount: number;
  expectedRaw: string | null;
  expected: ExpectedStatus | null;
  /** The cell as written, and the instant it stands for (ms), when given. */
  dateRaw: string | null;
  dateMs: number | null;
  /** A date without a time covers the whole day: the period ends at its last millisecond. */
  dateEndMs: number | null;
  /** The earlier row of the file with the same kind and external id: this one is a finding, not looked up. */
  duplicateOf?: number | null;
}

export type ParseResult =
  | { ok: true; rows: MerchantRow[]; delimiter: string; ignoredColumns: string[] }
  | { ok: false; rows: number; errorCount: number; errors: ReconcileRowError[]; ignoredColumns: string[] };

const KINDS: Record<string, 'payment' | 'payout'> = { payment: 'payment', payout: 'payout', paiement: 'payment', transfert: 'payout' };

/** The English sentence of each cell check, and the code the screen translates it by. */
const CELL_MESSAGES: Partial<Record<ReconcileRowErrorCode, string>> = {
  required: 'is required',
  external_id_too_long: 'is longer than 100 characters',
  external_id_format: 'may contain only letters, digits and . _ : -',
  kind: 'must be payment or payout',
  amount_format: 'must be a whole number in the smallest unit, digits only (e.g. 25000)',
  amount_min: 'must be at least 1',
  amount_max: 'must be at most 1,000,000,000,000',
};
const codeOfMessage = (message: string): ReconcileRowErrorCode =>
  (Object.entries(CELL_MESSAGES).find(([, text]) => text === message)?.[0] as ReconcileRowErrorCode | undefined) ?? 'required';

const cellSchemas = {
  external_id: z
    .string()
    .min(1, CELL_MESSAGES.required)
    .max(LIMITS.externalIdMax, CELL_MESSAGES.external_id_too_long)
    .regex(EXTERNAL_ID_PATTERN, CELL_MESSAGES.external_id_format),
  kind: z.string().transform((text, ctx) => {
    const kind = KINDS[text.toLowerCase()];
    if (!kind) ctx.addIssue({ code: 'custom', message: CELL_MESSAGES.kind! });
    return kind ?? 'payment';
  }),
  // The bulk payouts' rule (shared/batch/validate.ts): digits, grouping spaces allowed (`45 000`), no decimals.
  amount: z
    .string()
    .transform((text, ctx) => {
      const read = parseAmount(text);
      if (!read.ok) ctx.addIssue({ code: 'custom', message: CELL_MESSAGES.amount_format! });
      return read.ok ? read.amount : 0;
    })
    .pipe(z.number().int().min(1, CELL_MESSAGES.amount_min).max(1_000_000_000_000, CELL_MESSAGES.amount_max)),
};

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_FR = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A date cell: `YYYY-MM-DD` or `DD/MM/YYYY` (a whole local day), an ISO date-time with `Z` or an
 * offset, or `YYYY-MM-DD HH:MM[:SS]` in local time. Local means the user's time zone, passed as
 * JavaScript's `getTimezoneOffset()` minutes.
 */
export function parseDateCell(text: string, utcOffsetMinutes: number): { from: number; to: number } | null {
  const local = (y: number, m: number, d: number, h = 0, min = 0, s = 0) => {
    const ms = Date.UTC(y, m - 1, d, h, min, s);
    const check = new Date(ms);
    if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d || h > 23 || min > 59 || s > 59) return null;
    return ms + utcOffsetMinutes * 60_000;
  };
  const day = DAY.exec(text) ?? null;
  const dayFr = DAY_FR.exec(text);
  if (day || dayFr) {
    const [y, m, d] = day ? [day[1], day[2], day[3]] : [dayFr![3], dayFr![2], dayFr![1]];
    const start = local(Number(y), Number(m), Number(d));
    return start === null ? null : { from: start, to: start + 86_400_000 - 1 };
  }
  const localTime = LOCAL_TIME.exec(text);
  if (localTime) {
    const [, y, m, d, h, min, s] = localTime;
    const at = local(Number(y), Number(m), Number(d), Number(h), Number(min), Number(s ?? 0));
    return at === null ? null : { from: at, to: at };
  }
  if (z.iso.datetime({ offset: true }).safeParse(text).success) {
    const at = Date.parse(text);
    return Number.isNaN(at) ? null : { from: at, to: at };
  }
  return null;
}

function headerColumn(cell: string): FileColumn | null {
  const name = cell.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if ((FILE_COLUMNS as readonly string[]).includes(name)) return name as FileColumn;
  return HEADER_ALIASES[name] ?? HEADER_ALIASES[name.replace(/_/g, '')] ?? null;
}

/** Ignored columns named on the report (a hostile header cannot fill the journal with names). */
const MAX_IGNORED_LISTED = 50;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The whole file, checked; rows are kept only when every one of them is valid. */
export async function parseMerchantFile(input: string, utcOffsetMinutes: number, signal?: AbortSignal): Promise<ParseResult> {
  const errors: ReconcileRowError[] = [];
  let errorCount = 0;
  const fail = (row: number, column: string, code: ReconcileRowErrorCode, message: string, params?: Record<string, string | number>) => {
    errorCount += 1;
    if (errors.length < RECONCILE_MAX_ERRORS) errors.push({ row, column, code, message, ...(params ? { params } : {}) });
  };
  if (input.replace(/^\ufeff/, '').trim() === '') {
    fail(1, 'file', 'empty_file', 'is empty: the first row must name the columns external_id, kind, amount (expected_status, date optional)');
    return { ok: false, rows: 0, errorCount, errors, ignoredColumns: [] };
  }
  const read = await readCsvInChunks(input, {
    maxRecords: RECONCILE_MAX_ROWS + 2,
    betweenChunks: async () => {
      await yieldToLoop();
      return !signal?.aborted;
    },
  });
  if (!read.ok) {
    fail(1, 'file', read.problem.code, read.problem.message, read.problem.params);
    return { ok: false, rows: 0, errorCount, errors, ignoredColumns: [] };
  }
  const { records, separator: delimiter, errors: csvErrors } = read.file;
  for (const error of csvErrors) fail(error.row, 'file', 'csv', error.message, { detail: error.message });

  const header = records[0] ?? [];
  const columns = new Map<FileColumn, number>();
  /** Header cells Paydesk does not read, as written (an unnamed one as #N), for the report. */
  const ignoredColumns: string[] = [];
  const unnamed: number[] = [];
  header.forEach((cell, index) => {
    const column = headerColumn(cell);
    if (column === null) {
      if (cell.trim() !== '' && ignoredColumns.length < MAX_IGNORED_LISTED) ignoredColumns.push(cell.trim().slice(0, 60));
      else unnamed.push(index);
    } else if (columns.has(column)) {
      fail(1, column, 'duplicate_column', 'appears twice in the header');
    } else {
      columns.set(column, index);
    }
  });
  for (const column of REQUIRED) if (!columns.has(column)) fail(1, column, 'missing_column', 'is missing from the header row');
  // An unnamed column is listed only when some row writes in it (a trailing separator is not a column).
  for (const index of unnamed) if (ignoredColumns.length < MAX_IGNORED_LISTED && records.some((record, at) => at > 0 && (record[index] ?? '').trim() !== '')) ignoredColumns.push(`#${index + 1}`);

  const rows: MerchantRow[] = [];
  const seen = new Map<string, number>();
  let dataRows = 0;
  for (let index = 1; index < records.length; index += 1) {
    if (index % 1000 === 0) {
      await yieldToLoop();
      if (signal?.aborted) throw new Error('aborted');
    }
    const record = records[index]!;
    if (record.every((cell) => cell.trim() === '')) continue;
    dataRows += 1;
    const rowNumber = index + 1;
    if (dataRows > RECONCILE_MAX_ROWS) {
      fail(rowNumber, 'file', 'too_many_rows', `has more than ${RECONCILE_MAX_ROWS.toLocaleString('en')} rows: split it`, { max: RECONCILE_MAX_ROWS });
      break;
    }
    const cell = (column: FileColumn) => (columns.has(column) ? (record[columns.get(column)!] ?? '').trim() : '');
    const errorsBefore = errorCount;
    const cellCount = cellCountProblem(record.length, header.length);
    if (cellCount) fail(rowNumber, 'file', 'cell_count', cellCount.message, cellCount.params);
    const parsed: Partial<Record<'external_id' | 'kind' | 'amount', unknown>> = {};
    for (const column of ['external_id', 'kind', 'amount'] as const) {
      // A column missing from the header is one error on row 1, not one per row.
      if (!columns.has(column)) continue;
      const result = cellSchemas[column].safeParse(cell(column));
      if (result.success) parsed[column] = result.data;
      else if (cell(column) === '') fail(rowNumber, column, 'required', CELL_MESSAGES.required!);
      else fail(rowNumber, column, codeOfMessage(result.error.issues[0]!.message), result.error.issues[0]!.message);
    }
    const expectedRaw = cell('expected_status') || null;
    const expected = expectedRaw === null ? null : expectedStatusOf(expectedRaw);
    if (expectedRaw !== null && expected === null) {
      fail(rowNumber, 'expected_status', 'expected_status', 'is not a known status (completed/paid, failed, cancelled, processing/pending, unpaid; or payé, échoué, annulé, en cours, impayé)');
    }
    const dateRaw = cell('date') || null;
    const date = dateRaw === null ? null : parseDateCell(dateRaw, utcOffsetMinutes);
    if (dateRaw !== null && date === null) fail(rowNumber, 'date', 'date', 'must be YYYY-MM-DD, DD/MM/YYYY, or an ISO date-time such as 2026-11-23T10:15:00Z');
    if (errorCount > errorsBefore) continue;
    const key = `${parsed.kind as string}:${parsed.external_id as string}`;
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, rowNumber);
    rows.push({
      row: rowNumber,
      externalId: parsed.external_id as string,
      kind: parsed.kind as 'payment' | 'payout',
      amount: parsed.amount as number,
      expectedRaw,
      expected,
      dateRaw,
      dateMs: date?.from ?? null,
      dateEndMs: date?.to ?? null,
      duplicateOf: earlier ?? null,
    });
  }
  if (dataRows === 0) fail(2, 'file', 'no_rows', 'has no rows under the header');
  if (errorCount > 0) return { ok: false, rows: dataRows, errorCount, errors, ignoredColumns };
  return { ok: true, rows, delimiter, ignoredColumns };
}
