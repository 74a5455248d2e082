/**
 * `npx tsx bench/batch-stores.ts`: a 1,000-row batch as a person sends it, on both stores side by
 * side in one run: the console's own runner (import, prepare, start: the pending entry committed
 * before each POST, the answer, the status pushes, the progress events) sending to the local
 * sandbox engine over HTTP (in-process, rate limit off, payouts settle at once), once on the
 * desktop's SQLite journal (the baseline) and once on a team workspace on a throwaway local
 * PostgreSQL cluster (fsync on, the server's defaults), logged in as a finance login (row-level
 * security, the approval gates, who-did-what and the change events all at work, as for a person).
 * Where bench/storage.ts measures the store alone (no HTTP), this is item 6 of issue 24 as a team
 * meets it: a batch's rows/s from Start until the batch is done.
 *
 * The machine is shared, so the stores take turns: each round sends one batch on each store, and
 * each PostgreSQL figure is divided by the mean of the SQLite batches just before and just after
 * it (SQLite sends once more at the end). Each console is warmed up first (an unmeasured batch).
 * Prints rows/s, the time until every row's status is final, and the CPU per row of this process
 * (console + engine) and of the server's processes; nothing asserted.
 *
 * BENCH_ROWS (default 1000), BENCH_CONCURRENCY (default 4, the batch's workers), BENCH_ROUNDS
 * (default 3). BENCH_STATS=1: pg_stat_statements on (it costs the server CPU), and the server's
 * statements of the PostgreSQL batches printed by execution time per row at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { systemClock } from '../electron/console/deps';
import { desktopConnectionOptions } from '../electron/console/desktop-id';
import { createConsoleRuntime, type ConsoleRuntime } from '../electron/console/runtime';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import { ROLES } from '../electron/console/storage/postgres/schema-names';
import type { BatchProgress } from '../shared/api';
import { benchTempDir } from './temp';
import { BENCH_SUPERUSER, clusterPids, serverCpuSeconds, startBenchCluster } from './pg-bench-cluster';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STATS = process.env.BENCH_STATS === '1';
/**
 * BENCH_PIN=1: this process (console and engine) on the first core, the cluster's processes on the
 * second: a team's database runs on a server of its own, not on the desktop's cores. Both stores'
 * consoles get the same one core.
 */
const PIN = process.env.BENCH_PIN === '1';
/**
 * BENCH_UPPER=1, an upper bound only (never a store's setting): the workspace console logs in as
 * the cluster's superuser (row-level security not applied) with every trigger and foreign-key
 * check off (session_replication_role = replica): no approval gates, no who-did-what, no change
 * events. What PostgreSQL would give if the workspace's guarantees cost nothing.
 */
const UPPER = process.env.BENCH_UPPER === '1';
/** BENCH_PROFILE=<file>.cpuprofile: a CPU profile of this process (console and engine) during the last PostgreSQL batch. */
const PROFILE_FILE = process.env.BENCH_PROFILE;

