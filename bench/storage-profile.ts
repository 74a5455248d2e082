/**
 * `npx tsx bench/storage-profile.ts`: where a PostgreSQL batch row's time goes, for the rows/s of
 * bench/storage.ts. One batch of BENCH_ROWS rows (default 1000) sent as that bench sends it (the
 * runner's claims, the pending entry awaited, the answer not), on a throwaway durable cluster with
 * pg_stat_statements (nested statements too: the triggers' work). Prints, per row: the statements
 * this process sent, by kind, the server's execution time by statement, and the CPU per row of
 * this process and of the server's processes (from /proc). Nothing asserted. Findings:
 * docs/team-workspace.md "Figures".
 *
 * BENCH_STATS=0 runs without pg_stat_statements; BENCH_EXPLAIN=<share> logs that share of the plans
 * with their triggers' times (auto_explain) to the server's log, then waits ten minutes so the log
 * can be read before the cluster goes; BENCH_AB_ROUNDS, BENCH_SETUP_SQL, BENCH_DISABLE,
 * BENCH_NO_TRIGGERS and BENCH_OPTIONS are experiments, described where they are read.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LEASE_MS, rowClaims } from '../electron/console/batch/claims';
import type { StoragePort } from '../electron/console/storage/port';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import { checkedRows, PROFILE, serviceTx } from '../test/storage/fixtures';
import { benchTempDir } from './temp';
import { BENCH_SUPERUSER, serverCpuSeconds, startBenchCluster } from './pg-bench-cluster';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
/** BENCH_STATS=0: without pg_stat_statements (its tracking costs the server CPU too). */
const STATS = process.env.BENCH_STATS !== '0';

/** Statements sent by this process, by their first words (a prepared statement by its name). */
const sent = new Map<string, number>();
const count = (key: string) => sent.set(key, (sent.get(key) ?? 0) + 1);
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { name?: string; text?: string };
  const text = typeof first === 'string' ? first : (first.name ?? first.text ?? '?');
  count(text.replace(/\s+/g, ' ').replace(/paydesk_write_\d+/, 'paydesk_write_N').slice(0, 60));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;


/**
 * BENCH_AB_ROUNDS=n: A and B take turns n times, each batch's CPU per row measured alone: A is the
 * store as set up, B the same with BENCH_B_OPTIONS for its sessions; BENCH_A_SQL / BENCH_B_SQL run
 * (as the superuser) before each A / B batch (e.g. a trigger function as it was, and as it is).
 */
