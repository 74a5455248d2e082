/**
 * `npx tsx bench/engine-grow-ab.ts`: issue 17 item 4 without HTTP, for a busy machine. Two engines
 * in this one process, each with 2,000 payments made through `initiateTransaction`; one then grows
 * to BENCH_GROW_TO transactions (`growSandbox`, as `BENCH_ONLY=growth` does). Then rounds that
 * alternate between the two: 960 creates in groups of 16 (each settled by a clock advance, so the
 * settlement's writes count) and 20,000 retrieves (lookup, full object, JSON) of the first 2,000
 * payments. Printed: server CPU µs per operation, median of the rounds, and small / grown.
 *
 * Alternating in one process puts both databases under the same machine load at the same time, so
 * the ratio stays readable when other work shares the cores (the HTTP phase's ratios then swing).
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { TransactionRequest } from '../shared/contract';
import type { Authenticated } from '../packages/sandbox/src/auth/auth';
import { startEngine, type EngineHandle } from '../packages/sandbox/src/engine';
import { engineInternals } from '../packages/sandbox/src/internals';
import { initiateTransaction } from '../packages/sandbox/src/lifecycle/initiate';
import { findTransaction, toFullTransaction } from '../packages/sandbox/src/storage/store';
import { growSandbox } from './engine-grow';
import { benchTempDir } from './temp';

const GROW_TO = Number(process.env.BENCH_GROW_TO ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const GROUP = 16;
const IDS = 2000;

interface Side {
  engine: EngineHandle;
  auth: Authenticated;
  ids: string[];
}

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

let serial = 0;
function paymentRequest(): TransactionRequest {
  serial += 1;
  return {
    payment_method: 'service_demo',
    amount: 5000 + (serial % 1000),
    phone_number: '+237650000001',
    customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
    external_id: `bench-${process.pid}-${serial}`,
    description: 'Benchmark order',
    metadata: { order: serial },
  };
}

async function side(dir: string, name: string): Promise<Side> {
  // settleMs 1: the clock advance after each round of creates settles all of them.
  const engine = await startEngine({ db: join(dir, `${name}.db`), port: 0, rateLimit: { perKeyPerMinute: 0 }, settleMs: 1 });
  const app = engine.api.applications()[0];
  if (!app) throw new Error('default seed has no application');
  const auth: Authenticated = { publicKey: 'bench', appId: app.id, appRef: app.ref, appName: app.name, currency: app.currency, environment: 'sandbox', keyType: 'payment' };
  return { engine, auth, ids: [] };
}

/** CPU µs per create, its settlement included. */
async function creates(target: Side, groups: number): Promise<number> {
  const before = cpuMicros();
  for (let group = 0; group < groups; group += 1) {
    const rows = await Promise.all(Array.from({ length: GROUP }, () => initiateTransaction(engineInternals(target.engine).ctx, target.auth, 'payment', paymentRequest())));
    for (const row of rows) if (target.ids.length < IDS) target.ids.push(row.id);
  }
  target.engine.clock.advance(1);
  return (cpuMicros() - before) / (groups * GROUP);
}

/** CPU µs per retrieve: the lookup, the full object and its JSON, as the route answers it. */
function retrieves(target: Side, count: number): number {
  const scope = { appId: target.auth.appId, environment: target.auth.environment, kind: 'payment' as const };
  const before = cpuMicros();
  for (let index = 0; index < count; index += 1) {
    const row = findTransaction(engineInternals(target.engine).db, scope, 'transaction_id', target.ids[(index * 7919) % target.ids.length] as string);
    if (!row) throw new Error('a created payment was not found');
    JSON.stringify(toFullTransaction(row));
  }
  return (cpuMicros() - before) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const temp = benchTempDir('paydesk-bench-grow-ab-');
  const small = await side(temp.path, 'small');
  const grown = await side(temp.path, 'grown');
  try {
    await creates(small, IDS / GROUP);
    await creates(grown, IDS / GROUP);
    const result = await growSandbox(engineInternals(grown.engine).db, grown.ids[0] as string, GROW_TO);
    console.log(`grown to ${result.rows.toLocaleString('en')} transactions in ${result.seconds.toFixed(0)} s; the other database holds ${IDS.toLocaleString('en')}`);
    const figures = { createSmall: [] as number[], createGrown: [] as number[], retrieveSmall: [] as number[], retrieveGrown: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      figures.createSmall.push(await creates(small, 60));
      figures.createGrown.push(await creates(grown, 60));
      figures.retrieveSmall.push(retrieves(small, 20_000));
      figures.retrieveGrown.push(retrieves(grown, 20_000));
    }
    const line = (name: string, smallFigures: number[], grownFigures: number[]) =>
      `${name.padEnd(26)} ${median(smallFigures).toFixed(1).padStart(8)} ${median(grownFigures).toFixed(1).padStart(8)} ${`${((median(smallFigures) / median(grownFigures)) * 100).toFixed(1)} %`.padStart(9)}`;
    console.log(`\n${'CPU µs per operation'.padEnd(26)} ${'small'.padStart(8)} ${'grown'.padStart(8)} ${'ratio'.padStart(9)}`);
    console.log(line('create (with settlement)', figures.createSmall, figures.createGrown));
    console.log(line('retrieve (2,000 ids)', figures.retrieveSmall, figures.retrieveGrown));
    console.log(`ratio = small / grown (target >= 90 %), median of ${ROUNDS} alternating rounds; load average ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
  } finally {
    await small.engine.stop();
    await grown.engine.stop();
    temp.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
