/**
 * The journal on a real SQLite file: write-before-send states, search filters and paging, CSV
 * export with quoting and formula-injection protection.
 */
import { describe, expect, it } from 'vitest';
import type { TransactionRequest } from '../../shared/contract';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import {
  getEntry,
  getTimeline,
  markStalePending,
  openJournal,
  recordInitiateOutcome,
  recordRequest,
} from '../../electron/console/journal/entries';
import { exportCsv, searchJournal } from '../../electron/console/journal/search';
import { getSummary } from '../../electron/console/reconcile/store';
import { paymentRequest, tempDir } from './helpers';

const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

function journalWith(requests: { request: TransactionRequest; at: number; kind?: 'payment' | 'payout' }[]) {
  const db = openJournal(`${tempDir()}/journal.db`);
  const ids = requests.map(({ request, at, kind }) => recordRequest(db, { profile: PROFILE, kind: kind ?? 'payment', request, currency: 'XAF', at }).id);
  return { db, ids };
}

describe('journal entries', () => {
  it('uses WAL and the numbered migrations', () => {
    const { db } = journalWith([]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
  });

  it('writes pending first, then the outcome; stale pending entries become outcome unknown', () => {
    const { db, ids } = journalWith([
      { request: paymentRequest({ external_id: 'A-1' }), at: 1_000 },
      { request: paymentRequest({ external_id: 'A-2' }), at: 2_000 },
      { request: paymentRequest({ external_id: 'A-3' }), at: 3_000 },
    ]);
    expect(getEntry(db, ids[0]!)?.state).toBe('pending');
    recordInitiateOutcome(db, ids[0]!, { kind: 'refused', error: { code: 'VALIDATION_ERROR', message: 'bad', httpStatus: 422 } }, 4_000);
    recordInitiateOutcome(db, ids[1]!, { kind: 'may-exist', cause: 'no-answer', message: 'socket hang up', error: null, retryAfterSeconds: null }, 4_000);
    expect(markStalePending(db, 5_000)).toEqual([ids[2]]);
    expect(getEntry(db, ids[0]!)).toMatchObject({ state: 'rejected', lastError: { code: 'VALIDATION_ERROR', httpStatus: 422 } });
    expect(getEntry(db, ids[1]!)?.state).toBe('outcome_unknown');
    expect(getEntry(db, ids[2]!)?.state).toBe('outcome_unknown');
    expect(getTimeline(db, ids[2]!).map((event) => [event.type, event.outcome])).toEqual([
      ['transport_failure', 'unknown'],
      ['request_sent', null],
    ]);
  });
});

describe('journal migration 6', () => {
  it('renames the webhook_received events earlier versions wrote for sandbox status pushes', () => {
    const file = `${tempDir()}/journal.db`;
    const db = openJournal(file);
    const id = recordRequest(db, { profile: PROFILE, kind: 'payment', request: paymentRequest({ external_id: 'OLD-1' }), currency: 'XAF', at: 1_000 }).id;
    db.prepare(`INSERT INTO timeline (entry_seq, type, at, status) SELECT seq, 'webhook_received', 2000, 'failed' FROM entries WHERE id = ?`).run(id);
    // The file as version 5 left it: without the columns later migrations add.
    db.exec('ALTER TABLE reconciliations DROP COLUMN ignored_columns');
    db.exec('DROP TRIGGER entries_moved_row_insert; DROP TRIGGER entries_moved_row_update; ALTER TABLE batch_rows DROP COLUMN moved_to;');
    db.exec('DROP INDEX entries_one_per_payout; ALTER TABLE entries DROP COLUMN legacy_duplicate;');
    db.exec('DROP INDEX entries_adopted; ALTER TABLE entries DROP COLUMN already_sent_at; ALTER TABLE entries DROP COLUMN retry_of; ALTER TABLE batch_rows DROP COLUMN retry_of;');
    db.pragma('user_version = 5');
    db.close();
    const reopened = openJournal(file);
    expect(getTimeline(reopened, id).map((event) => [event.type, event.status])).toEqual([
      ['sandbox_status', 'failed'],
      ['request_sent', null],
    ]);
    reopened.close();
  });
});

describe('journal migration 7', () => {
  it('reopens a reconciliation saved before the ignored columns were kept, with none named', () => {
    const file = `${tempDir()}/journal.db`;
    const db = openJournal(file);
    db.exec('ALTER TABLE reconciliations DROP COLUMN ignored_columns');
    db.exec('DROP TRIGGER entries_moved_row_insert; DROP TRIGGER entries_moved_row_update; ALTER TABLE batch_rows DROP COLUMN moved_to;');
    db.exec('DROP INDEX entries_one_per_payout; ALTER TABLE entries DROP COLUMN legacy_duplicate;');
    db.exec('DROP INDEX entries_adopted; ALTER TABLE entries DROP COLUMN already_sent_at; ALTER TABLE entries DROP COLUMN retry_of; ALTER TABLE batch_rows DROP COLUMN retry_of;');
    db.pragma('user_version = 6');
    db.prepare(
      `INSERT INTO reconciliations (id, file_name, profile_id, profile_name, environment, status, phase, total_rows, processing_minutes, currency, created_at, updated_at)
       VALUES ('r-old', 'old.csv', 'p1', 'Acme', 'sandbox', 'done', 'matching', 0, 30, 'XAF', 1, 1)`,
    ).run();
    db.close();
    const reopened = openJournal(file);
    expect(getSummary(reopened, 'r-old')).toMatchObject({ fileName: 'old.csv', ignoredColumns: [] });
    reopened.close();
  });
});

describe('journal search', () => {
  const base = Date.UTC(2026, 0, 1);
  const { db } = journalWith(
    Array.from({ length: 30 }, (_, i) => ({
      request: paymentRequest({
        external_id: `ORD-${i}`,
        amount: 1000 * (i + 1),
        phone_number: `+23765000${String(i % 3).padStart(4, '0')}`,
        customer: { first_name: i % 2 ? 'Awa' : 'Jean', last_name: i === 7 ? '100%_Lopez' : 'Mbarga', email: 'x@example.com' },
      }),
      at: base + i * 3_600_000,
      kind: i % 5 === 0 ? ('payout' as const) : ('payment' as const),
    })),
  );

  it('finds by external id exactly, by phone, kind, amount and date ranges, newest first and paged', () => {
    expect(searchJournal(db, { externalId: 'ORD-1' }, 0, 10).rows.map((row) => row.externalId)).toEqual(['ORD-1']);
    const byPhone = searchJournal(db, { phoneNumber: '+237650000001' }, 0, 4);
    expect(byPhone.total).toBe(10);
    expect(byPhone.rows).toHaveLength(4);
    expect(byPhone.rows.map((row) => row.externalId)).toEqual(['ORD-28', 'ORD-25', 'ORD-22', 'ORD-19']);
    expect(searchJournal(db, { phoneNumber: '+237650000001' }, 8, 4).rows.map((row) => row.externalId)).toEqual(['ORD-4', 'ORD-1']);
    expect(searchJournal(db, { kind: 'payout' }, 0, 100).total).toBe(6);
    expect(searchJournal(db, { minAmount: 5000, maxAmount: 7000 }, 0, 100).rows.map((row) => row.amount)).toEqual([7000, 6000, 5000]);
    const window = searchJournal(db, { from: new Date(base + 10 * 3_600_000).toISOString(), to: new Date(base + 12 * 3_600_000).toISOString() }, 0, 100);
    expect(window.rows.map((row) => row.externalId)).toEqual(['ORD-12', 'ORD-11', 'ORD-10']);
    expect(searchJournal(db, { state: 'pending', status: 'completed' }, 0, 100).total).toBe(0);
  });

  it('matches text inside ids and names, with LIKE wildcards taken literally (journal-search.test.ts has the rest)', () => {
    expect(searchJournal(db, { text: 'ORD-2' }, 0, 100).rows.map((row) => row.externalId)).toEqual(['ORD-29', 'ORD-28', 'ORD-27', 'ORD-26', 'ORD-25', 'ORD-24', 'ORD-23', 'ORD-22', 'ORD-21', 'ORD-20', 'ORD-2']);
    expect(searchJournal(db, { text: 'mbar' }, 0, 100).total).toBe(29);
    expect(searchJournal(db, { text: '100%' }, 0, 100).rows.map((row) => row.externalId)).toEqual(['ORD-7']);
    expect(searchJournal(db, { text: '%' }, 0, 100).total).toBe(0);
    expect(searchJournal(db, { text: '_' }, 0, 100).total).toBe(0);
  });

  it('uses an index for the exact-match searches', () => {
    for (const column of ['external_id', 'phone_number', 'transaction_id']) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM entries WHERE ${column} = ? ORDER BY created_at DESC LIMIT 10`).all('x') as { detail: string }[];
      expect(plan.map((step) => step.detail).join(' ')).toMatch(/USING INDEX/);
    }
  });
});

describe('CSV export', () => {
  it('exports the rows of a search with a header', () => {
    const { db } = journalWith([
      { request: paymentRequest({ external_id: 'CSV-1', description: '=cmd|"/c calc"!A1', customer: { first_name: '@Awa', last_name: 'O,Neil', email: 'a@example.com' } }), at: 1 },
      { request: paymentRequest({ external_id: 'CSV-2' }), at: 2 },
    ]);
    const { csv, rows } = exportCsv(db, { externalId: 'CSV-1' });
    expect(rows).toBe(1);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split(',')).toContain('"external_id"');
    expect(lines[1]).toContain(`"'=cmd|""/c calc""!A1"`);
    expect(lines[1]).toContain(`"'@Awa"`);
    expect(lines[1]).toContain('"O,Neil"');
  });
});