const AB_ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 0);
async function compare(a: StoragePort, b: StoragePort, admin: pg.Client, dataDir: string): Promise<void> {
  const figures = { A: [] as number[], B: [] as number[] };
  const own = { A: [] as number[], B: [] as number[] };
  const walls = { A: [] as number[], B: [] as number[] };
  for (let round = 0; round < AB_ROUNDS * 2; round += 1) {
    const which = round % 2 === 0 ? 'A' : 'B';
    const sql = process.env[`BENCH_${which}_SQL`];
    // BENCH_A_ENV=NAME: that variable set (to 1) during A's batches only.
    if (process.env.BENCH_A_ENV) {
      if (which === 'A') process.env[process.env.BENCH_A_ENV] = '1';
      else delete process.env[process.env.BENCH_A_ENV];
    }
    if (sql) await admin.query(sql);
    const cpu = process.cpuUsage();
    const server = serverCpuSeconds(dataDir);
    const rate = await sendBatch(which === 'A' ? a : b);
    const used = process.cpuUsage(cpu);
    figures[which].push(((used.user + used.system) / 1e6 + serverCpuSeconds(dataDir) - server) * 1e6 / ROWS);
    own[which].push((used.user + used.system) / ROWS);
    walls[which].push(rate);
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  for (const which of ['A', 'B'] as const) {
    console.log(`${which}: CPU per row (this process + the server) median ${median(figures[which]).toFixed(0)} µs (${figures[which].map((n) => n.toFixed(0)).join(', ')}), of which this process ${median(own[which]).toFixed(0)} µs; rows/s median ${median(walls[which]).toFixed(0)}`);
  }
  await b.close();
}

let batches = 0;
async function sendBatch(store: StoragePort): Promise<number> {
  batches += 1;
  const batchId = `b-${batches}`;
  const rows = checkedRows(ROWS, { amount: 700 }).map((row) => {
    const externalId = `${batchId}-${row.rowNumber}`;
    return { ...row, externalId, values: { ...row.values, external_id: externalId }, request: { ...row.request!, external_id: externalId } };
  });
  await store.batches.create({ id: batchId, fileName: 'bench.csv', fileHash: batchId, profile: PROFILE, paymentMethod: null, concurrency: WORKERS, retryOf: null, rows, at: 0 });
  await store.batches.setState(batchId, 'sending', 0);
  sent.clear();
  const started = performance.now();
  const claims = rowClaims(store.batches, batchId, { now: () => Date.now() }, { holder: `bench-${batchId}`, size: 10, leaseMs: LEASE_MS });
  const answers: Promise<void>[] = [];
  const worker = async () => {
    for (;;) {
      const claimed = await claims.next();
      if (!claimed) return;
      if (!(await claims.keep(claimed))) throw new Error('lost');
      const { row } = claimed;
      const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at: 1, batch: { id: batchId, row: row.rowNumber } });
      answers.push(store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(row.request!), httpStatus: 201, message: null }, 2));
      await claims.done(claimed);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, () => worker()));
  await Promise.all(answers);
  await claims.releaseAll();
  return ROWS / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const dir = benchTempDir('paydesk-bench-profile-');
  const cluster = await startBenchCluster(dir.path, { stats: STATS });
  const config = { host: cluster.host, port: cluster.port, user: BENCH_SUPERUSER, database: 'postgres', max: WORKERS };
  const stats = new pg.Client(config);
  await stats.connect();
  if (STATS) {
    await stats.query('CREATE EXTENSION pg_stat_statements');
    await stats.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
  }
  if (process.env.BENCH_EXPLAIN) {
    // The plans with their triggers' times, in the server's log (a few statements: it slows them).
    await stats.query(`LOAD 'auto_explain'`);
    for (const setting of [`session_preload_libraries = 'auto_explain'`, 'auto_explain.log_min_duration = 0', 'auto_explain.log_analyze = on', 'auto_explain.log_triggers = on', `auto_explain.sample_rate = ${Number(process.env.BENCH_EXPLAIN) || 0.02}`]) {
      await stats.query(`ALTER SYSTEM SET ${setting}`);
    }
    console.log(`plans in ${cluster.logFile}`);
  }
  await stats.query('SELECT pg_reload_conf()');
  await migrateWorkspace(stats);
  // BENCH_SETUP_SQL: run once before the batches (an experiment: an index dropped, a setting).
  if (process.env.BENCH_SETUP_SQL) await stats.query(process.env.BENCH_SETUP_SQL);
  // BENCH_DISABLE=table.trigger,…: an experiment only, what one trigger costs.
  for (const named of (process.env.BENCH_DISABLE ?? '').split(',').filter(Boolean)) {
    const [table, trigger] = named.split('.');
    await stats.query(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
  }
  // BENCH_NO_TRIGGERS=1, an experiment only: what the triggers cost (never how a store runs).
  // BENCH_OPTIONS='-c name=value': server settings for the store's sessions (an experiment).
  const options = [process.env.BENCH_OPTIONS ?? '', process.env.BENCH_NO_TRIGGERS ? '-c session_replication_role=replica' : ''].join(' ').trim();
  const storeConfig = options ? { ...config, options } : config;
  const store = workspaceStore(openWorkspacePool(storeConfig));
  console.log(`warm-up: ${(await sendBatch(store)).toFixed(0)} rows/s`);
  if (AB_ROUNDS > 0) {
    await compare(store, workspaceStore(openWorkspacePool(process.env.BENCH_B_OPTIONS ? { ...config, options: process.env.BENCH_B_OPTIONS } : config)), stats, cluster.dataDir);
    await stats.end();
    await store.close();
    return;
  }
  if (STATS) await stats.query('SELECT pg_stat_statements_reset()');
  const cpu = process.cpuUsage();
  const server = serverCpuSeconds(cluster.dataDir);
  const rate = await sendBatch(store);
  const used = process.cpuUsage(cpu);
  const perRow = (seconds: number) => `${((seconds * 1e6) / ROWS).toFixed(0)} µs`;
  console.log(`CPU per row: this process ${perRow((used.user + used.system) / 1e6)}, the server's processes ${perRow(serverCpuSeconds(cluster.dataDir) - server)}; wall ${perRow(ROWS / rate)}`);
  console.log(`measured: ${rate.toFixed(0)} rows/s, ${ROWS} rows, ${WORKERS} workers`);
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  console.log(`\nstatements sent by this process: ${(total / ROWS).toFixed(2)} per row`);
  for (const [text, n] of [...sent.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / ROWS).toFixed(2).padStart(6)}  ${text}`);
  const { rows } = !STATS ? { rows: [] } : await stats.query<{ calls: string; ms: number; toplevel: boolean; q: string }>(
    `SELECT calls, total_exec_time AS ms, toplevel, regexp_replace(left(query, 90), '\\s+', ' ', 'g') AS q FROM pg_stat_statements
     WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 25`,
  );
  const top = rows.filter((row) => row.toplevel).reduce((a, row) => a + row.ms, 0);
  console.log(`\nserver execution time: ${((top * 1000) / ROWS).toFixed(0)} µs per row (top-level statements), by statement (µs per row; nested = inside a trigger or function):`);
  for (const row of rows) console.log(`  ${((row.ms * 1000) / ROWS).toFixed(0).padStart(6)}  ${(Number(row.calls) / ROWS).toFixed(2).padStart(5)} calls/row ${row.toplevel ? '' : '(nested) '}${row.q}`);
  await stats.end();
  await store.close();
  if (process.env.BENCH_EXPLAIN) await new Promise((resolve) => setTimeout(resolve, 600_000));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
