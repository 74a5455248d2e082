/**
 * `npx tsx bench/port-sqlite.ts`: what going through the storage port costs a single desktop's
 * SQLite journal on the paths moved onto it (issue 24), in one run, the journal's own functions
 * (as the handlers called them before) as the baseline of each ratio:
 * - History search (bench/storage-search.ts's rows and queries): searchJournal vs the port's search;
 * - a single send's journal work: the request written pending, read back, the answer written and
 *   read back (recordRequest + recordInitiateOutcome vs the port's writeRequest, getEntry,
 *   writeInitiateOutcome, getEntry), without the POST between them (an HTTP round trip);
 * - a transaction's page: getEntry + getTimeline vs the port's.
 * Baseline and port runs alternate in blocks, so the machine's load falls on both alike.
 * Speed is printed, never asserted.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getEntry, getTimeline, recordInitiateOutcome, recordRequest } from '../electron/console/journal/entries';
import { searchJournal } from '../electron/console/journal/search';
import type { ServiceTransaction } from '../electron/console/journal/rows';
import type { JournalPort } from '../electron/console/storage/port';
import { sqliteStore } from '../electron/console/storage/sqlite-store';
import type { TransactionRequest } from '../shared/contract';
import { fillSqlite, measureSearch, searchCases } from './storage-search';
import { benchTempDir } from './temp';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const SENDS = Number(process.env.BENCH_SENDS ?? 2_000);
const BLOCKS = 4;
const PROFILE = { id: 'p1', name: 'Acme', environment: 'sandbox' as const };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (value: number) => value.toFixed(3);

function request(i: number, tag: string): TransactionRequest {
  return {
    payment_method: 'momo_cm',
    amount: 1000 + i,
    phone_number: '+237650000001',
    external_id: `BENCH-${tag}-${i}`,
    customer: { first_name: 'Awa', last_name: 'Ndiaye', email: 'awa@example.com' },
    description: 'bench',
  };
}
function accepted(req: TransactionRequest, i: number): ServiceTransaction {
  const at = '2026-11-25T10:00:00.000Z';
  return {
    transaction_id: `TR_BENCH_${req.external_id}`, ref: `ref_${i}`, external_id: req.external_id ?? null, type: 'payment', status: 'processing', amount: req.amount, currency: 'XAF',
    description: 'bench', account_name: 'Awa Ndiaye', account_number: req.phone_number, account_type: 'mobile_money', reason: null, failed_code: null, failed_at: null,
    cancelled_at: null, completed_at: null, customer: { ref: 'cus', ...req.customer }, payment_method: { ref: 'pm', name: 'MoMo', code: 'momo_cm' }, metadata: null, created_at: at, updated_at: at,
    fee: null, net_amount: null, fee_payer: null, application: null,
  };
}

async function main(): Promise<void> {
  const temp = benchTempDir('paydesk-bench-port-');
  const { db, seconds } = fillSqlite(join(temp.path, 'journal.db'), ROWS);
  const store = sqliteStore(db, { settingsFile: join(temp.path, 'team-settings.json') });
  console.log(`SQLite journal: ${ROWS.toLocaleString('en')} rows (filled in ${seconds.toFixed(1)} s); load ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);

  // History search: the journal's function as an async port (what the handler awaited before) vs the store's.
  const direct: Pick<JournalPort, 'search'> = { search: async (query, offset, limit) => searchJournal(db, query, offset, limit) };
  console.log('\nHistory search, p50 / p95 ms (page of 100 + total + JSON)');
  for (const search of searchCases(ROWS)) {
    const before: { p50: number; p95: number }[] = [];
    const after: { p50: number; p95: number }[] = [];
    for (let block = 0; block < BLOCKS; block += 1) {
      before.push(await measureSearch(direct as JournalPort, search));
      after.push(await measureSearch(store.journal, search));
    }
    // The median block of each (the load moves between blocks).
    const mid = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const b50 = mid(before.map((f) => f.p50));
    const a50 = mid(after.map((f) => f.p50));
    const b95 = mid(before.map((f) => f.p95));
    const a95 = mid(after.map((f) => f.p95));
    console.log(`  ${search.name.padEnd(32)} functions ${ms(b50)} / ${ms(b95)}  port ${ms(a50)} / ${ms(a95)}  ratio p50 ${(a50 / b50).toFixed(2)}  p95 ${(a95 / b95).toFixed(2)}`);
  }

  // A single send's journal work.
  const functionsTimes: number[] = [];
  const portTimes: number[] = [];
  const per = Math.ceil(SENDS / BLOCKS);
  for (let block = 0; block < BLOCKS; block += 1) {
    for (let i = 0; i < per; i += 1) {
      const req = request(block * per + i, 'f');
      const started = performance.now();
      const pending = recordRequest(db, { profile: PROFILE, kind: 'payment', request: req, currency: 'XAF', at: Date.now() });
      recordInitiateOutcome(db, pending.id, { kind: 'accepted', tx: accepted(req, i), httpStatus: 201, message: null }, Date.now());
      functionsTimes.push(performance.now() - started);
    }
    for (let i = 0; i < per; i += 1) {
      const req = request(block * per + i, 'p');
      const started = performance.now();
      const id = await store.journal.writeRequest({ profile: PROFILE, kind: 'payment', request: req, currency: 'XAF', at: Date.now() });
      await store.journal.getEntry(id);
      await store.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: accepted(req, i), httpStatus: 201, message: null }, Date.now());
      await store.journal.getEntry(id);
      portTimes.push(performance.now() - started);
    }
  }
  const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
  const f = sorted(functionsTimes);
  const p = sorted(portTimes);
  console.log(`\nA single send's journal work (${SENDS.toLocaleString('en')} each), ms`);
  console.log(`  functions  p50 ${ms(percentile(f, 50))}  p95 ${ms(percentile(f, 95))}`);
  console.log(`  port       p50 ${ms(percentile(p, 50))}  p95 ${ms(percentile(p, 95))}  ratio p50 ${(percentile(p, 50) / percentile(f, 50)).toFixed(2)}  p95 ${(percentile(p, 95) / percentile(f, 95)).toFixed(2)}`);

  // A transaction's page.
  const ids = (db.prepare(`SELECT id FROM entries WHERE external_id LIKE 'BENCH-f-%' LIMIT 500`).all() as { id: string }[]).map((row) => row.id);
  const pageF: number[] = [];
  const pageP: number[] = [];
  for (let block = 0; block < BLOCKS; block += 1) {
    for (const id of ids) {
      const started = performance.now();
      getEntry(db, id);
      getTimeline(db, id);
      pageF.push(performance.now() - started);
    }
    for (const id of ids) {
      const started = performance.now();
      await Promise.all([store.journal.getEntry(id), store.journal.getTimeline(id)]);
      pageP.push(performance.now() - started);
    }
  }
  const gf = sorted(pageF);
  const gp = sorted(pageP);
  console.log(`\nA transaction's page (entry + timeline), ms`);
  console.log(`  functions  p50 ${ms(percentile(gf, 50))}  p95 ${ms(percentile(gf, 95))}`);
  console.log(`  port       p50 ${ms(percentile(gp, 50))}  p95 ${ms(percentile(gp, 95))}  ratio p50 ${(percentile(gp, 50) / percentile(gf, 50)).toFixed(2)}`);
  console.log(`\nload ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
  db.close();
}

void main();
