/**
 * History's CSV export through the storage port: the search read in pages (either store), each
 * page turned into lines at once (the entries are not all held), then the one CSV writer
 * (shared/csv) with the same columns as the SQLite journal's export (../journal/search.ts).
 */
import type { SearchQuery } from '../../../shared/api';
import { writeCsv, type CsvValue } from '../../../shared/csv';
import type { Language } from '../../../shared/i18n';
import { EXPORT_MAX_ROWS, exportHeaders, exportLine } from '../journal/search';
import type { ExportCursor, JournalReads } from './journal-reads-port';

/** Entries per read: a round trip per 1,000 rows, and never 100,000 entries in memory at once. */
export const EXPORT_PAGE_ROWS = 1000;

export async function exportJournalCsv(reads: JournalReads, query: SearchQuery, language: Language = 'en', pageRows = EXPORT_PAGE_ROWS): Promise<{ csv: string; rows: number }> {
  const lines: CsvValue[][] = [];
  let after: ExportCursor | null = null;
  do {
    const page = await reads.exportPage(query, after, Math.min(pageRows, EXPORT_MAX_ROWS - lines.length));
    for (const entry of page.rows) lines.push(exportLine(entry));
    after = page.next;
  } while (after !== null && lines.length < EXPORT_MAX_ROWS);
  return { csv: writeCsv(exportHeaders(language), lines, { delimiter: ',' }), rows: lines.length };
}
