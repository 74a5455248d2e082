/**
 * `npm run bench:team-senders [-- --rows N --rate N --follow-up-s N --no-ceiling --no-warm-up]`:
 * two team senders on one batch under the service's rate limit (issue 38 item 6; docs/benchmarks.md,
 * "Two team senders on one batch"). A throwaway PostgreSQL cluster (fsync on, the server's
 * defaults), and for each run a workspace database of its own (a copy of a migrated template), the
 * sandbox engine in this process over HTTP with its per-key rate limit set to `--rate` requests a
 * minute (a fresh engine per run: its own key, budget and windows), and fresh sender processes
 * (electron/sender/cli.ts, as `npm run sender` starts them: each its own sender login and data
 * folder, the keys in a 0600 file). A finance login creates an N-row batch on a sender-held profile
 * and asks for it:
 * - A (the baseline of the same run): one sender sends the batch;
 * - B: two senders share it (their row claims share the rows);
 * - C (`--no-ceiling` leaves it out): one sender, the rate limit off: the senders and the database
 *   are the bottleneck, the ceiling.
 * A limited run starts on a fresh rate-limit window (the engine's windows are whole minutes of its clock).
 *
 * Measured from the ask until every row of the batch has its answer (accepted, the service's
 * transaction id recorded: nothing pending, unknown or waiting to be sent): rows/s; the PostgreSQL
 * server's CPU per row (utime + stime from /proc of the postmaster and every process it has now,
 * plus the postmaster's cutime + cstime: the backends that ended meanwhile and were reaped; the
 * bench's own polls run on one connection whose backend is left out); the sender processes' CPU per
 * row (/proc, children included); this process's CPU per row (the engine, and the bench's few
 * reads); the engine's 429s. Then, up to `--follow-up-s` (180), the senders' follow-up reads until
 * every payout's status is final: the time, GETs, 429s and the database's CPU per payout followed.
 * Headroom = the rows/s the database could sustain on this machine's cores at its CPU per row (send
 * and one payout's follow-up), over the rows/s the rate limit allows at the requests a row took.
 *
 * The bench doubles as a check: every row must end accepted and be asked to be created exactly once
 * (the engine runs `duplicates-accepted`, so a second POST would be a second transaction), or it
 * exits 1. `--rate` defaults to 6,000 a minute, not the engine's 600: why in docs/benchmarks.md.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE, REQUEST_EVENT_TOPIC, startEngine, type EngineHandle } from '../packages/sandbox/src/engine';
import { engineInternals } from '../packages/sandbox/src/internals';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import { ROLES } from '../electron/console/storage/postgres/schema-names';
import { askSender, readAsk } from '../electron/console/storage/postgres/send-asks';
import type { StoragePort } from '../electron/console/storage/port';
import type { CheckedRow } from '../shared/api';
import { spawnSender, type SenderProcess } from '../test/helpers/sender-process';
import { benchTempDir } from './temp';
import { BENCH_SUPERUSER, startBenchCluster } from './pg-bench-cluster';

export const DEFAULT_BENCH_RATE = 6_000;
/** How often the bench reads where the batch is (on its own connection, left out of the database's CPU). */
const POLL_MS = 1_000;
const TEMPLATE = 'bench_workspace_template';
const SENDER_LOGINS = ['bench_sender_1', 'bench_sender_2'] as const;

export interface BenchOptions {
  rows: number;
  /** The engine's per-key rate limit for runs A and B, requests a minute (0: off). */
  rate: number;
  /** Run C: one sender, no rate limit. */
  ceiling: boolean;
  /** An unmeasured batch first (the cluster's caches, the engine's first plans). */
  warmUp: boolean;
  /** How long to wait, after the last row's answer, for every payout's status to be final (the senders' follow-ups). */
  followUpMs: number;
  log: (line: string) => void;
}

export interface RunFigures {
  name: string;
  senders: number;
  /** The rate limit of this run, requests a minute per key (0: off). */
  rate: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** µs of CPU per row. */
  database: number;
  senderCpu: number;
  engineCpu: number;
  posts: number;
  tooMany: number;
  /** Rows each sender wrote, by login. */
  byLogin: Record<string, number>;
  /**
   * After the last row's answer, until every payout's status is final or the wait is over (the
   * senders' follow-up reads): `followed` payouts became final meanwhile; `database` is µs of CPU
   * per payout followed, `requestsPerPayout` the requests served (not 429) per payout followed.
   */
  followUp: { seconds: number; gets: number; tooMany: number; database: number; final: number; followed: number; requestsPerPayout: number };
  /** Requests the engine served (not 429) per row: the send's, plus the follow-up's per payout followed. */
  requestsPerRow: number;
}

