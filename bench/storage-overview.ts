/**
 * The Overview on both stores, side by side in one run: the same rows (bench/storage-search.ts's
 * fill: one profile, one entry a second, a quarter of them payouts, statuses in turn) in a SQLite
 * journal and a PostgreSQL workspace, the same seven days read through the storage port's
 * `journal.overview`. The week ends at the newest row, so at 100,000 rows every row is in it and
 * at 1,000,000 rows about 600,000 are (a heavy week for a team). Prints p50/p95 of each store and
 * PG/SQLite; never asserted. Also prints PostgreSQL's plan of the day groups (EXPLAIN ANALYZE).
 *
 *   npx tsx bench/storage-overview.ts            # 100,000 rows
 *   BENCH_OVERVIEW_ROWS=1000000 npx tsx bench/storage-overview.ts
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import type { JournalPort } from '../electron/console/storage/port';
import { sqliteStore } from '../electron/console/storage/sqlite-store';
import { startCluster } from '../electron/console/storage/postgres/cluster';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { WORKSPACE_GROUPS_SQL } from '../electron/console/storage/postgres/reads';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import type { OverviewScope } from '../electron/console/journal/overview';
import { benchTempDir, onBenchExit } from './temp';
import { fillPostgres, fillSqlite } from './storage-search';

const ROWS_LIST = (process.env.BENCH_OVERVIEW_ROWS ?? '100000').split(',').map(Number);
const READS = Number(process.env.BENCH_READS ?? 30);
const DAY = 86_400_000;
/** bench/storage-search.ts's first row; one row a second after it. */
const START = Date.UTC(2026, 0, 1);

const load = () => loadavg().map((n) => n.toFixed(1)).join(' / ');
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function timeReads(journal: JournalPort, scope: OverviewScope): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < READS; i += 1) {
    const t0 = performance.now();
    JSON.stringify(await journal.overview(scope));
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

async function atRows(folder: string, host: string, port: number, rows: number): Promise<void> {
  console.log(`\nThe Overview at ${rows.toLocaleString('en')} rows; load ${load()}`);
  const sqlite = fillSqlite(join(folder, `overview-${rows}.db`), rows);
  console.log(`SQLite filled in ${sqlite.seconds.toFixed(0)} s; load ${load()}`);
  const desk = sqliteStore(sqlite.db, { settingsFile: join(folder, `overview-${rows}.json`) });
  const database = `paydesk_overview_${rows}`;
  const admin = openWorkspacePool({ host, port, user: 'paydesk_bench', database: 'postgres', max: 1 });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const pool = openWorkspacePool({ host, port, user: 'paydesk_bench', database, max: 4 });
  const migrating = await pool.connect();
  await migrateWorkspace(migrating);
  console.log(`PostgreSQL filled in ${(await fillPostgres(migrating, rows)).toFixed(0)} s; load ${load()}`);
  migrating.release();
  const team = workspaceStore(pool);

  const end = START + rows * 1000;
  const dayBoundaries = Array.from({ length: 8 }, (_, i) => end - (7 - i) * DAY);
  const scope: OverviewScope = { profile: { id: 'p1', name: 'Acme', environment: 'sandbox' }, dayBoundaries, now: end };
  const a = await desk.journal.overview(scope);
  const b = await team.journal.overview(scope);
  console.log(`same figures on both stores: ${isDeepStrictEqual(a, b) ? 'yes' : 'NO'}; the week holds ${a.week.total.count.toLocaleString('en')} transactions, ${a.stuck.total.toLocaleString('en')} stuck`);
  const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${WORKSPACE_GROUPS_SQL}`, ['p1', 'sandbox', dayBoundaries.slice(0, -1), dayBoundaries.slice(1)]);
  console.log('PostgreSQL plan of the day groups:');
  for (const line of plan.rows) console.log(`  ${line['QUERY PLAN']}`);

  // Warm-up, then the stores in turn, READS each.
  await timeReads(desk.journal, scope);
  await timeReads(team.journal, scope);
  const s = await timeReads(desk.journal, scope);
  const p = await timeReads(team.journal, scope);
  const ms = (n: number) => n.toFixed(1).padStart(8);
  console.log(`store      | p50 (ms) | p95 (ms)`);
  console.log(`SQLite     | ${ms(percentile(s, 50))} | ${ms(percentile(s, 95))}`);
  console.log(`PostgreSQL | ${ms(percentile(p, 50))} | ${ms(percentile(p, 95))}`);
  console.log(`PG/SQLite: p50 ${(percentile(p, 50) / percentile(s, 50)).toFixed(2)}×, p95 ${(percentile(p, 95) / percentile(s, 95)).toFixed(2)}×; load ${load()}`);
  await team.close();
  await desk.close();
}

async function main(): Promise<void> {
  const dir = benchTempDir('paydesk-bench-overview-');
  // As root the server runs as `postgres`, which must pass through the folder.
  chmodSync(dir.path, 0o711);
  const pgDir = join(dir.path, 'pg');
  mkdirSync(pgDir);
  const cluster = await startCluster({ dir: pgDir, superuser: 'paydesk_bench', auth: { method: 'trust' }, durable: true });
  onBenchExit(() => cluster.stop());
  for (const rows of ROWS_LIST) await atRows(dir.path, cluster.host, cluster.port, rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
