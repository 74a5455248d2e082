/**
 * Reading a batch CSV file with the one CSV reader (shared/csv: UTF-8 with or without BOM, `,` or
 * `;` separators, quoted fields, UTF-16 refused), then the batch's own columns, `meta.KEY` included.
 * Each data row keeps the number a spreadsheet shows it under (the header is row 1), blank lines
 * included, so errors point at the row the user sees.
 */
import { cellCountProblem, readCsv, unguardCell } from '../csv';
import { BATCH_MAX_ROWS, REQUIRED_BATCH_COLUMNS, type BatchColumn, type BatchRowValues } from '../api/batch';
import { headerMeaning, unknownColumnError } from './columns';

export interface ParsedRow {
  rowNumber: number;
  values: BatchRowValues;
  /** Problems of the line itself (cell count), before any field check. */
  lineErrors: string[];
}

export interface ParsedFile {
  separator: ',' | ';';
  /** The `meta.KEY` keys, in file order. */
  metaKeys: string[];
  rows: ParsedRow[];
}

export type ParseResult = { ok: true; file: ParsedFile } | { ok: false; errors: string[] };

export function emptyValues(): BatchRowValues {
  return { phone_number: '', amount: '', first_name: '', last_name: '', email: '', description: '', external_id: '', payment_method: '', meta: {} };
}

/** A cell as the user means it: our exports' formula guard (shared/csv) removed. */
function cellText(raw: string | undefined): string {
  return unguardCell((raw ?? '').trim());
}

export function parseBatchCsv(input: string): ParseResult {
  const read = readCsv(input);
  if (!read.ok) return { ok: false, errors: [`the file ${read.problem.message}`] };
  const { separator, records } = read.file;
  // A final line break gives one empty record: not a row.
  while (records.length > 0 && records[records.length - 1]!.every((cell) => cell.trim() === '')) records.pop();
  const quoteErrors = read.file.errors.filter((error) => error.kind === 'quotes');
  if (quoteErrors.length > 0) {
    return { ok: false, errors: quoteErrors.slice(0, 5).map((error) => `row ${error.row}: ${error.message.toLowerCase()} (a quote is opened and never closed)`) };
  }
  const header = records[0];
  if (!header || header.every((cell) => cell.trim() === '')) return { ok: false, errors: ['the file is empty: it needs a header line, then one line per payout'] };

  const errors: string[] = [];
  const columns: ({ kind: 'column'; column: BatchColumn } | { kind: 'meta'; key: string } | { kind: 'ignored' })[] = [];
  const seen = new Set<string>();
  header.forEach((name, index) => {
    const meaning = headerMeaning(name);
    if (meaning.kind === 'unknown') {
      errors.push(unknownColumnError(index + 1, name));
      columns.push({ kind: 'ignored' });
      return;
    }
    const key = meaning.kind === 'column' ? meaning.column : meaning.kind === 'meta' ? `meta.${meaning.key}` : `ignored.${index}`;
    if (seen.has(key)) errors.push(`column ${index + 1} "${name.trim().slice(0, 60)}" repeats ${key}`);
    seen.add(key);
    columns.push(meaning);
  });
  for (const required of REQUIRED_BATCH_COLUMNS) if (!seen.has(required)) errors.push(`the column ${required} is missing`);
  const dataCount = records.length - 1;
  if (dataCount === 0) errors.push('the file has a header but no rows');
  if (dataCount > BATCH_MAX_ROWS) errors.push(`the file has ${dataCount} rows; a batch takes at most ${BATCH_MAX_ROWS}`);
  if (errors.length > 0) return { ok: false, errors };

  const metaKeys = columns.flatMap((column) => (column.kind === 'meta' ? [column.key] : []));
  const rows: ParsedRow[] = [];
  for (let index = 1; index < records.length; index += 1) {
    const record = records[index]!;
    if (record.every((cell) => cell.trim() === '')) continue; // a blank line keeps its number but is no row
    const values = emptyValues();
    const lineErrors: string[] = [];
    const cellCount = cellCountProblem(record.length, header.length);
    if (cellCount) lineErrors.push(cellCount.message);
    columns.forEach((column, position) => {
      const cell = cellText(record[position]);
      if (column.kind === 'column') values[column.column] = cell;
      else if (column.kind === 'meta' && cell !== '') values.meta[column.key] = cell;
    });
    rows.push({ rowNumber: index + 1, values, lineErrors });
  }
  return { ok: true, file: { separator, metaKeys, rows } };
}
