/**
 * `npx tsx bench/storage.ts`: one confirmed batch sent through the storage port on both stores in
 * the same run, the SQLite journal (the baseline) and a PostgreSQL workspace on a throwaway local
 * cluster (fsync on, the server's defaults): workers take rows through the runner's own claims
 * (../electron/console/batch/claims.ts: claimed in groups, each row kept before its POST), write
 * each row's entry `pending`, record its accepted answer, and release the group, as the batch
 * runner does. No HTTP: this measures what the store costs per row. Speed is printed here, never
 * asserted.
 *
 * BENCH_ROWS (default 1000), BENCH_WORKERS (default 8), BENCH_GROUP (rows per claim, default 10),
 * BENCH_ROUNDS (default 3). The machine is shared, so the stores take turns: each round sends one
 * batch on every store below, and each PostgreSQL figure is divided by the mean of the SQLite
 * runs just before and just after it (SQLite runs once more at the end).
 *
 * PostgreSQL runs three ways: the store as it is (journal writes group-committed: one flush per
 * group, ./group-commit.ts); a transaction per write (how it wrote before: a flush per write); and
 * a transaction per write with synchronous_commit off for the session, only to show what the
 * flush costs (not proposed: a pending entry must be on disk before its POST leaves). SQLite's
 * journal (WAL, synchronous NORMAL) does not flush per commit.
 *
 * Then History search at BENCH_SEARCH_ROWS (default 1,000,000; 0 runs the batch part only) on both
 * stores side by side (./storage-search.ts), BENCH_QUERIES per case (default 200).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LEASE_MS, rowClaims } from '../electron/console/batch/claims';
import { openJournal } from '../electron/console/journal/entries';
import type { StoragePort } from '../electron/console/storage/port';
import { sqliteStore } from '../electron/console/storage/sqlite-store';
import { startCluster } from '../electron/console/storage/postgres/cluster';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import { checkedRows, PROFILE, serviceTx } from '../test/storage/fixtures';
import { benchTempDir, onBenchExit } from './temp';
import { fillPostgres, fillSqlite, measureSearch, searchCases } from './storage-search';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
const GROUP = Number(process.env.BENCH_GROUP ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEARCH_ROWS = Number(process.env.BENCH_SEARCH_ROWS ?? 1_000_000);
const load = () => loadavg().map((n) => n.toFixed(2)).join(' / ');

/** Where the bench's cluster listens (set once it started). */
const PG = { host: '', port: 0 };

let batches = 0;

/** A batch of ROWS rows with external ids of its own (earlier batches' entries are not its attempts). */
function batchRows(batchId: string) {
  return checkedRows(ROWS, { amount: 700 }).map((row) => {
    const externalId = `${batchId}-${row.rowNumber}`;
    return { ...row, externalId, values: { ...row.values, external_id: externalId }, request: { ...row.request!, external_id: externalId } };
  });
}

