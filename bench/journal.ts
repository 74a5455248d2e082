/**
 * `npm run bench:journal`: History's search at 10k, 100k and 1M journal rows on a real SQLite
 * file with the real schema and indexes: the exact external-id lookup (B-tree, the baseline of the
 * same run) beside what the search box does through the trigram index of journal migration 5
 * (partial external id, phone with and without `+`, name). Each journal is filled at migration 4
 * and then migrated, so the time journal migration 5 takes on an existing journal is printed too.
 *
 * A query's time is the search (page of 100 rows + the total) and the page's JSON, what main does
 * for `transactions:search` before the renderer draws. Speed is measured here, never asserted.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openJournal, type JournalDb } from '../electron/console/journal/entries';
import { MIGRATIONS } from '../electron/console/journal/migrations';
import { searchJournal } from '../electron/console/journal/search';
import type { SearchQuery } from '../shared/api';
import { benchTempDir } from './temp';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 400);
const ROWS_PER_INSERT = 500;
const PREFIXES = ['SAL', 'INV', 'REF', 'PAY'];
const FIRST = ['Awa', 'Jean', 'Éloïse', 'Moussa', 'Fatou', 'Paul', 'Aïcha', 'Samuel', 'Grace', 'Ibrahim', 'Chantal', 'Éric', 'Mariam', 'Yves', 'Nadège', 'Hervé'];
/** 300 family names: a name matches about 1 row in 300 (3,300 rows at a million). */
const LAST = Array.from({ length: 300 }, (_, i) => `${['Ndiaye', 'Mbarga', 'Kouassi', 'Nkomo', 'Diallo', 'Tchoupé', 'Essomba', 'Ngo', 'Fotso', 'Onana'][i % 10]}${i < 10 ? '' : String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26))}`);
const COLUMNS = `id, profile_id, profile_name, environment, kind, state, transaction_id, external_id, status, amount, currency,
  phone_number, payment_method, customer_first_name, customer_last_name, customer_email, created_at, updated_at`;

/** External ids as a merchant writes them: SAL-2026-11-01873 (prefix, month, counter). */
function externalId(i: number): string {
  return `${PREFIXES[i % 4]}-2026-${String(1 + ((i >> 2) % 12)).padStart(2, '0')}-${String(Math.floor(i / 48)).padStart(5, '0')}`;
}
/** About ten journal entries per phone number, as for a support desk's repeat customers. */
function phone(i: number, rows: number): string {
  return `+2376${String(i % Math.max(1, Math.floor(rows / 10))).padStart(8, '0')}`;
}

function row(i: number, rows: number): unknown[] {
  const at = Date.UTC(2026, 0, 1) + i * 1000;
  const status = ['completed', 'failed', 'processing', 'cancelled'][i % 4];
  return [`e${i}`, 'p1', 'Acme', 'sandbox', i % 4 === 0 ? 'payout' : 'payment', 'known', `TE_${i}`, externalId(i), status, 100 + (i % 50_000), 'XAF',
    phone(i, rows), 'momo_cm', FIRST[(i * 7) % FIRST.length], LAST[(i * 13) % LAST.length], 'client@example.com', at, at];
}