export interface BenchResult {
  runs: RunFigures[];
  /** What broke the exactly-once and every-row-final checks; empty when all held. */
  problems: string[];
}

interface EngineRequest {
  method: string;
  path: string;
  status: number;
  externalId: string | null;
}

/** `count` rows of valid payouts named `<prefix>-<n>`, amounts from 100 up. */
function batchRows(prefix: string, count: number): CheckedRow[] {
  return Array.from({ length: count }, (_, index) => {
    const externalId = `${prefix}-${index + 1}`;
    const request = {
      payment_method: 'momo_cm',
      amount: 100 + index,
      phone_number: `+23767${String(index % 10_000_000).padStart(7, '0')}`,
      customer: { first_name: `Agent${index}`, last_name: 'Bench', email: `a${index}@example.com` },
      description: `Bench ${index}`,
      external_id: externalId,
    };
    return {
      rowNumber: index + 2,
      values: { phone_number: request.phone_number, amount: String(request.amount), first_name: request.customer.first_name, last_name: 'Bench', email: request.customer.email, description: request.description, external_id: externalId, payment_method: '', meta: {} },
      request,
      errors: {},
      duplicates: [],
      externalId,
    };
  });
}

/** utime + stime + cutime + cstime of `pid` in clock ticks (1/100 s), 0 once it has ended. */
function processTicks(pid: number, withReaped: boolean): number {
  try {
    // Fields after the command's closing parenthesis: state ppid … utime (14th) stime cutime cstime.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]) + (withReaped ? Number(fields[13]) + Number(fields[14]) : 0);
  } catch {
    return 0;
  }
}

/**
 * CPU seconds the cluster has used: the postmaster (with its reaped children: every backend that
 * ended) and every process whose parent it is now. A backend that ends between two samples is
 * counted in the postmaster's cutime once reaped, so nothing is lost as connections come and go.
 */
export function clusterCpuSeconds(dataDir: string, exclude: readonly number[] = []): number {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = processTicks(postmaster, true);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || exclude.includes(Number(name))) continue;
    try {
      if (Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster) ticks += processTicks(Number(name), false);
    } catch {
      // It ended meanwhile (then it is in the postmaster's cutime).
    }
  }
  return ticks / 100;
}

