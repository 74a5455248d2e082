/**
 * Journal search (paged, newest first) and CSV export of a search result.
 *
 * Exact-match filters (transaction id, external id, phone) each have an index led by the column
 * and followed by `created_at`, so a lookup at a million rows reads a handful of index pages; the
 * search box's text goes through the trigram index (text-search.ts).
 */
import type { JournalTransaction, SearchPage, SearchQuery } from '../../../shared/api';
import { chargesNothing } from '../../../shared/contract/charges';
import { writeCsv, type CsvValue } from '../../../shared/csv';
import { resources, type Language } from '../../../shared/i18n';
import type { JournalDb } from './entries';
import { toJournalTransaction, type EntryRow } from './rows';
import { textClause } from './text-search';
import { withPaidLater } from './paid-later';

/** The largest export: a CSV of more rows belongs to a reporting tool, not a desktop console. */
export const EXPORT_MAX_ROWS = 100_000;

export function whereClause(db: JournalDb, query: SearchQuery): { sql: string; params: unknown[]; trigram: boolean } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    clauses.push(sql);
    params.push(...values);
  };
  if (query.transactionId) add('transaction_id = ?', query.transactionId);
  if (query.externalId) add('external_id = ?', query.externalId);
  if (query.phoneNumber) add('phone_number = ?', query.phoneNumber);
  if (query.status) add('status = ?', query.status);
  if (query.state) add('state = ?', query.state);
  if (query.kind) add('kind = ?', query.kind);
  if (query.profileId) add('profile_id = ?', query.profileId);
  if (query.from) add('created_at >= ?', Date.parse(query.from));
  if (query.to) add('created_at <= ?', Date.parse(query.to));
  if (query.minAmount !== undefined) add('amount >= ?', query.minAmount);
  if (query.maxAmount !== undefined) add('amount <= ?', query.maxAmount);
  const text = query.text?.trim();
  let trigram = false;
  if (text) {
    const clause = textClause(db, text);
    add(clause.sql, ...clause.params);
    trigram = clause.trigram ?? false;
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params, trigram };
}

export function searchJournal(db: JournalDb, query: SearchQuery, offset: number, limit: number): SearchPage {
  const { sql, params, trigram } = whereClause(db, query);
  if (trigram) {
    // Rows found through the trigram index are each read and checked: do that once, for the
    // count and the page together (a second COUNT pass doubled the cost of a broad search).
    const order = db.prepare(`SELECT seq FROM entries ${sql} ORDER BY created_at DESC, seq DESC`).pluck();
    const matches = order.all(...params) as number[];
    const page = matches.slice(offset, offset + limit);
    const rows = db
      .prepare('SELECT * FROM entries WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY created_at DESC, seq DESC')
      .all(JSON.stringify(page)) as EntryRow[];
    return { rows: withPaidLater(db, rows.map(toJournalTransaction)), total: matches.length, offset, limit };
  }
  const rows = db.prepare(`SELECT * FROM entries ${sql} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?`).all(...params, limit, offset) as EntryRow[];
  // A short first page is the whole result: no second pass to count it.
  const total = offset === 0 && rows.length < limit ? rows.length : (db.prepare(`SELECT COUNT(*) AS n FROM entries ${sql}`).get(...params) as { n: number }).n;
  return { rows: withPaidLater(db, rows.map(toJournalTransaction)), total, offset, limit };
}

/** Column ids; the header line is their name in the catalogue `exports.columns` of the chosen language. */
const CSV_COLUMNS: readonly { header: keyof (typeof resources)['en']['exports']['columns']; value: (row: JournalTransaction) => string | number | null }[] = [
  { header: 'created_at', value: (row) => row.createdAt },
  { header: 'profile', value: (row) => row.profileName },
  { header: 'environment', value: (row) => row.environment },
  { header: 'kind', value: (row) => row.kind },
  { header: 'state', value: (row) => row.state },
  { header: 'status', value: (row) => row.status },
  { header: 'failed_code', value: (row) => row.failedCode },
  { header: 'transaction_id', value: (row) => row.transactionId },
  { header: 'external_id', value: (row) => row.externalId },
  { header: 'amount', value: (row) => row.amount },
  // A failed or cancelled transaction charged nothing: no fee, no net amount (the screen says "Not charged").
  { header: 'fee', value: (row) => (chargesNothing(row.status) ? null : row.fee) },
  { header: 'net_amount', value: (row) => (chargesNothing(row.status) ? null : row.netAmount) },
  { header: 'currency', value: (row) => row.currency },
  { header: 'phone_number', value: (row) => row.phoneNumber },
  { header: 'payment_method', value: (row) => row.paymentMethod },
  { header: 'customer_first_name', value: (row) => row.customer.first_name },
  { header: 'customer_last_name', value: (row) => row.customer.last_name },
  { header: 'customer_email', value: (row) => row.customer.email },
  { header: 'description', value: (row) => row.description },
  { header: 'last_error', value: (row) => (row.lastError ? `${row.lastError.code}: ${row.lastError.message}` : null) },
  { header: 'updated_at', value: (row) => row.updatedAt },
];

/** The export's header line in `language`. */
export function exportHeaders(language: Language): string[] {
  const headers = resources[language].exports.columns;
  return CSV_COLUMNS.map((column) => headers[column.header]);
}

/** One entry's cells, in the header's order. */
export function exportLine(entry: JournalTransaction): CsvValue[] {
  return CSV_COLUMNS.map((column) => column.value(entry));
}

/** Where an export's page ends: the next page starts after this entry (newest first). */
export interface ExportCursor {
  createdAt: number;
  seq: number;
}

/** A page of a search for the export, after `after` (keyset paging: a deep page costs what the first does). */
export function exportPage(db: JournalDb, query: SearchQuery, after: ExportCursor | null, limit: number): { rows: JournalTransaction[]; next: ExportCursor | null } {
  const { sql, params } = whereClause(db, query);
  const past = after ? `${sql ? `${sql} AND` : 'WHERE'} (created_at < ? OR (created_at = ? AND seq < ?))` : sql;
  const cursorParams = after ? [after.createdAt, after.createdAt, after.seq] : [];
  const rows = db.prepare(`SELECT * FROM entries ${past} ORDER BY created_at DESC, seq DESC LIMIT ?`).all(...params, ...cursorParams, limit) as EntryRow[];
  const last = rows.at(-1);
  return { rows: rows.map(toJournalTransaction), next: rows.length === limit && last ? { createdAt: last.created_at, seq: last.seq } : null };
}

/** The CSV of a search: headers in `language`; ids, codes, amounts and `XAF` exactly as stored. */
export function exportCsv(db: JournalDb, query: SearchQuery, language: Language = 'en'): { csv: string; rows: number } {
  const { sql, params } = whereClause(db, query);
  const statement = db.prepare(`SELECT * FROM entries ${sql} ORDER BY created_at DESC, seq DESC LIMIT ?`);
  let rows = 0;
  function* lines(): Generator<CsvValue[]> {
    for (const row of statement.iterate(...params, EXPORT_MAX_ROWS) as IterableIterator<EntryRow>) {
      rows += 1;
      yield exportLine(toJournalTransaction(row));
    }
  }
  const csv = writeCsv(exportHeaders(language), lines(), { delimiter: ',' });
  return { csv, rows };
}
