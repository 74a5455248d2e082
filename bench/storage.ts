/**
 * `npx tsx bench/storage.ts`: one confirmed batch sent through the storage port on both stores in
 * the same run, the SQLite journal (the baseline) and a PostgreSQL workspace on a throwaway local
 * cluster (fsync on, the server's defaults): workers claim rows in groups, write each row's entry
 * `pending`, record its accepted answer, and release the group, as the batch runner will. No HTTP:
 * this measures what the store costs per row. Speed is printed here, never asserted.
 *
 * BENCH_ROWS (default 1000), BENCH_WORKERS (default 8), BENCH_GROUP (rows per claim, default 10).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openJournal } from '../electron/console/journal/entries';
import type { StoragePort } from '../electron/console/storage/port';
import { sqliteStore } from '../electron/console/storage/sqlite-store';
import { startCluster } from '../electron/console/storage/postgres/cluster';
import { openWorkspacePool } from '../electron/console/storage/postgres/db';
import { migrateWorkspace } from '../electron/console/storage/postgres/migrate';
import { workspaceStore } from '../electron/console/storage/postgres/store';
import { checkedRows, PROFILE, serviceTx } from '../test/storage/fixtures';
import { benchTempDir, onBenchExit } from './temp';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
const GROUP = Number(process.env.BENCH_GROUP ?? 10);

async function sendBatch(store: StoragePort, batchId: string): Promise<number> {
  await store.batches.create({ id: batchId, fileName: 'bench.csv', fileHash: batchId, profile: PROFILE, paymentMethod: null, concurrency: WORKERS, retryOf: null, rows: checkedRows(ROWS, { amount: 700 }), at: 0 });
  await store.batches.setState(batchId, 'sending', 0);
  const started = performance.now();
  const worker = async (holder: string) => {
    for (;;) {
      const claim = await store.batches.claimRows(batchId, holder, GROUP, 60_000, 0);
      if (claim.rows.length === 0) return;
      for (const row of claim.rows) {
        const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at: 1, batch: { id: batchId, row: row.rowNumber } });
        await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(row.request!), httpStatus: 201, message: null }, 2);
      }
      await store.batches.releaseClaims(batchId, holder, claim.rows.map((row) => row.rowNumber));
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(`worker-${i}`)));
  const seconds = (performance.now() - started) / 1000;
  const { counts } = await store.batches.counts(batchId);
  if (counts.accepted !== ROWS) throw new Error(`${store.kind}: ${counts.accepted} of ${ROWS} rows accepted`);
  return ROWS / seconds;
}

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
  const pool = openWorkspacePool({ host: cluster.host, port: cluster.port, user: 'paydesk_bench', database: 'postgres', max: WORKERS });
  const migrating = await pool.connect();
  await migrateWorkspace(migrating);
  migrating.release();
  const postgres = workspaceStore(pool);

  console.log(`one batch of ${ROWS} rows, ${WORKERS} workers, claims of ${GROUP} rows (no HTTP: the store's cost per row)`);
  const results: { store: string; rate: number }[] = [];
  // SQLite first and last: the baseline of the same run, and whether the machine's load moved.
  results.push({ store: 'SQLite (baseline)', rate: await sendBatch(sqlite, 'b-sqlite-1') });
  results.push({ store: 'PostgreSQL', rate: await sendBatch(postgres, 'b-pg-1') });
  results.push({ store: 'SQLite (again)', rate: await sendBatch(sqlite, 'b-sqlite-2') });
  const baseline = results[0]!.rate;
  for (const { store, rate } of results) console.log(`  ${store.padEnd(18)} ${rate.toFixed(0).padStart(7)} rows/s   ${(rate / baseline).toFixed(2)}× baseline`);
  console.log(`load average (1/5/15 min): ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
  await postgres.close();
  await sqlite.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