async function sendBatch(store: StoragePort): Promise<number> {
  batches += 1;
  const batchId = `b-${store.kind}-${batches}`;
  await store.batches.create({ id: batchId, fileName: 'bench.csv', fileHash: batchId, profile: PROFILE, paymentMethod: null, concurrency: WORKERS, retryOf: null, rows: batchRows(batchId), at: 0 });
  await store.batches.setState(batchId, 'sending', 0);
  const started = performance.now();
  // As the batch runner sends (../electron/console/batch/runner.ts, send-row.ts): one console's
  // row claims shared by its workers, the claim kept (renewed) before each row's POST, the
  // pending entry awaited, the answer written without waiting (the run waits for all at the end),
  // each claim released once its rows are answered.
  const claims = rowClaims(store.batches, batchId, { now: () => Date.now() }, { holder: `bench-${batchId}`, size: GROUP, leaseMs: LEASE_MS });
  const answers: Promise<void>[] = [];
  const worker = async () => {
    for (;;) {
      const claimed = await claims.next();
      if (!claimed) return;
      const { row } = claimed;
      if (!(await claims.keep(claimed))) throw new Error(`${store.kind}: the claim on row ${row.rowNumber} was lost`);
      const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at: 1, batch: { id: batchId, row: row.rowNumber } });
      answers.push(store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(row.request!), httpStatus: 201, message: null }, 2));
      await claims.done(claimed);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, () => worker()));
  await Promise.all(answers);
  await claims.releaseAll();
  const seconds = (performance.now() - started) / 1000;
  const { counts } = await store.batches.counts(batchId);
  if (counts.accepted !== ROWS) throw new Error(`${store.kind}: ${counts.accepted} of ${ROWS} rows accepted`);
  return ROWS / seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = benchTempDir('paydesk-bench-storage-');
  // As root the server runs as `postgres`, which must pass through the folder.
  chmodSync(dir.path, 0o711);
  const sqlite = sqliteStore(openJournal(join(dir.path, 'journal.db')), { settingsFile: join(dir.path, 'settings.json') });
  const started = performance.now();
  const pgDir = join(dir.path, 'pg');
  mkdirSync(pgDir);
  const cluster = await startCluster({ dir: pgDir, superuser: 'paydesk_bench', auth: { method: 'trust' }, durable: true });
  onBenchExit(() => cluster.stop());
  console.log(`PostgreSQL cluster started in ${Math.round(performance.now() - started)} ms (initdb + pg_ctl start)`);
  const config = { host: cluster.host, port: cluster.port, user: 'paydesk_bench', database: 'postgres', max: WORKERS };
  const migrating = new pg.Client(config);
  await migrating.connect();
  await migrateWorkspace(migrating);
  await migrating.end();
  PG.host = cluster.host;
  PG.port = cluster.port;
  const variants: { name: string; store: StoragePort; rates: number[]; ratios: number[] }[] = [
    { name: 'PostgreSQL, journal writes group-committed', store: workspaceStore(openWorkspacePool(config)) },
    { name: 'PostgreSQL, a transaction per write (before)', store: workspaceStore(openWorkspacePool(config), { journalWrites: 'per-transaction' }) },
    {
      name: 'PostgreSQL, a transaction per write, no flush (cost of fsync only)',
      store: workspaceStore(openWorkspacePool({ ...config, options: '-c synchronous_commit=off' }), { journalWrites: 'per-transaction' }),
    },
  ].map((variant) => ({ ...variant, rates: [], ratios: [] }));

  console.log(`one batch of ${ROWS} rows, ${WORKERS} workers, claims of ${GROUP} rows (no HTTP: the store's cost per row), ${ROUNDS} rounds; load ${load()}`);
  const sqliteRates = [await sendBatch(sqlite)];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const rates = variants.map(() => 0);
    for (const [i, variant] of variants.entries()) rates[i] = await sendBatch(variant.store);
    sqliteRates.push(await sendBatch(sqlite));
    const baseline = (sqliteRates.at(-2)! + sqliteRates.at(-1)!) / 2;
    const line = variants.map((variant, i) => {
      variant.rates.push(rates[i]!);
      variant.ratios.push(rates[i]! / baseline);
      return `${rates[i]!.toFixed(0)} (${(rates[i]! / baseline).toFixed(2)}×)`;
    });
    console.log(`  round ${round}: SQLite ${sqliteRates.at(-2)!.toFixed(0)}/${sqliteRates.at(-1)!.toFixed(0)} rows/s; PostgreSQL ${line.join(', ')}; load ${load()}`);
  }
  console.log(`  ${'SQLite (baseline)'.padEnd(68)} ${median(sqliteRates).toFixed(0).padStart(6)} rows/s (median of ${sqliteRates.length}, ${Math.min(...sqliteRates).toFixed(0)}–${Math.max(...sqliteRates).toFixed(0)})`);
  for (const variant of variants) {
    const range = `${Math.min(...variant.ratios).toFixed(2)}–${Math.max(...variant.ratios).toFixed(2)}×`;
    console.log(`  ${variant.name.padEnd(68)} ${median(variant.rates).toFixed(0).padStart(6)} rows/s   ${median(variant.ratios).toFixed(2)}× SQLite (median; ${range})`);
  }
  console.log(`load average (1/5/15 min): ${load()}`);
  await sqlite.close();
  for (const variant of variants) await variant.store.close();
  if (SEARCH_ROWS > 0) await searchSideBySide(dir.path);
}

async function searchSideBySide(folder: string): Promise<void> {
  console.log(`\nHistory search at ${SEARCH_ROWS.toLocaleString('en')} rows (page of 100 + total + JSON), through the port; load ${load()}`);
  const sqlite = fillSqlite(join(folder, 'search.db'), SEARCH_ROWS);
  console.log(`SQLite filled and indexed in ${sqlite.seconds.toFixed(0)} s; load ${load()}`);
  const search = sqliteStore(sqlite.db, { settingsFile: join(folder, 'search-settings.json') });
  // The batch runs' entries are in the workspace already: the search table is a database of its own.
  const fill = openWorkspacePool({ host: PG.host, port: PG.port, user: 'paydesk_bench', database: 'postgres', max: 2 });
  const c = await fill.connect();
  await c.query('CREATE DATABASE paydesk_search');
  c.release();
  await fill.end();
  const pool = openWorkspacePool({ host: PG.host, port: PG.port, user: 'paydesk_bench', database: 'paydesk_search', max: 4 });
  const migrating = await pool.connect();
  await migrateWorkspace(migrating);
  console.log(`PostgreSQL filled and indexed in ${(await fillPostgres(migrating, SEARCH_ROWS)).toFixed(0)} s; load ${load()}`);
  migrating.release();
  const workspace = workspaceStore(pool);
  const ms = (n: number) => n.toFixed(1).padStart(7);
  console.log(`${'case'.padEnd(32)} | rows found | SQLite p50 | SQLite p95 | PG p50 | PG p95 | PG/SQLite p95`);
  for (const searchCase of searchCases(SEARCH_ROWS)) {
    const a = await measureSearch(search.journal, searchCase);
    const b = await measureSearch(workspace.journal, searchCase);
    console.log(`${searchCase.name.padEnd(32)} | ${a.found.toFixed(0).padStart(10)} | ${ms(a.p50)}    | ${ms(a.p95)}    | ${ms(b.p50)} | ${ms(b.p95)} | ${(b.p95 / a.p95).toFixed(2)}×`);
  }
  console.log(`load average (1/5/15 min): ${load()}`);
  await workspace.close();
  await search.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
