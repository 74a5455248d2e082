/**
 * The report as CSV: headers and result words in the user's language, with the one CSV writer
 * (shared/csv: every cell quoted, formulas guarded), CRLF lines. The rows are read through the
 * storage port in pages (this desktop's journal or a team workspace).
 */
import { writeCsv, type CsvValue } from '../../../shared/csv';
import { resources, type Language } from '../../../shared/i18n';
import { DUPLICATE_NOTE, type ReconcileCategory } from '../../../shared/api/reconcile';
import type { ReconcileRows } from '../storage/reconcile-rows-port';
import type { StoredRow } from './store';

/** Report rows per read. */
const PAGE_ROWS = 1000;

const COLUMNS = [
  'row',
  'external_id',
  'kind',
  'amount',
  'expected_status',
  'date',
  'category',
  'transaction_id',
  'service_status',
  'service_amount',
  'currency',
  'detail',
] as const;

export async function exportReport(
  store: ReconcileRows,
  id: string,
  category: ReconcileCategory | undefined,
  language: Language,
  fallbackCurrency: string,
): Promise<{ csv: string; rows: number }> {
  const words = resources[language].reconcile;
  const detail = await store.detail(id);
  if (!detail) throw new Error(`reconciliation ${id} does not exist`);
  const minutes = String(detail.processingMinutes);
  const label = (c: ReconcileCategory) => words.category[c].replace('{{minutes}}', minutes);
  /** Our own notes in the language; a service's error stays as the service wrote it. */
  const note = (detail: string | null): string | null => {
    if (detail === null) return null;
    const verified = /^verified: (initiated|processing|completed|failed|cancelled)$/.exec(detail)?.[1] as keyof typeof words.serviceStatus | undefined;
    if (verified) return words.detail.verified.replace('{{status}}', words.serviceStatus[verified]);
    if (detail.startsWith('PAYOUT_LOOKUP_UNAVAILABLE:')) return words.detail.payoutLookup;
    if (detail.startsWith('from the journal:')) return words.detail.fromJournal;
    if (detail.startsWith('TEAM_JOURNAL:')) return words.detail.teamJournal;
    if (detail.startsWith('VERIFY_UNAVAILABLE:')) return words.detail.verifyUnavailable;
    const earlier = DUPLICATE_NOTE.exec(detail)?.[1];
    if (earlier) return words.detail.duplicateOf.replaceAll('{{row}}', earlier);
    return detail;
  };
  const value = (row: StoredRow, column: (typeof COLUMNS)[number]): CsvValue => {
    switch (column) {
      case 'row':
        return row.source === 'file' ? row.row_number : null;
      case 'external_id':
        return row.external_id;
      case 'kind':
        return row.kind;
      case 'amount':
        return row.amount;
      case 'expected_status':
        return row.expected_raw;
      case 'date':
        return row.row_date;
      case 'category':
        return row.category ? label(row.category) : null;
      case 'transaction_id':
        return row.transaction_id;
      case 'service_status':
        return row.service_status;
      case 'service_amount':
        return row.service_amount;
      case 'currency':
        return row.currency ?? fallbackCurrency;
      case 'detail':
        return note(row.detail);
      default: {
        const never: never = column;
        return never;
      }
    }
  };
  const lines: CsvValue[][] = [];
  for (let after = 0; ; ) {
    const page = await store.rowsAfter(id, category, after, PAGE_ROWS);
    for (const row of page) lines.push(COLUMNS.map((column) => value(row, column)));
    if (page.length < PAGE_ROWS) break;
    after = page[page.length - 1]!.row_number;
  }
  const csv = writeCsv(COLUMNS.map((column) => words.csv[column]), lines, { delimiter: ',' });
  return { csv, rows: lines.length };
}