/** Every thread of `pid` on `cpu` (util-linux taskset). */
function pin(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** Numbers that settle by themselves (completed, failed, cancelled): not 04 (expiry) nor 08 (Verify). */
const PHONES = ['+237650000001', '+237650000002', '+237650000003', '+237650000005', '+237650000006', '+237650000007', '+237650000009', '+237670000010'];
const load = () => loadavg().map((n) => n.toFixed(2)).join(' / ');

let files = 0;
function csv(rows: number): string {
  files += 1;
  const lines = ['phone_number,amount,first_name,last_name,email,description'];
  for (let i = 0; i < rows; i += 1) lines.push(`${PHONES[i % PHONES.length]},${100 + i},Bench${i},Batch${files},b${i}@example.com,bench ${files} ${i}`);
  return `${lines.join('\n')}\n`;
}


interface Sent {
  rate: number;
  finalSeconds: number;
  cpuHere: number;
  cpuServer: number;
}

/** One batch through the console's handlers: import, prepare, start, until it is done and every row final. */
async function sendBatch(runtime: ConsoleRuntime, serverDir: string | null): Promise<Sent> {
  const imported = await runtime.handlers['batches:import']({ fileName: `bench-${files + 1}.csv`, text: csv(ROWS), paymentMethod: 'momo_cm' });
  if (!imported.ok) throw new Error(imported.error.message);
  const batchId = imported.value.batch.id;
  const prepared = await runtime.handlers['batches:prepare']({ batchId });
  if (!prepared.ok) throw new Error(prepared.error.message);
  const done = new Promise<BatchProgress>((resolve) => {
    const stop = runtime.on('batch:progress', (progress) => {
      if (progress.batchId !== batchId || progress.state === 'sending') return;
      stop();
      resolve(progress);
    });
  });
  const cpu = process.cpuUsage();
  const server = serverDir ? serverCpuSeconds(serverDir) : 0;
  const started = performance.now();
  const start = await runtime.handlers['batches:start']({ batchId, confirmationToken: prepared.value.confirmationToken, concurrency: CONCURRENCY });
  if (!start.ok) throw new Error(start.error.message);
  const final = await done;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuServer = serverDir ? serverCpuSeconds(serverDir) - server : 0;
  if (final.state !== 'done') throw new Error(`${runtime.storage.kind}: the batch ended ${final.state}`);
  for (;;) {
    const { counts } = await runtime.storage.batches.counts(batchId);
    if (counts.completed + counts.failed + counts.cancelled === ROWS) break;
    if (counts.unknown > 0) throw new Error(`${runtime.storage.kind}: ${counts.unknown} rows outcome unknown`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const finalSeconds = (performance.now() - started) / 1000;
  return { rate: ROWS / seconds, finalSeconds, cpuHere: (used.user + used.system) / ROWS, cpuServer: (cpuServer * 1e6) / ROWS };
}

async function openConsole(dir: string, openStorage?: Parameters<typeof createConsoleRuntime>[0]['openStorage']): Promise<ConsoleRuntime> {
  const runtime = await createConsoleRuntime({
    userDataDir: dir,
    transport: 'browser',
    allowLive: false,
    version: 'bench',
    clock: systemClock,
    engine: { settleMs: 0, rateLimit: { perKeyPerMinute: 0 } },
    client: { retry: { attempts: 1 } },
    ...(openStorage ? { openStorage } : {}),
  });
  const engine = runtime.engine!;
  engine.control.topUp(engine.api.applications()[0]!.id, 'sandbox', (ROUNDS + 2) * ROWS * (100 + ROWS) * 2, 'bench float');
  return runtime;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = benchTempDir('paydesk-bench-batch-stores-');
  const cluster = await startBenchCluster(dir.path, { stats: STATS });
  if (PIN) {
    pin(process.pid, 0);
    // Backends forked later inherit the postmaster's core.
    for (const pid of clusterPids(cluster.dataDir)) pin(pid, 1);
  }
  const admin = new pg.Client({ host: cluster.host, port: cluster.port, user: BENCH_SUPERUSER, database: 'postgres' });
  await admin.connect();
  if (STATS)
    for (const sql of ['CREATE EXTENSION pg_stat_statements', `ALTER SYSTEM SET pg_stat_statements.track = 'all'`, `ALTER SYSTEM SET pg_stat_statements.track_planning = on`, `ALTER SYSTEM SET track_functions = 'pl'`, 'SELECT pg_reload_conf()'])
      await admin.query(sql);
  await migrateWorkspace(admin);
  await admin.query(`CREATE ROLE bench_finance LOGIN; GRANT ${ROLES.finance} TO bench_finance`);
  // An experiment only: BENCH_DROP_INDEXES=a,b drops those `entries` indexes (what they cost a batch).
  for (const index of (process.env.BENCH_DROP_INDEXES ?? '').split(',').filter(Boolean)) await admin.query(`DROP INDEX ${index.replace(/[^a-z_]/g, '')}`);
  // An experiment only: BENCH_FILLFACTOR=80 leaves room in each page of `entries` for HOT updates.
  if (process.env.BENCH_FILLFACTOR) await admin.query(`ALTER TABLE entries SET (fillfactor = ${Number(process.env.BENCH_FILLFACTOR)})`);
  const { dataDir } = cluster;

  const sqliteDir = join(dir.path, 'desktop-sqlite');
  const pgDesk = join(dir.path, 'desktop-pg');
  mkdirSync(sqliteDir);
  mkdirSync(pgDesk);
  const sqlite = await openConsole(sqliteDir);
  const workspace = await openConsole(pgDesk, async (_journal, { desktopId }) =>
    workspaceStore(
      openWorkspacePool({
        host: cluster.host,
        port: cluster.port,
        user: UPPER ? BENCH_SUPERUSER : 'bench_finance',
        database: 'postgres',
        options: `${desktopConnectionOptions(desktopId)}${UPPER ? ' -c session_replication_role=replica' : ''}`,
      }),
    ),
  );
  let closed = false;
  try {
    console.log(`a ${ROWS}-row batch through the console's runner to the local sandbox over HTTP, concurrency ${CONCURRENCY}, ${ROUNDS} rounds${PIN ? ', this process on core 0 and the database on core 1' : ''}${UPPER ? ', UPPER BOUND: superuser, triggers off' : ''}; load ${load()}`);
    // Unmeasured: each console's first batch pays for compiling (JIT) and the first plans.
    await sendBatch(sqlite, null);
    await sendBatch(workspace, dataDir);
    if (STATS) await admin.query('SELECT pg_stat_statements_reset(), pg_stat_reset()');
    const sqliteRuns = [await sendBatch(sqlite, null)];
    const pgRuns: Sent[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const profiler = PROFILE_FILE && round === ROUNDS ? new Session() : null;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      pgRuns.push(await sendBatch(workspace, dataDir));
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(PROFILE_FILE!, JSON.stringify(profile));
        profiler.disconnect();
      }
      sqliteRuns.push(await sendBatch(sqlite, null));
      const ratio = pgRuns.at(-1)!.rate / ((sqliteRuns.at(-2)!.rate + sqliteRuns.at(-1)!.rate) / 2);
      ratios.push(ratio);
      const p = pgRuns.at(-1)!;
      console.log(
        `  round ${round}: SQLite ${sqliteRuns.at(-2)!.rate.toFixed(0)}/${sqliteRuns.at(-1)!.rate.toFixed(0)} rows/s; PostgreSQL ${p.rate.toFixed(0)} rows/s (${ratio.toFixed(2)}×), CPU per row here ${p.cpuHere.toFixed(0)} µs + server ${p.cpuServer.toFixed(0)} µs; load ${load()}`,
      );
    }
    const rates = (runs: Sent[]) => runs.map((run) => run.rate);
    const line = (name: string, runs: Sent[]) =>
      `  ${name.padEnd(34)} ${median(rates(runs)).toFixed(0).padStart(6)} rows/s (median of ${runs.length}, ${Math.min(...rates(runs)).toFixed(0)}–${Math.max(...rates(runs)).toFixed(0)}); all final after ${median(runs.map((run) => run.finalSeconds)).toFixed(2)} s; CPU per row here ${median(runs.map((run) => run.cpuHere)).toFixed(0)} µs${run0Server(runs)}`;
    const run0Server = (runs: Sent[]) => (runs[0]!.cpuServer > 0 ? ` + server ${median(runs.map((run) => run.cpuServer)).toFixed(0)} µs` : '');
    console.log(line('SQLite journal (baseline)', sqliteRuns));
    console.log(line('PostgreSQL workspace (finance)', pgRuns));
    console.log(`  PostgreSQL / SQLite                ${median(ratios).toFixed(2)}× (median; ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×), target ≥ 0.80×`);
    console.log(`load average (1/5/15 min): ${load()}`);
    if (STATS) {
      const measured = ROUNDS * ROWS;
      const { rows } = await admin.query<{ calls: string; ms: number; plan: number; plans: string; toplevel: boolean; q: string; max: number; median: number }>(
        `SELECT calls, total_exec_time AS ms, total_plan_time AS plan, plans, max_exec_time AS max, mean_exec_time AS median, toplevel, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q FROM pg_stat_statements
         WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 40`,
      );
      const top = rows.filter((row) => row.toplevel).reduce((sum, row) => sum + row.ms, 0);
      const planned = rows.filter((row) => row.toplevel).reduce((sum, row) => sum + row.plan, 0);
      console.log(`\nserver execution, µs per row (top-level ${((top * 1000) / measured).toFixed(0)}, planning ${((planned * 1000) / measured).toFixed(0)}; nested = inside a trigger or function):`);
      for (const row of rows) console.log(`  ${((row.ms * 1000) / measured).toFixed(0).padStart(6)} +${((row.plan * 1000) / measured).toFixed(0).padStart(4)} plan (${(Number(row.plans) / measured).toFixed(2)}/row)  ${(Number(row.calls) / measured).toFixed(2).padStart(5)}/row mean ${(row.median * 1000).toFixed(0)} µs max ${row.max.toFixed(1)} ms ${row.toplevel ? '' : '(nested) '}${row.q}`);
      // The trigger functions (track_functions = 'pl'), counted once the workspace's connections
      // have ended: a backend reports its function counts when it ends or after a while idle.
      await workspace.close();
      closed = true;
      const functions = await admin.query<{ funcname: string; calls: string; total: number; self: number }>(
        'SELECT funcname, calls, total_time AS total, self_time AS self FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 25',
      );
      const tables = await admin.query<{ relname: string; ins: string; upd: string; hot: string }>(
        `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0 ORDER BY n_tup_upd + n_tup_ins DESC LIMIT 8`,
      );
      console.log('\nrows written per batch row: inserted, updated (of which HOT: no index written)');
      for (const row of tables.rows) console.log(`  ${(Number(row.ins) / measured).toFixed(2).padStart(5)} ins ${(Number(row.upd) / measured).toFixed(2).padStart(5)} upd (${(Number(row.hot) / measured).toFixed(2)} HOT)  ${row.relname}`);
      console.log('\nPL/pgSQL functions (triggers), µs per row: self (total) calls per row');
      for (const row of functions.rows) console.log(`  ${((row.self * 1000) / measured).toFixed(0).padStart(6)} (${((row.total * 1000) / measured).toFixed(0).padStart(4)})  ${(Number(row.calls) / measured).toFixed(2).padStart(5)}/row  ${row.funcname}`);
    }
  } finally {
    await admin.end();
    if (!closed) await workspace.close();
    await sqlite.close();
  }
}

await main();
