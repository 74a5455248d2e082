/**
 * History search at a million rows on both stores, side by side (called by bench/storage.ts): the
 * same rows in a SQLite journal (FTS5 trigram, journal migration 5) and a PostgreSQL workspace
 * (pg_trgm GIN, workspace migration 5), the same queries through the storage port's
 * `journal.search` (page of 100 + total + the page's JSON). The rows are bench/journal.ts's:
 * external ids as merchants write them, ~10 entries per phone, 16 first names, 300 family names.
 *
 * Filling: SQLite with multi-row INSERTs at journal version 4, then migrated (the trigram index
 * built once over every row); PostgreSQL with ONE `INSERT … SELECT generate_series`, the row
 * triggers off (who did what, change events: a million NOTIFYs is not what is measured) and
 * `search_text` computed by the trigger's own expression, the GIN index built after.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { openJournal, type JournalDb } from '../electron/console/journal/entries';
import { MIGRATIONS } from '../electron/console/journal/migrations';
import type { JournalPort } from '../electron/console/storage/port';
import type { SearchQuery } from '../shared/api';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const ROWS_PER_INSERT = 500;
const PREFIXES = ['SAL', 'INV', 'REF', 'PAY'];
const FIRST = ['Awa', 'Jean', 'Éloïse', 'Moussa', 'Fatou', 'Paul', 'Aïcha', 'Samuel', 'Grace', 'Ibrahim', 'Chantal', 'Éric', 'Mariam', 'Yves', 'Nadège', 'Hervé'];
const LAST = Array.from({ length: 300 }, (_, i) => `${['Ndiaye', 'Mbarga', 'Kouassi', 'Nkomo', 'Diallo', 'Tchoupé', 'Essomba', 'Ngo', 'Fotso', 'Onana'][i % 10]}${i < 10 ? '' : String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26))}`);
const START = Date.UTC(2026, 0, 1);

function externalId(i: number): string {
  return `${PREFIXES[i % 4]}-2026-${String(1 + ((i >> 2) % 12)).padStart(2, '0')}-${String(Math.floor(i / 48)).padStart(5, '0')}`;
}
function phone(i: number, rows: number): string {
  return `+2376${String(i % Math.max(1, Math.floor(rows / 10))).padStart(8, '0')}`;
}
const first = (i: number) => FIRST[(i * 7) % FIRST.length]!;
const last = (i: number) => LAST[(i * 13) % LAST.length]!;

const COLUMNS = `id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, amount, currency,
  phone_number, payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at`;

function row(i: number, rows: number): unknown[] {
  const at = START + i * 1000;
  return [`e${i}`, 'p1', 'Acme', 'sandbox', i % 4 === 0 ? 'payout' : 'payment', 'known', `TE_${i}`, externalId(i), ['completed', 'failed', 'processing', 'cancelled'][i % 4], 100 + (i % 50_000), 'XAF',
    phone(i, rows), 'momo_cm', first(i), last(i), 'client@example.com', at, at];
}

/** A SQLite journal of `rows` entries at the latest version; returns it open and the seconds it took. */
export function fillSqlite(file: string, rows: number): { db: JournalDb; seconds: number } {
  const t0 = performance.now();
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  for (const migration of MIGRATIONS.filter((m) => m.version <= 4)) {
    raw.exec(migration.sql);
    raw.pragma(`user_version = ${migration.version}`);
  }
  const placeholders = `(${Array(18).fill('?').join(',')})`;
  const many = raw.prepare(`INSERT INTO entries (${COLUMNS}) VALUES ${Array(ROWS_PER_INSERT).fill(placeholders).join(',')}`);
  for (let start = 0; start < rows; start += 50_000) {
    raw.transaction(() => {
      for (let i = start; i < Math.min(rows, start + 50_000); i += ROWS_PER_INSERT) {
        const values: unknown[] = [];
        for (let j = i; j < i + ROWS_PER_INSERT; j += 1) values.push(...row(j, rows));
        many.run(...values);
      }
    })();
  }
  raw.close();
  const db = openJournal(file); // migrations 5 and later: the trigram index over every row
  db.exec('ANALYZE');
  return { db, seconds: (performance.now() - t0) / 1000 };
}