/** A journal at migration 4 (before the search index), filled with multi-row INSERTs. */
function journalAtVersion4(file: string, rows: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  for (const migration of MIGRATIONS.filter((m) => m.version <= 4)) {
    db.exec(migration.sql);
    db.pragma(`user_version = ${migration.version}`);
  }
  const placeholders = `(${Array(18).fill('?').join(',')})`;
  const many = db.prepare(`INSERT INTO entries (${COLUMNS}) VALUES ${Array(ROWS_PER_INSERT).fill(placeholders).join(',')}`);
  for (let start = 0; start < rows; start += 50_000) {
    db.transaction(() => {
      for (let i = start; i < Math.min(rows, start + 50_000); i += ROWS_PER_INSERT) {
        const values: unknown[] = [];
        for (let j = i; j < i + ROWS_PER_INSERT; j += 1) values.push(...row(j, rows));
        many.run(...values);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Figures { p50: number; p95: number; p99: number; cpuP95: number; rows: number }

/** Wall-clock percentiles, and CPU p95: on a loaded machine wall time is mostly waiting for a core. */
function measure(db: JournalDb, query: (i: number) => SearchQuery): Figures {
  let found = 0;
  const once = (i: number) => {
    const page = searchJournal(db, query(i), 0, 100);
    JSON.stringify(page);
    if (page.total < 1) throw new Error(`no row for ${JSON.stringify(query(i))}`);
    found += page.total;
  };
  for (let i = 0; i < 20; i += 1) once(QUERIES + i); // warm the page cache and the statement cache
  found = 0;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < QUERIES; i += 1) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    once(i);
    times.push(performance.now() - t0);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), cpuP95: percentile(cpu, 95), rows: found / QUERIES };
}

function main(): void {
  const dir = benchTempDir('paydesk-bench-journal-');
  const ms = (value: number) => `${value.toFixed(2)}`.padStart(7);
  console.log(`History search, ${QUERIES} queries per case (page of 100 + total + the page's JSON); ms`);
  console.log('rows       | case                                | rows found | p50     | p95     | p99     | cpu p95 | p95 vs exact id');
  for (const rows of SIZES) {
    const file = join(dir.path, `journal-${rows}.db`);
    const t0 = performance.now();
    journalAtVersion4(file, rows);
    const filled = (performance.now() - t0) / 1000;
    const sizeBefore = statSync(file).size;
    const t1 = performance.now();
    const db = openJournal(file); // applies migration 5: builds the trigram index over every row
    const migrated = (performance.now() - t1) / 1000;
    db.pragma('wal_checkpoint(TRUNCATE)');
    const sizeAfter = statSync(file).size;
    db.exec('ANALYZE');
    try {
      // Pseudo-random picks spread over the whole table (deterministic, so runs compare).
      const pick = (i: number) => (i * 7_919 + 13) % rows;
      const cases: [string, (i: number) => SearchQuery][] = [
        ['exact external id (field, B-tree)', (i) => ({ externalId: externalId(pick(i)) })],
        ['exact external id (search box)', (i) => ({ text: externalId(pick(i)) })],
        ['partial external id (last digit cut)', (i) => ({ text: externalId(pick(i)).slice(0, -1) })],
        ['partial phone, 7 digits, no +', (i) => ({ text: phone(pick(i), rows).slice(-7) })],
        ['phone with + and spaces', (i) => ({ text: phone(pick(i), rows).replace(/^(\+\d{3})(\d{3})(\d{3})/, '$1 $2 $3 ') })],
        ['family name', (i) => ({ text: (row(pick(i), rows)[14] as string).toLowerCase() })],
        ['first and family name', (i) => ({ text: `${row(pick(i), rows)[13] as string} ${row(pick(i), rows)[14] as string}` })],
      ];
      let base: Figures | null = null;
      for (const [name, query] of cases) {
        const figures = measure(db, query);
        base ??= figures;
        console.log(`${rows.toLocaleString('en').padEnd(10)} | ${name.padEnd(35)} | ${figures.rows.toFixed(0).padStart(10)} | ${ms(figures.p50)} | ${ms(figures.p95)} | ${ms(figures.p99)} | ${ms(figures.cpuP95)} | ${(figures.p95 / base.p95).toFixed(1)}x`);
      }
      const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
      console.log(`${rows.toLocaleString('en').padEnd(10)} | filled at migration 4 in ${filled.toFixed(1)} s; migration 5 (trigram index of every row) took ${migrated.toFixed(1)} s; file ${mb(sizeBefore)} -> ${mb(sizeAfter)}`);
    } finally {
      db.close();
      dir.removeFile(file);
    }
  }
  // Other processes on the machine show up in p95/p99: print the load so figures can be judged.
  console.log(`load average (1/5/15 min): ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
}

// benchTempDir removes its folder at exit, on SIGINT/SIGTERM and after an uncaught error.
main();