const sendersCpuSeconds = (senders: readonly SenderProcess[]) => senders.reduce((sum, sender) => sum + processTicks(sender.child.pid!, true), 0) / 100;
const processCpuSeconds = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check`, failing past `ms` with `what`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const give = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > give) throw new Error(`gave up waiting: ${what}`);
    await sleep(50);
  }
}

/** A run's own engine (its own key, so its own rate budget and windows), its sender-held team profile and keys file. */
interface RunService {
  engine: EngineHandle;
  profileId: string;
  keysFile: string;
  requests: EngineRequest[];
}

export async function runTeamSendersBench(options: BenchOptions): Promise<BenchResult> {
  const { log } = options;
  const dir = benchTempDir('paydesk-bench-team-senders-');
  const cluster = await startBenchCluster(dir.path, { stats: false });
  const root = new pg.Client({ host: cluster.host, port: cluster.port, user: BENCH_SUPERUSER, database: 'postgres' });
  await root.connect();
  await root.query(`CREATE DATABASE ${TEMPLATE}`);
  const template = new pg.Client({ host: cluster.host, port: cluster.port, user: BENCH_SUPERUSER, database: TEMPLATE });
  await template.connect();
  await migrateWorkspace(template);
  await template.end();
  await root.query(`CREATE ROLE bench_finance LOGIN; GRANT ${ROLES.finance} TO bench_finance; CREATE ROLE bench_admin LOGIN; GRANT ${ROLES.admin} TO bench_admin`);
  for (const login of SENDER_LOGINS) await root.query(`CREATE ROLE ${login} LOGIN; GRANT paydesk_sender TO ${login}`);
  const connect = async (user: string, database: string, applicationName = 'paydesk-bench') => {
    const client = new pg.Client({ host: cluster.host, port: cluster.port, user, database, application_name: applicationName });
    await client.connect();
    return client;
  };
  const engines: EngineHandle[] = [];
  const problems: string[] = [];
  let batches = 0;

  /**
   * A fresh engine and workspace for each run: the earlier runs' payouts spend none of its rate
   * budget, and their open entries are not in its senders' follow-up sweeps (a sweep reads the
   * workspace's oldest open entries, whichever profile they are of).
   */
  async function serviceFor(n: number, rate: number, rows: number, database: string): Promise<RunService> {
    const engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(dir.path, `engine-${n}.db`), settleMs: 0, rateLimit: { perKeyPerMinute: rate }, variants: ['duplicates-accepted'] });
    engines.push(engine);
    const requests: EngineRequest[] = [];
    engine.onEvent((event) => {
      if (event.type !== 'extension' || event.topic !== REQUEST_EVENT_TOPIC) return;
      const request = event.data as { method: string; path: string; status: number; body: string };
      const externalId = request.method === 'POST' ? ((JSON.parse(request.body || '{}') as { external_id?: string }).external_id ?? null) : null;
      requests.push({ method: request.method, path: request.path, status: request.status, externalId });
    });
    const application = engine.api.applications()[0]!;
    engine.control.topUp(application.id, 'sandbox', 2 * rows * (200 + rows), 'bench float');
    const profileId = `team-bench-${n}`;
    const teamAdmin = await connect('bench_admin', database);
    await teamAdmin.query(`INSERT INTO team_profiles (id, name, environment, base_url, header_word, updated_at, keys_held_by) VALUES ($1, $1, 'sandbox', $2, 'SVC', 1, 'sender')`, [profileId, engine.api.url]);
    await teamAdmin.end();
    const keys = application.keys.filter((key) => key.environment === 'sandbox');
    const of = (type: 'payment' | 'payout') => keys.find((key) => key.type === type)!;
    const keysFile = join(dir.path, `sender-keys-${n}.json`);
    writeFileSync(keysFile, JSON.stringify({ profiles: { [profileId]: { paymentPublicKey: of('payment').publicKey, paymentSecretKey: of('payment').secretKey, payoutPublicKey: of('payout').publicKey, payoutSecretKey: of('payout').secretKey } } }), { mode: 0o600 });
    chmodSync(keysFile, 0o600);
    return { engine, profileId, keysFile, requests };
  }

  /** One batch asked by the finance login and sent by `senderCount` fresh sender processes, then followed up until every payout is final. */
  async function run(name: string, senderCount: number, rate: number, rows: number): Promise<RunFigures> {
    batches += 1;
    const prefix = `TB${batches}`;
    const batchId = `bench-batch-${batches}`;
    const database = `bench_run_${batches}`;
    await root.query(`CREATE DATABASE ${database} TEMPLATE ${TEMPLATE}`);
    const service = await serviceFor(batches, rate, rows, database);
    const { engine, requests } = service;
    // The bench's reads, on one connection whose backend's CPU is left out of the database's.
    const admin = await connect(BENCH_SUPERUSER, database);
    const pollPid = (await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const finance = await connect('bench_finance', database, 'bench-ask');
    const financeStore = (): StoragePort => workspaceStore(openWorkspacePool({ host: cluster.host, port: cluster.port, user: 'bench_finance', database }));
    /** Where the batch's payouts are: answered by the service (accepted) and final. */
    const where = async () =>
      (
        await admin.query<{ accepted: number; final: number }>(
          `SELECT count(*) FILTER (WHERE state = 'known' AND transaction_id IS NOT NULL)::int AS accepted, count(*) FILTER (WHERE status IN ('completed', 'failed', 'cancelled'))::int AS final FROM entries WHERE batch_id = $1`,
          [batchId],
        )
      ).rows[0]!;
    // The finance login imports the batch; its connections end (and are reaped) before anything is measured.
    const store = financeStore();
    await store.batches.create({ id: batchId, fileName: `${prefix}.csv`, fileHash: `hash-${prefix}`, profile: { id: service.profileId, name: service.profileId, environment: 'sandbox' }, paymentMethod: 'momo_cm', concurrency: 4, retryOf: null, rows: batchRows(prefix, rows), at: Date.now() });
    const senders = SENDER_LOGINS.slice(0, senderCount).map((login, index) => {
      const url = `postgres://${login}@localhost:${cluster.port}/${database}?host=${encodeURIComponent(cluster.host)}`;
      const data = join(dir.path, `${prefix}-sender-${index + 1}`);
      mkdirSync(data);
      return spawnSender(`${name}/sender-${index + 1}`, ['--workspace', url, '--keys', service.keysFile, '--data', data]);
    });
    await store.close();
    await until(async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE usename = 'bench_finance' AND pid <> pg_backend_pid() AND application_name <> 'bench-ask'`)).rowCount === 0, 'the import\'s connections closed', 30_000);
    try {
      await Promise.all(senders.map((sender) => sender.next((event) => event.event === 'ready')));
      // A fresh rate-limit window for every limited run: the engine counts whole minutes of its clock.
      if (rate > 0) await sleep(Math.max(0, 60_000 - ((engine.clock.nowMicros() / 1000) % 60_000)) + 50);
      const database = clusterCpuSeconds(cluster.dataDir, [pollPid]);
      const senderCpu = sendersCpuSeconds(senders);
      const here = processCpuSeconds();
      const started = performance.now();
      const ask = await askSender(finance, { kind: 'batch', profileId: service.profileId, batchId });
      const ended = (sender: SenderProcess) => sender.next((event) => (event.event === 'batch-ended' && event.batchId === batchId) || event.event === 'fault');
      const endings = await Promise.all(senders.map(ended));
      for (const ending of endings) if (ending.event === 'fault') throw new Error(`${name}: a sender's fault: ${ending.message}`);
      await until(async () => (await where()).accepted === rows, `${name}: every row answered`, 600_000);
      const seconds = (performance.now() - started) / 1000;
      const sent = requests.length;
      const figures: RunFigures = {
        name,
        senders: senderCount,
        rate,
        rows,
        seconds,
        rowsPerSecond: rows / seconds,
        database: ((clusterCpuSeconds(cluster.dataDir, [pollPid]) - database) * 1e6) / rows,
        senderCpu: ((sendersCpuSeconds(senders) - senderCpu) * 1e6) / rows,
        engineCpu: ((processCpuSeconds() - here) * 1e6) / rows,
        posts: requests.filter((request) => request.method === 'POST').length,
        tooMany: requests.filter((request) => request.status === 429).length,
        byLogin: {},
        followUp: { seconds: 0, gets: 0, tooMany: 0, database: 0, final: 0, followed: 0, requestsPerPayout: 0 },
        requestsPerRow: 0,
      };
      // The follow-ups: the senders read every payout until its status is final, under the same limit.
      const followed = performance.now();
      const databaseAfterSend = clusterCpuSeconds(cluster.dataDir, [pollPid]);
      const finalAtSend = (await where()).final;
      const giveUp = Date.now() + options.followUpMs;
      for (;;) {
        figures.followUp.final = (await where()).final;
        if (figures.followUp.final === rows || Date.now() > giveUp) break;
        await sleep(POLL_MS);
      }
      const after = requests.slice(sent);
      figures.followUp.seconds = (performance.now() - followed) / 1000;
      figures.followUp.gets = after.filter((request) => request.method === 'GET').length;
      figures.followUp.tooMany = after.filter((request) => request.status === 429).length;
      const f = figures.followUp;
      f.followed = f.final - finalAtSend;
      const served = (list: readonly EngineRequest[]) => list.filter((request) => request.status !== 429).length;
      f.database = f.followed > 0 ? ((clusterCpuSeconds(cluster.dataDir, [pollPid]) - databaseAfterSend) * 1e6) / f.followed : 0;
      f.requestsPerPayout = f.followed > 0 ? served(after) / f.followed : 0;
      figures.requestsPerRow = served(requests.slice(0, sent)) / rows + f.requestsPerPayout;
      await until(async () => (await readAsk(finance, ask.id))?.state === 'done', `${name}: the ask answered`, 60_000);
      const checker = financeStore();
      try {
        problems.push(...(await checkBatch(checker, admin, name, service, batchId, prefix, rows)));
      } finally {
        await checker.close();
      }
      const { rows: byLogin } = await admin.query<{ created_by: string; n: number }>(`SELECT created_by, count(*)::int AS n FROM entries WHERE batch_id = $1 GROUP BY 1 ORDER BY 1`, [batchId]);
      figures.byLogin = Object.fromEntries(byLogin.map((row) => [row.created_by, row.n]));
      log(
        `  ${name}: sent ${rows} rows in ${seconds.toFixed(1)} s = ${figures.rowsPerSecond.toFixed(1)} rows/s; CPU per row: database ${figures.database.toFixed(0)} µs, senders ${figures.senderCpu.toFixed(0)} µs, engine ${figures.engineCpu.toFixed(0)} µs; ${figures.posts} POSTs, ${figures.tooMany} × 429; rows by login ${JSON.stringify(figures.byLogin)}; ` +
          `then ${f.final === rows ? 'every payout' : `${f.final} of ${rows} payouts (follow-up wait over)`} final after ${f.seconds.toFixed(1)} s more: ${f.gets} GETs, ${f.tooMany} × 429, database ${f.database.toFixed(0)} µs per payout followed (${f.followed}); load ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`,
      );
      return figures;
    } finally {
      await stopSenders(senders);
      await finance.end();
      await admin.end();
    }
  }

  /** Each row accepted with the engine's transaction, each external id asked to be created once. */
  async function checkBatch(store: StoragePort, admin: pg.Client, name: string, service: RunService, batchId: string, prefix: string, rows: number): Promise<string[]> {
    const found: string[] = [];
    const summary = await store.batches.summary(batchId);
    const counts = summary?.counts;
    if (summary?.state !== 'done') found.push(`${name}: the batch ended ${summary?.state ?? 'missing'}`);
    if (!counts || counts.rows !== rows || counts.accepted !== rows || counts.pending + counts.unknown + counts.notSent + counts.rejected !== 0) found.push(`${name}: not every row accepted: ${JSON.stringify(counts)}`);
    const created = engineInternals(service.engine).db.prepare('SELECT external_id, COUNT(*) AS n FROM transactions WHERE external_id LIKE ? GROUP BY external_id').all(`${prefix}-%`) as { external_id: string; n: number }[];
    if (created.length !== rows) found.push(`${name}: ${created.length} external ids created at the engine, not ${rows}`);
    const twice = created.filter((tx) => tx.n !== 1);
    if (twice.length > 0) found.push(`${name}: ${twice.length} external ids created more than once (${twice.slice(0, 5).map((tx) => `${tx.external_id} × ${tx.n}`).join(', ')})`);
    const asked = new Map<string, number>();
    for (const request of service.requests) if (request.externalId?.startsWith(`${prefix}-`) && request.status !== 429) asked.set(request.externalId, (asked.get(request.externalId) ?? 0) + 1);
    const again = [...asked].filter(([, n]) => n !== 1);
    if (asked.size !== rows || again.length > 0) found.push(`${name}: ${asked.size} external ids POSTed (not 429), ${again.length} of them more than once`);
    const { rows: entries } = await admin.query<{ n: number; writers: string[] }>(`SELECT count(*)::int AS n, array_agg(DISTINCT created_by) AS writers FROM entries WHERE batch_id = $1`, [batchId]);
    if (entries[0]!.n !== rows || !entries[0]!.writers.every((login) => (SENDER_LOGINS as readonly string[]).includes(login))) found.push(`${name}: ${entries[0]!.n} entries written by ${entries[0]!.writers.join(', ')}`);
    return found;
  }

  try {
    log(`a ${options.rows}-row batch on a sender-held profile, asked by a finance login; the engine's rate limit ${options.rate > 0 ? `${options.rate} requests a minute per key` : 'off'} (its default: ${DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE}); ${cpus().length} cores; load ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
    if (options.warmUp) await run('warm-up (not measured)', 1, 0, Math.min(200, options.rows));
    const runs = [await run('A: one sender', 1, options.rate, options.rows), await run('B: two senders', 2, options.rate, options.rows)];
    if (options.ceiling) runs.push(await run('C: one sender, no rate limit', 1, 0, options.rows));
    return { runs, problems };
  } finally {
    await root.end();
    for (const engine of engines) await engine.stop();
    cluster.stop();
    dir.remove();
  }
}

/** SIGTERM (the rows in flight answered, then it stops); SIGKILL if its follow-up sweep keeps it past 10 s. */
async function stopSenders(senders: readonly SenderProcess[]): Promise<void> {
  await Promise.all(
    senders.map(async (sender) => {
      sender.child.kill('SIGTERM');
      const timer = setTimeout(() => sender.child.kill('SIGKILL'), 10_000);
      await sender.exited;
      clearTimeout(timer);
    }),
  );
}

/** The rows/s the database could sustain on this machine's cores at a run's CPU per row (its send and its follow-ups). */
const sustainable = (run: RunFigures) => (cpus().length * 1e6) / (run.database + run.followUp.database);

/** Sustainable rows/s over the rows/s a limit of `perMinute` requests allows at the run's requests per row. */
export function headroom(run: RunFigures, perMinute: number): number {
  return sustainable(run) / (perMinute / 60 / run.requestsPerRow);
}

/** The table: each run, and its ratios against run A. */
export function figuresTable(runs: readonly RunFigures[]): string[] {
  const a = runs[0]!;
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;
  const lines = [
    `| run | senders | rate limit /min/key | sent in s | **rows/s** | vs A | 429s | database CPU µs/row | vs A | senders CPU µs/row | vs A | engine CPU µs/row | then all payouts final in s | GETs | 429s | database µs/row, send + follow-up of one payout | requests/row (not 429) | database could sustain, rows/s on ${cpus().length} cores | **headroom** vs this limit | vs ${DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE}/min |`,
    `|${' --- |'.repeat(20)}`,
  ];
  for (const run of runs) {
    const f = run.followUp;
    lines.push(
      `| ${run.name} | ${run.senders} | ${run.rate > 0 ? run.rate.toLocaleString('en') : 'off'} | ${run.seconds.toFixed(1)} | **${run.rowsPerSecond.toFixed(1)}** | ${ratio(run.rowsPerSecond, a.rowsPerSecond)} | ${run.tooMany.toLocaleString('en')} | ${run.database.toFixed(0)} | ${ratio(run.database, a.database)} | ${run.senderCpu.toFixed(0)} | ${ratio(run.senderCpu, a.senderCpu)} | ${run.engineCpu.toFixed(0)} | ${f.seconds.toFixed(1)}${f.final === run.rows ? '' : ` (${f.final.toLocaleString('en')} final: wait over)`} | ${f.gets.toLocaleString('en')} | ${f.tooMany.toLocaleString('en')} | ${(run.database + f.database).toFixed(0)} | ${run.requestsPerRow.toFixed(2)} | ${sustainable(run).toFixed(0)} | **${run.rate > 0 ? `${headroom(run, run.rate).toFixed(1)}×` : '–'}** | ${headroom(run, DEFAULT_RATE_LIMIT_PER_KEY_PER_MINUTE).toFixed(1)}× |`,
    );
  }
  return lines;
}

function flag(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const rows = Number(flag(argv, '--rows') ?? 10_000);
  const rate = Number(flag(argv, '--rate') ?? DEFAULT_BENCH_RATE);
  const followUpSeconds = Number(flag(argv, '--follow-up-s') ?? 180);
  if (![rows, rate, followUpSeconds].every(Number.isSafeInteger) || rows < 1 || rate < 0 || followUpSeconds < 0) {
    console.error('usage: npm run bench:team-senders -- [--rows N (default 10000)] [--rate N requests a minute per key (default 6000; 0: off)] [--follow-up-s N (default 180)] [--no-ceiling] [--no-warm-up]');
    process.exit(2);
  }
  const result = await runTeamSendersBench({ rows, rate, followUpMs: followUpSeconds * 1000, ceiling: !argv.includes('--no-ceiling'), warmUp: !argv.includes('--no-warm-up'), log: (line) => console.log(line) });
  console.log('');
  for (const line of figuresTable(result.runs)) console.log(line);
  if (result.problems.length > 0) {
    console.error(`\nFAILED: ${result.problems.join('\n')}`);
    process.exit(1);
  }
  console.log('\nevery row accepted, each external id POSTed once (429s aside) and created once');
}

/** Runs only as the entry point, so a test can import runTeamSendersBench. */
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await main();
  process.exit(0);
}
