/**
 * The journal's reads that screens show whole (issue 24): the Overview's figures, History's CSV
 * export in pages, and the "refused, paid later" mark. Both stores answer them alike
 * (test/storage/contract-reads.test.ts): the SQLite journal over its own functions
 * (../journal/overview.ts, search.ts, paid-later.ts), a workspace in ./postgres/reads.ts.
 */
import type { JournalTransaction, OverviewResult, SearchQuery } from '../../../shared/api';
import type { OverviewScope } from '../journal/overview';
import type { ExportCursor } from '../journal/search';

export type { ExportCursor } from '../journal/search';

export interface ExportPage {
  rows: JournalTransaction[];
  /** Where the next page starts; null when this page ended the search. */
  next: ExportCursor | null;
}

export interface JournalReads {
  /**
   * One profile's seven days and its transactions processing too long, read from one snapshot.
   * Throws OverviewOverflowError (../journal/overview.ts) when a sum is too large to show exactly.
   */
  overview(scope: OverviewScope): Promise<OverviewResult>;
  /** A page of a search for the export, newest first, after `after` (keyset: a deep page costs what the first does). */
  exportPage(query: SearchQuery, after: ExportCursor | null, limit: number): Promise<ExportPage>;
  /** The entries, each refused one that a later entry of the same payout paid marked `paidLater` (its order kept). */
  withPaidLater(entries: JournalTransaction[]): Promise<JournalTransaction[]>;
}
