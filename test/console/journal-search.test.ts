/**
 * History's search box on a real SQLite journal file: any part of an external id, a phone number
 * with or without `+` and spaces, names in any order, case and accents aside (journal migration 5,
 * the trigram index kept in sync by triggers), and the migration of a journal created at version 4.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { TransactionRequest } from '../../shared/contract';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import { openJournal, recordRequest } from '../../electron/console/journal/entries';
import { exportCsv, searchJournal } from '../../electron/console/journal/search';
import { paymentRequest, tempDir } from './helpers';

const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

const PEOPLE: { external_id: string; phone_number: string; first_name: string; last_name: string }[] = [
  { external_id: 'SAL-2026-11-0187', phone_number: '+237690112233', first_name: 'Awa', last_name: 'Ndiaye' },
  { external_id: 'SAL-2026-11-0188', phone_number: '+237690112244', first_name: 'Éloïse', last_name: 'Tchoupé' },
  { external_id: 'SAL-2026-11-0290', phone_number: '+237677000001', first_name: 'Jean', last_name: 'Mbarga' },
  { external_id: 'INV-2026-12-0187', phone_number: '+221771234567', first_name: 'Moussa', last_name: 'Diallo' },
  { external_id: 'ref.2025:77', phone_number: '+237650000187', first_name: 'Eloise', last_name: 'Awa-Ndiaye' },
];

function journal() {
  const db = openJournal(`${tempDir()}/journal.db`);
  PEOPLE.forEach((person, i) => {
    const request: TransactionRequest = paymentRequest({
      external_id: person.external_id,
      phone_number: person.phone_number,
      customer: { first_name: person.first_name, last_name: person.last_name, email: 'c@example.com' },
    });
    recordRequest(db, { profile: PROFILE, kind: 'payment', request, currency: 'XAF', at: 1_000 + i });
  });
  return db;
}

const ids = (db: ReturnType<typeof journal>, text: string) => searchJournal(db, { text }, 0, 100).rows.map((row) => row.externalId);

describe('History search by part of an id, a phone number or a name', () => {
  const db = journal();

  it('finds an external id from any part of it, newest first, and an exact one alone', () => {
    expect(ids(db, 'SAL-2026-11-018')).toEqual(['SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, 'SAL-2026-11-0187')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, '11-0187')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, 'sal-2026')).toEqual(['SAL-2026-11-0290', 'SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, '2026-11-018')).toEqual(['SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, '0187')).toEqual(['ref.2025:77', 'INV-2026-12-0187', 'SAL-2026-11-0187']);
    expect(ids(db, 'ref.2025:7')).toEqual(['ref.2025:77']);
    expect(ids(db, 'SAL-2026-11-0189')).toEqual([]);
  });

  it('finds a phone number with or without +, spaces or dashes, and from part of it', () => {
    expect(ids(db, '+237690112233')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, '237690112233')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, '+237 690 11 22 33')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, '690-11-22')).toEqual(['SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, '12233')).toEqual(['SAL-2026-11-0187']);
    expect(ids(db, '+221')).toEqual(['INV-2026-12-0187']);
    expect(ids(db, '771 234')).toEqual(['INV-2026-12-0187']);
  });

  it('finds names in any order, any case, with or without accents', () => {
    expect(ids(db, 'ndiaye')).toEqual(['ref.2025:77', 'SAL-2026-11-0187']);
    expect(ids(db, 'Ndiaye Awa')).toEqual(['ref.2025:77', 'SAL-2026-11-0187']);
    expect(ids(db, 'awa ndiaye')).toEqual(['ref.2025:77', 'SAL-2026-11-0187']);
    expect(ids(db, 'eloise')).toEqual(['ref.2025:77', 'SAL-2026-11-0188']);
    expect(ids(db, 'ÉLOÏSE')).toEqual(['ref.2025:77', 'SAL-2026-11-0188']);
    expect(ids(db, 'tchoupe')).toEqual(['SAL-2026-11-0188']);
    expect(ids(db, 'Tchoupé Éloïse')).toEqual(['SAL-2026-11-0188']);
    expect(ids(db, 'mbarga jean')).toEqual(['SAL-2026-11-0290']);
    // A word of one or two characters narrows what the longer words found.
    expect(ids(db, 'ndiaye aw')).toEqual(['ref.2025:77', 'SAL-2026-11-0187']);
    expect(ids(db, 'ndiaye 2')).toEqual(['ref.2025:77', 'SAL-2026-11-0187']);
    expect(ids(db, 'ndiaye zz')).toEqual([]);
    // Every word must be found: a name and a phone number together.
    expect(ids(db, 'awa 690112')).toEqual(['SAL-2026-11-0187']);
  });

  it('combines the text with the other filters, counts, pages and exports the same rows', () => {
    expect(searchJournal(db, { text: 'SAL-2026', kind: 'payout' }, 0, 100).total).toBe(0);
    const page = searchJournal(db, { text: 'sal-2026' }, 1, 1);
    expect(page.total).toBe(3);
    expect(page.rows.map((row) => row.externalId)).toEqual(['SAL-2026-11-0188']);
    expect(exportCsv(db, { text: '0187' }).rows).toBe(3);
  });

  it('keeps the index in step with the journal when a searched column changes or a row goes', () => {
    const own = journal();
    own.prepare(`UPDATE entries SET customer_last_name = 'Zangabeto', external_id = 'NEW-0001' WHERE external_id = 'SAL-2026-11-0290'`).run();
    expect(ids(own, 'mbarga')).toEqual([]);
    expect(ids(own, 'zangab')).toEqual(['NEW-0001']);
    expect(ids(own, 'NEW-000')).toEqual(['NEW-0001']);
    // An update that leaves the searched columns as they were (an answer recorded) re-indexes nothing.
    own.prepare(`UPDATE entries SET external_id = external_id, status = 'completed' WHERE external_id = 'NEW-0001'`).run();
    expect(ids(own, 'zangab')).toEqual(['NEW-0001']);
    own.prepare(`DELETE FROM entries WHERE external_id = 'NEW-0001'`).run();
    expect(ids(own, 'zangab')).toEqual([]);
    expect(own.prepare('SELECT count(*) AS n FROM entries_search').get()).toEqual({ n: PEOPLE.length - 1 });
  });

  it('uses the trigram index, not a scan of the journal, for text of three characters or more', () => {
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT rowid FROM entries_search WHERE entries_search MATCH ?`).all('"187"') as { detail: string }[];
    expect(plan.map((step) => step.detail).join(' ')).toMatch(/VIRTUAL TABLE INDEX/);
  });
});

describe('journal migration 5 on a journal created at version 4', () => {
  it('indexes every existing row, so old entries are found by part of their id, phone or name', () => {
    const file = `${tempDir()}/journal.db`;
    const old = new Database(file);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 4)) {
      old.exec(migration.sql);
      old.pragma(`user_version = ${migration.version}`);
    }
    const insert = old.prepare(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, external_id, amount, currency, phone_number,
         payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES (?, 'p1', 'Acme', 'sandbox', 'payment', 'known', ?, 100, 'XAF', ?, 'momo_cm', ?, ?, 'c@example.com', ?, ?)`,
    );
    PEOPLE.forEach((person, i) => insert.run(`e${i}`, person.external_id, person.phone_number, person.first_name, person.last_name, i, i));
    old.close();

    const db = openJournal(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(ids(db, 'SAL-2026-11-018')).toEqual(['SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, '690 11 22')).toEqual(['SAL-2026-11-0188', 'SAL-2026-11-0187']);
    expect(ids(db, 'tchoupe')).toEqual(['SAL-2026-11-0188']);
    // Rows written after the migration are indexed by its trigger.
    recordRequest(db, { profile: PROFILE, kind: 'payout', request: paymentRequest({ external_id: 'SAL-2026-11-0189' }), currency: 'XAF', at: 99 });
    expect(ids(db, 'SAL-2026-11-018')).toEqual(['SAL-2026-11-0189', 'SAL-2026-11-0188', 'SAL-2026-11-0187']);
  });
});
