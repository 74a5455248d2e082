/**
 * A benchmark's throwaway PostgreSQL cluster (durable: fsync on, the server's defaults), shared
 * by bench/batch-stores.ts and bench/storage-profile.ts: started in a folder of the bench's temp
 * folder, optionally with pg_stat_statements loaded (it needs a restart), stopped however the
 * bench ends; and the CPU its processes used, read from /proc.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startCluster, type RunningCluster } from '../electron/console/storage/postgres/cluster';
import { onBenchExit } from './temp';

export const BENCH_SUPERUSER = 'paydesk_bench';

/** Starts the cluster under `folder` (the bench's temp folder); with `stats`, pg_stat_statements is preloaded. */
export async function startBenchCluster(folder: string, options: { stats: boolean }): Promise<RunningCluster> {
  // As root the server runs as `postgres`, which must pass through the folder.
  chmodSync(folder, 0o711);
  const dir = join(folder, 'pg');
  mkdirSync(dir);
  let cluster = await startCluster({ dir, superuser: BENCH_SUPERUSER, auth: { method: 'trust' }, durable: true });
  if (options.stats) {
    const admin = new pg.Client({ host: cluster.host, port: cluster.port, user: BENCH_SUPERUSER, database: 'postgres' });
    await admin.connect();
    await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await admin.end();
    cluster.stop('fast');
    cluster = await startCluster({ dir, superuser: BENCH_SUPERUSER, auth: { method: 'trust' }, durable: true, port: cluster.port });
  }
  const running = cluster;
  onBenchExit(() => running.stop());
  return running;
}

/** The cluster's processes: the postmaster and its children, as /proc lists them now. */
export function clusterPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // Fields after the command's closing parenthesis: state ppid …
      if (Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster) pids.push(Number(pid));
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

/** CPU seconds used so far by the cluster's processes, from /proc (utime + stime, in clock ticks of 1/100 s). */
export function serverCpuSeconds(dataDir: string): number {
  let ticks = 0;
  for (const pid of clusterPids(dataDir)) {
    try {
      // Fields after the command's closing parenthesis: state ppid … utime (14th) stime (15th).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100;
}
