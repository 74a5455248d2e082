/**
 * Checking batch rows with the API's own request schema (transactionRequestSchema) and flagging
 * duplicates: the same phone and amount (a warning: sent unless dropped) and the same external
 * id (an error on every row after the first: the service accepts an external id once).
 */
import { normalisePhoneNumber, transactionRequestSchema, type FieldErrors } from '../contract/schemas';
import type { BatchRowValues, CheckedRow } from '../api/batch';

export interface RowInput {
  rowNumber: number;
  values: BatchRowValues;
  /** Problems found while reading the line (cell count). */
  lineErrors?: string[];
}

export type { CheckedRow } from '../api/batch';

/** A spreadsheet turned the phone number into a number (`2.3765E+11`). */
const SCIENTIFIC = /^\d+(?:[.,]\d+)?e\+?\d+$/i;

/** The deterministic external id of a row the file gives none for. */
export function rowExternalId(batchId: string, rowNumber: number): string {
  return `${batchId}-${rowNumber}`;
}

/** Digits, grouping spaces allowed (`5 000`, as French spreadsheets write); no decimals. */
export function parseAmount(cell: string): { ok: true; amount: number } | { ok: false; message: string } {
  const compact = cell.replace(/[\s\u00a0\u202f]/g, '');
  if (compact === '') return { ok: false, message: 'is required' };
  if (/^\d+[.,]\d+$/.test(compact)) return { ok: false, message: 'must be a whole number in the smallest currency unit (no decimals)' };
  if (!/^-?\d+$/.test(compact)) return { ok: false, message: 'must be a number' };
  return { ok: true, amount: Number(compact) };
}

/** The request a row's cells make (unchecked) and the errors found before the schema. */
function requestOf(values: BatchRowValues, defaultMethod: string | null, externalId: string): { body: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const amount = parseAmount(values.amount);
  if (!amount.ok) errors.amount = [amount.message];
  const method = values.payment_method.trim() || defaultMethod || '';
  if (method === '') errors.payment_method = ['is required: add a payment_method column or choose a method for the batch'];
  const phone = normalisePhoneNumber(values.phone_number);
  if (SCIENTIFIC.test(phone)) {
    errors.phone_number = ['was turned into a number by a spreadsheet: format the column as text and write it as +237…'];
  }
  const meta = Object.entries(values.meta).filter(([, value]) => value !== '');
  const body: Record<string, unknown> = {
    payment_method: method,
    amount: amount.ok ? amount.amount : 1,
    phone_number: phone,
    customer: { first_name: values.first_name, last_name: values.last_name, email: values.email.trim() },
    external_id: externalId,
    ...(values.description.trim() !== '' ? { description: values.description.trim() } : {}),
    ...(meta.length > 0 ? { metadata: Object.fromEntries(meta) } : {}),
  };
  return { body, errors };
}

/** The CSV column a schema path stands for. */
function columnOf(path: readonly PropertyKey[]): string {
  const [first, second] = path.map(String);
  if (first === 'customer' && second) return second === 'metadata' ? 'metadata' : second;
  if (first === 'metadata') return 'metadata';
  return first ?? '_';
}

function add(errors: FieldErrors, column: string, message: string): void {
  const list = errors[column] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[column] = list;
}

export interface CheckOptions {
  batchId: string;
  /** For rows without a payment_method cell. */
  defaultPaymentMethod: string | null;
}

/** Checks every row and flags duplicates across the batch. */
export function checkRows(rows: readonly RowInput[], options: CheckOptions): CheckedRow[] {
  const checked: CheckedRow[] = rows.map((row) => {
    const externalId = row.values.external_id.trim() || rowExternalId(options.batchId, row.rowNumber);
    const { body, errors } = requestOf(row.values, options.defaultPaymentMethod, externalId);
    for (const message of row.lineErrors ?? []) add(errors, '_', message);
    const checkedFirst = new Set(Object.keys(errors));
    const parsed = transactionRequestSchema.safeParse(body);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const column = columnOf(issue.path);
        // A cell reported above (amount, spreadsheet phone, method) already has the clearer message.
        if (checkedFirst.has(column)) continue;
        if (issue.code === 'unrecognized_keys') continue;
        add(errors, column, issue.message);
      }
    }
    const valid = parsed.success && Object.keys(errors).length === 0;
    return { rowNumber: row.rowNumber, values: row.values, request: valid ? parsed.data : null, errors, duplicates: [], externalId };
  });
  flagDuplicates(checked);
  return checked;
}

function flagDuplicates(rows: CheckedRow[]): void {
  const groups = (keyOf: (row: CheckedRow) => string | null) => {
    const map = new Map<string, CheckedRow[]>();
    for (const row of rows) {
      const key = keyOf(row);
      if (key === null) continue;
      const list = map.get(key);
      if (list) list.push(row);
      else map.set(key, [row]);
    }
    return [...map.values()].filter((list) => list.length > 1);
  };
  const phone = (row: CheckedRow) => normalisePhoneNumber(row.values.phone_number);
  for (const group of groups((row) => {
    const amount = parseAmount(row.values.amount);
    return amount.ok && phone(row) !== '' ? `${phone(row)}|${amount.amount}` : null;
  })) {
    for (const row of group) row.duplicates.push({ reason: 'phone_amount', rowNumbers: group.filter((other) => other !== row).map((other) => other.rowNumber) });
  }
  for (const group of groups((row) => row.externalId)) {
    const [first, ...later] = group;
    for (const row of group) row.duplicates.push({ reason: 'external_id', rowNumbers: group.filter((other) => other !== row).map((other) => other.rowNumber) });
    for (const row of later) {
      add(row.errors, 'external_id', `is the same as row ${first!.rowNumber}: the service accepts an external id once`);
      row.request = null;
    }
  }
}