/** The same rows in a migrated, empty workspace: one INSERT … SELECT generate_series. */
export async function fillPostgres(c: pg.ClientBase, rows: number): Promise<number> {
  const t0 = performance.now();
  await c.query('ALTER TABLE entries DISABLE TRIGGER USER');
  await c.query('DROP INDEX entries_search');
  await c.query(
    `INSERT INTO entries (${COLUMNS}, search_text)
     SELECT id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, amount, currency,
       phone_number, payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at,
       lower(unaccent(external_id || ' ' || phone_number || ' ' || customer_first_name || ' ' || customer_last_name))
     FROM (SELECT 'e' || i AS id, 'p1' AS profile_id, 'Acme' AS profile_name, 'sandbox' AS environment,
             CASE WHEN i % 4 = 0 THEN 'payout' ELSE 'payment' END AS kind, 'known' AS state, 'TE_' || i AS transaction_id,
             ($1::text[])[i % 4 + 1] || '-2026-' || lpad((1 + ((i >> 2) % 12))::text, 2, '0') || '-' || lpad((i / 48)::text, 5, '0') AS external_id,
             (ARRAY['completed', 'failed', 'processing', 'cancelled'])[i % 4 + 1] AS status, 100 + (i % 50000) AS amount, 'XAF' AS currency,
             '+2376' || lpad((i % greatest(1, $2::bigint / 10))::text, 8, '0') AS phone_number, 'momo_cm' AS payment_method,
             ($3::text[])[(i * 7) % 16 + 1] AS customer_first_name, ($4::text[])[(i * 13) % 300 + 1] AS customer_last_name,
             'client@example.com' AS customer_email, $5::bigint + i * 1000 AS created_at, $5::bigint + i * 1000 AS updated_at
           FROM generate_series(0::bigint, $2::bigint - 1) AS i) g`,
    [PREFIXES, rows, FIRST, LAST, START],
  );
  await c.query('CREATE INDEX entries_search ON entries USING gin (search_text gin_trgm_ops)');
  await c.query('ALTER TABLE entries ENABLE TRIGGER USER');
  await c.query('VACUUM ANALYZE entries');
  return (performance.now() - t0) / 1000;
}

export interface SearchCase {
  name: string;
  query: (i: number) => SearchQuery;
}

export function searchCases(rows: number): SearchCase[] {
  // Pseudo-random picks spread over the whole table (deterministic, so runs compare).
  const pick = (i: number) => (i * 7_919 + 13) % rows;
  return [
    { name: 'exact external id (field)', query: (i) => ({ externalId: externalId(pick(i)) }) },
    { name: 'exact external id (search box)', query: (i) => ({ text: externalId(pick(i)) }) },
    { name: 'partial external id', query: (i) => ({ text: externalId(pick(i)).slice(0, -1) }) },
    { name: 'partial phone, 7 digits', query: (i) => ({ text: phone(pick(i), rows).slice(-7) }) },
    { name: 'phone with + and spaces', query: (i) => ({ text: phone(pick(i), rows).replace(/^(\+\d{3})(\d{3})(\d{3})/, '$1 $2 $3 ') }) },
    { name: 'family name', query: (i) => ({ text: last(pick(i)).toLowerCase() }) },
    { name: 'first and family name', query: (i) => ({ text: `${first(pick(i))} ${last(pick(i))}` }) },
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** p50 / p95 (ms) of `journal.search` for a case, after 10 warm-up queries; checks each finds its row. */
export async function measureSearch(journal: JournalPort, search: SearchCase): Promise<{ p50: number; p95: number; found: number }> {
  let found = 0;
  const once = async (i: number) => {
    const page = await journal.search(search.query(i), 0, 100);
    JSON.stringify(page);
    if (page.total < 1) throw new Error(`no row for ${JSON.stringify(search.query(i))}`);
    found += page.total;
  };
  for (let i = 0; i < 10; i += 1) await once(QUERIES + i);
  found = 0;
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i += 1) {
    const t0 = performance.now();
    await once(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), found: found / QUERIES };
}
