/**
 * The journal's whole-screen reads (./journal-reads-port.ts) on the SQLite journal: its own
 * functions, synchronous inside a resolved promise, as the rest of ./sqlite-store.ts.
 */
import type { JournalDb } from '../journal/entries';
import { readOverview } from '../journal/overview';
import { withPaidLater } from '../journal/paid-later';
import { exportPage } from '../journal/search';
import type { JournalReads } from './journal-reads-port';

export function sqliteReads(db: JournalDb): JournalReads {
  return {
    overview: async (scope) => readOverview(db, scope),
    exportPage: async (query, after, limit) => exportPage(db, query, after, limit),
    withPaidLater: async (entries) => withPaidLater(db, entries),
  };
}
