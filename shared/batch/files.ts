/**
 * The CSV files main writes for a batch: the template, the invalid rows (to fix and import
 * again) and the batch report for the accountant, with the one CSV writer (shared/csv: every cell
 * quoted, formulas guarded; the import removes the guard again). Headers come from the catalogue;
 * French files use `;` as Excel in French locales does.
 */
import { BATCH_COLUMNS, type BatchColumn, type BatchRow, type BatchRowValues } from '../api/batch';
import { chargesNothing } from '../contract/charges';
import { writeCsv, type CsvValue } from '../csv';
import { resources } from '../i18n';
import type { Language } from '../i18n/types';

export function separatorFor(language: Language): ',' | ';' {
  return language === 'fr' ? ';' : ',';
}

function write(language: Language, fields: string[], data: CsvValue[][]): string {
  return writeCsv(fields, data, { delimiter: separatorFor(language) });
}

function headersOf(language: Language, columns: readonly (keyof (typeof resources)['en']['batchCsv']['columns'])[]): string[] {
  return columns.map((column) => resources[language].batchCsv.columns[column]);
}

/** The template: the columns with three example rows on sandbox numbers, and one metadata column. */
export function templateCsv(language: Language): { filename: string; csv: string } {
  const words = resources[language].batchCsv;
  const example = (phone: string, amount: number, first: string, last: string, email: string, description: string, region: string) => [
    phone, amount, first, last, email, description, '', 'momo_cm', region,
  ];
  const csv = write(language, [...headersOf(language, BATCH_COLUMNS), 'meta.region'], [
    example('+237650000001', 15000, 'Awa', 'Nkemdirim', 'awa@example.com', words.template.description1, words.template.region),
    example('+237670000002', 50000, 'Jean', 'Mbarga', 'jean.mbarga@example.com', words.template.description2, 'Centre'),
    example('+237690000003', 2500, 'Chantal', 'Essomba', 'chantal@example.com', words.template.description3, words.template.region),
  ]);
  return { filename: `${words.filenames.template}.csv`, csv };
}

function cells(values: BatchRowValues, metaKeys: readonly string[]): string[] {
  return [...BATCH_COLUMNS.map((column: BatchColumn) => values[column]), ...metaKeys.map((key) => values.meta[key] ?? '')];
}

function metaKeysOf(rows: readonly { values: BatchRowValues }[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row.values.meta)) keys.add(key);
  return [...keys];
}

/** The rows with errors, as imported (fixable and importable again), with their errors in a last column. */
export function invalidRowsCsv(language: Language, rows: readonly BatchRow[], stamp: string): { filename: string; csv: string; rows: number } {
  const invalid = rows.filter((row) => Object.keys(row.errors).length > 0);
  const metaKeys = metaKeysOf(invalid);
  const words = resources[language].batchCsv;
  const errorsText = (row: BatchRow) =>
    Object.entries(row.errors)
      .map(([column, messages]) => `${column === '_' ? '' : `${column}: `}${messages.join('; ')}`)
      .join(' | ');
  const csv = write(
    language,
    [words.columns.row_number, ...headersOf(language, BATCH_COLUMNS), ...metaKeys.map((key) => `meta.${key}`), words.columns.errors],
    // A row without its own external id carries the one it has in this batch: fixed and imported
    // again, it is the same payout (issue 23), whichever file it comes back in.
    invalid.map((row) => [row.rowNumber, ...cells({ ...row.values, external_id: row.values.external_id || row.externalId }, metaKeys), errorsText(row)]),
  );
  return { filename: `${words.filenames.invalid}-${stamp}.csv`, csv, rows: invalid.length };
}

/** A row's state in words; a row that adopted an earlier payout, or retries one, says so (issue 23). */
function rowStateText(words: (typeof resources)[Language]['batchCsv'], row: BatchRow): string {
  // Moved to the batch of the remaining rows: that batch's report holds its payout, never this one's.
  if (row.movedTo) return words.movedTo.replace('{{name}}', row.movedTo.fileName).replace('{{batchId}}', row.movedTo.batchId);
  const parts: string[] = [words.rowStates[row.state]];
  if (row.alreadySent) parts.push(words.alreadySent);
  // Adopted, yet another recipient or amount: the accountant must not read this row as paid.
  const found = row.adoptedDiffers?.found;
  if (found) parts.push(words.adoptedDiffers.replace('{{to}}', found.accountNumber).replace('{{amount}}', String(found.amount)).replace('{{currency}}', found.currency));
  if (row.retryOf) parts.push(words.retryOf.replace('{{id}}', row.retryOf));
  return parts.join(' · ');
}

/** Every row with what happened to it: the accountant's record of the batch. */
export function reportCsv(language: Language, batchId: string, rows: readonly BatchRow[], currency: string, stamp: string): { filename: string; csv: string; rows: number } {
  const words = resources[language].batchCsv;
  const columns = words.columns;
  const csv = write(
    language,
    [columns.row_number, columns.external_id, columns.phone_number, columns.amount, columns.fee, columns.currency, columns.first_name, columns.last_name,
      columns.email, columns.description, columns.state, columns.transaction_id, columns.status, columns.failed_code, columns.error, columns.journal_id],
    rows.map((row) => [
      row.rowNumber,
      row.externalId,
      row.request?.phone_number ?? row.values.phone_number,
      row.request?.amount ?? row.values.amount,
      // A failed or cancelled row charged nothing, whatever fee the preview expected.
      chargesNothing(row.status) ? null : row.fee,
      currency,
      row.values.first_name,
      row.values.last_name,
      row.values.email,
      row.values.description,
      Object.keys(row.errors).length > 0 ? columns.errors : rowStateText(words, row),
      row.transactionId,
      row.status,
      row.failedCode,
      row.error ? `${row.error.code}: ${row.error.message}` : null,
      row.journalId,
    ]),
  );
  return { filename: `${words.filenames.report}-${batchId}-${stamp}.csv`, csv, rows: rows.length };
}
