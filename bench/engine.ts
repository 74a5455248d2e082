/**
 * `npm run bench:engine`: the engine's signed POST /v1/payments and GET /v1/payments/{id} under
 * autocannon on loopback, each next to a bare node:http server answering a fixed envelope in the
 * same run, printed as requests/s, p50/p99 latency and the ratio to the bare server.
 *
 * The servers run in a child process (`--serve`) so the load generator does not share their event
 * loop. Prism and Mockoon CLI, each in its own process, mock the engine's own OpenAPI document
 * and take the same requests right after the engine's run of each kind (bench/mockers.ts installs them into a temp folder on first use). Requests are signed up front (each POST with its own external_id; timestamps stay inside
 * the ±300 s window for a run of this length), so the generator only replays bytes.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, startEngine } from '../packages/sandbox/src/engine';
import { installMockers, startMocker, type MockerName } from './mockers';
import { startFloorServer } from './floor-server';
import { benchTempDir } from './temp';
import { growSandbox, grownIds } from './engine-grow';
import { engineInternals } from '../packages/sandbox/src/internals';

/** The parts of autocannon's API used here (the package ships no types). */
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: { setupRequest: (request: AutocannonRequest) => AutocannonRequest }[];
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const RETRIEVE_IDS = 2000;

interface Ready {
  engineUrl: string;
  bareUrl: string;
  floorUrl: string;
  payment: { publicKey: string; secretKey: string };
}

/** Child mode: the engine on a WAL file database and the bare server, until stdin closes. */
async function serve(): Promise<void> {
  const temp = benchTempDir('paydesk-bench-engine-');
  const dir = temp.path;
  const engine = await startEngine({ db: join(dir, 'bench.db'), port: 0, rateLimit: { perKeyPerMinute: 0 }, settleMs: Number(process.env.BENCH_SETTLE_MS ?? 2000), ...(process.env.BENCH_INSPECTOR_SIZE === undefined ? {} : { inspectorSize: Number(process.env.BENCH_INSPECTOR_SIZE) }) });
  const payment = engine.api.applications()[0]?.keys.find((key) => key.environment === 'sandbox' && key.type === 'payment');
  if (!payment) throw new Error('default seed has no sandbox payment key');
  // The bare baseline answers what a retrieve answers: a full transaction envelope.
  const fixed = JSON.stringify({
    success: true,
    message: 'Payment retrieved.',
    data: { transaction_id: 'TE_0123456789abcdefghijklmn', ref: '7f1c2c8e-4c55-4a2b-9a7e-0d5c6b1e2f30', external_id: 'order-1', type: 'payment', status: 'completed', amount: 5000, currency: 'XAF', description: 'Order', account_name: 'Ada Ndiaye', account_number: '+2376****0001', account_type: 'mobile_money', reason: null, failed_code: null, failed_at: null, cancelled_at: null, completed_at: '2026-11-22T00:00:00.000000Z', customer: { ref: '0b3f3c1e-1d2a-4b5c-8d9e-0f1a2b3c4d5e', first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com', metadata: null }, payment_method: { ref: 'a1b2c3d4-e5f6-5a7b-8c9d-0e1f2a3b4c5d', name: 'Service Demo', code: 'service_demo' }, metadata: { order: 1 }, created_at: '2026-11-22T00:00:00.000000Z', updated_at: '2026-11-22T00:00:00.000000Z', fee: 75, net_amount: 4925, fee_payer: 'merchant', application: { id: 'app_paydesk_demo', ref: '5b0c6f0e-2d1a-4c43-9a57-3f1f7f0c2a01', name: 'Paydesk Demo' } },
  });
  const bare = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(fixed) });
      response.end(fixed);
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const address = bare.address();
  if (address === null || typeof address === 'string') throw new Error('bare server has no port');
  const floor = await startFloorServer(payment);
  const ready: Ready = { engineUrl: engine.api.url, bareUrl: `http://127.0.0.1:${address.port}`, floorUrl: floor.url, payment: { publicKey: payment.publicKey, secretKey: payment.secretKey } };
  console.log(JSON.stringify(ready));
  // Each stdin line asks for the process's CPU time so far (µs), answered as one stdout line.
  // `unsettled` answers how many transactions wait for a provider notification due within 3 s.
  const unsettled = engineInternals(engine).db.prepare('SELECT COUNT(*) FROM provider_requests WHERE notifies = 1 AND notified = 0 AND decides_at <= ?').pluck();
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.startsWith('grow ')) {
      // `grow TEMPLATE_ID ROWS`: copies of one settled payment until the table holds ROWS.
      const [, templateId, rows] = line.split(' ');
      void growSandbox(engineInternals(engine).db, templateId!, Number(rows)).then(
        (result) => console.log(JSON.stringify(result)),
        (error: unknown) => console.log(JSON.stringify({ error: String(error) })),
      );
      return;
    }
    if (line === 'unsettled') {
      console.log(String(unsettled.get(engine.clock.nowMicros() + 3_000_000)));
      return;
    }
    const usage = process.cpuUsage();
    // `sys` answers the kernel's share alone (socket writes, SQLite file I/O).
    console.log(String(line === 'sys' ? usage.system : usage.user + usage.system));
  });
  process.stdin.on('end', async () => {
    bare.close();
    await floor.stop();
    await engine.stop();
    temp.remove();
    process.exit(0);
  });
}

interface Signed {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function sign(key: Ready['payment'], method: 'GET' | 'POST', path: string, body: string | undefined): Signed {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const payload = method === 'GET' ? '' : (body ?? '');
  const signature = createHmac('sha256', key.secretKey).update(`${key.publicKey}.${timestamp}.${method}.${path}.${payload}`).digest('hex');
  const headers: Record<string, string> = {
    authorization: key.publicKey,
    'x-svc-timestamp': timestamp,
    'x-svc-signature': signature,
    'x-svc-environment': 'sandbox',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, path, headers, body };
}

function paymentBody(index: number): string {
  return JSON.stringify({
    payment_method: 'service_demo',
    amount: 5000 + (index % 1000),
    phone_number: '+237650000001',
    customer: { first_name: 'Ada', last_name: 'Ndiaye', email: 'ada@example.com' },
    external_id: `bench-${process.pid}-${index}`,
    description: 'Benchmark order',
    metadata: { order: index },
  });
}

interface Figures {
  rps: number;
  /** Server CPU time per answered request, in µs: robust to a busy machine, unlike req/s. */
  cpuPerRequest: number;
  /** The kernel's part of `cpuPerRequest`. */
  sysPerRequest: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
}

let askCpu: () => Promise<number> = () => Promise.resolve(0);
let askSys: () => Promise<number> = () => Promise.resolve(0);

/** Replays `requests` in order (wrapping) for the run; CPU read from the engine's child unless `cpuOf` says whose. */
async function load(url: string, requests: Signed[], cpuOf?: () => number): Promise<Figures> {
  let next = 0;
  const readCpu = cpuOf ? () => Promise.resolve(cpuOf()) : askCpu;
  const readSys = cpuOf ? () => Promise.resolve(0) : askSys;
  const cpuBefore = await readCpu();
  const sysBefore = await readSys();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    requests: [
      {
        setupRequest(request) {
          const signed = requests[next % requests.length] as Signed;
          next += 1;
          return { ...request, method: signed.method, path: signed.path, headers: signed.headers, body: signed.body };
        },
      },
    ],
  });
  const cpu = (await readCpu()) - cpuBefore;
  const sys = (await readSys()) - sysBefore;
  const answered = result['2xx'] + result.non2xx;
  return {
    rps: result.requests.average,
    cpuPerRequest: answered > 0 ? cpu / answered : 0,
    sysPerRequest: answered > 0 ? sys / answered : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    other: result.non2xx + result.errors + result.timeouts,
  };
}

const GROW_TO = Number(process.env.BENCH_GROW_TO ?? 1_000_000);

/** A mock server started on the engine's OpenAPI document, warmed up, waiting for its runs. */
interface StartedMock {
  name: string;
  url: string;
  cpuMicros(): number;
  stop(): Promise<void>;
}

/**
 * Prism and Mockoon CLI, each in its own process on the engine's OpenAPI document, started and
 * warmed up before the engine's runs, so that each of their runs can follow the engine's run of the
 * same kind within seconds (on a shared machine the load drifts over a minute, and the ratio is
 * what counts). Prism checks each request against the document (headers, body) and answers the
 * document's example; Mockoon answers generated bodies. Their CPU per request comes from /proc.
 */
async function startMocks(ready: Ready, retrieves: Signed[]): Promise<{ mocks: StartedMock[]; stop: () => Promise<void> }> {
  const dir = installMockers();
  const temp = benchTempDir('paydesk-bench-openapi-');
  const spec = join(temp.path, 'openapi.json');
  writeFileSync(spec, JSON.stringify(buildOpenApiDocument({ serverUrl: ready.engineUrl })));
  const mocks: StartedMock[] = [];
  const stop = async () => {
    for (const mock of mocks) await mock.stop();
    temp.remove();
  };
  try {
    for (const name of ['prism', 'mockoon'] as MockerName[]) {
      const mock = await startMocker(dir, name, spec);
      mocks.push(mock);
      // A short warm-up (JIT, lazy route compilation), as the engine had its setup requests.
      await autocannon({ url: mock.url, connections: CONNECTIONS, duration: 2, requests: [{ setupRequest: (request) => ({ ...request, ...retrieves[0] }) }] });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { mocks, stop };
}

/** Each mock's run of the same requests, right after the engine's. */
async function mockRuns(mocks: StartedMock[], kind: 'POST' | 'GET', requests: Signed[]): Promise<Figures[]> {
  const figures: Figures[] = [];
  for (const mock of mocks) {
    const result = await load(mock.url, requests, mock.cpuMicros);
    console.log(row(`${mock.name} ${kind} (mock)`, result));
    figures.push(result);
  }
  return figures;
}

/**
 * The growth phase: create and retrieve on the database as it is (a few thousand transactions),
 * then again once it holds GROW_TO, printed as the ratio of the two (target >= 90 %).
 */
async function growth(ready: Ready, ids: string[], drain: () => Promise<void>, askLine: (question: string) => Promise<string>): Promise<void> {
  const createsFrom = (first: number) => Array.from({ length: 60_000 }, (_, index) => sign(ready.payment, 'POST', '/v1/payments', paymentBody(first + index)));
  const retrievesOf = (list: string[]) => list.map((id) => sign(ready.payment, 'GET', `/v1/payments/${id}`, undefined));
  console.log(`\ngrowth: the same runs before and after the sandbox database grows to ${GROW_TO.toLocaleString('en')} transactions`);
  // A warm-up pair first (JIT, caches), so "before" is not a cold start.
  await load(ready.engineUrl, createsFrom(1_500_000));
  await drain();
  await load(ready.engineUrl, retrievesOf(ids));
  await drain();
  const createBefore = await load(ready.engineUrl, createsFrom(2_000_000));
  console.log(row('create, as it is', createBefore));
  await drain();
  const retrieveBefore = await load(ready.engineUrl, retrievesOf(ids));
  console.log(row('retrieve, as it is', retrieveBefore));
  const grown = JSON.parse(await askLine(`grow ${ids[0]} ${GROW_TO}`)) as { rows: number; copies: number; seconds: number; error?: string };
  if (grown.error) throw new Error(grown.error);
  console.log(`grown to ${grown.rows.toLocaleString('en')} transactions in ${grown.seconds.toFixed(0)} s (every table a create and a settlement write)`);
  // Twice: the first run after growing also pays for pages the copy left cold.
  for (const [run, first] of [['first', 3_000_000], ['second', 3_100_000]] as const) {
    const createAfter = await load(ready.engineUrl, createsFrom(first));
    console.log(row(`create at ${(GROW_TO / 1e6).toFixed(1)}M rows, ${run}`, createAfter, createBefore));
    await drain();
  }
  await drain();
  // The same 2,000 transactions as before growing (same access pattern: the ratio of the target),
  // then 2,000 spread over the whole grown table, each read about once in the run: their pages
  // come from the disk cache, not SQLite's, which costs what a cold read costs at any size.
  const retrieveAfter = await load(ready.engineUrl, retrievesOf(ids));
  console.log(row(`retrieve at ${(GROW_TO / 1e6).toFixed(1)}M rows, same ids`, retrieveAfter, retrieveBefore));
  const retrieveSpread = await load(ready.engineUrl, retrievesOf(grownIds(RETRIEVE_IDS, grown.copies)));
  console.log(row(`retrieve at ${(GROW_TO / 1e6).toFixed(1)}M, old rows, cold`, retrieveSpread, retrieveBefore));
  console.log(`growth target: >= 90 % of the same run before growth (the ratio columns above); load average ${loadavg().map((n) => n.toFixed(2)).join(' / ')}`);
}

function row(name: string, figures: Figures, baseline?: Figures): string {
  const ratio = baseline ? `${((figures.rps / baseline.rps) * 100).toFixed(1)} %`.padStart(8) : ''.padStart(8);
  const cpuRatio = baseline ? `${((baseline.cpuPerRequest / figures.cpuPerRequest) * 100).toFixed(1)} %`.padStart(9) : '';
  return `${name.padEnd(28)} ${figures.rps.toFixed(0).padStart(8)} ${String(figures.p50).padStart(7)} ${String(figures.p99).padStart(7)} ${String(figures.ok).padStart(8)} ${String(figures.other).padStart(6)} ${figures.cpuPerRequest.toFixed(0).padStart(7)} ${figures.sysPerRequest.toFixed(0).padStart(7)}  ${ratio} ${cpuRatio}`;
}

async function main(): Promise<void> {
  // BENCH_NODE_ARGS="--cpu-prof" profiles the servers, not the load generator.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', new URL(import.meta.url).pathname, '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const ready = await new Promise<Ready>((resolve, reject) => {
    nextLine().then((line) => resolve(JSON.parse(line) as Ready), reject);
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  const ask = async (question: string) => {
    const answer = nextLine();
    child.stdin.write(`${question}\n`);
    return Number(await answer);
  };
  askCpu = () => ask('cpu');
  const askLine = async (question: string) => {
    const answer = nextLine();
    child.stdin.write(`${question}\n`);
    return answer;
  };
  askSys = () => ask('sys');
  // Settling what a run created belongs to that run's cost, not to the next run's.
  const drain = async () => {
    while ((await ask('unsettled')) > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  };
  try {
    // Enough distinct creates for the run at well above the expected rate.
    const creates = Array.from({ length: 120_000 }, (_, index) => sign(ready.payment, 'POST', '/v1/payments', paymentBody(index)));
    // Payments to retrieve, created through the API first.
    const ids: string[] = [];
    for (let index = 0; index < RETRIEVE_IDS; index += 1) {
      const signed = sign(ready.payment, 'POST', '/v1/payments', paymentBody(1_000_000 + index));
      const response = await fetch(`${ready.engineUrl}${signed.path}`, { method: 'POST', headers: signed.headers, body: signed.body });
      const envelope = (await response.json()) as { data: { transaction_id: string } };
      ids.push(envelope.data.transaction_id);
    }
    const retrieves = ids.map((id) => sign(ready.payment, 'GET', `/v1/payments/${id}`, undefined));

    console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION_SECONDS} s per run, loopback; servers in one child process\n`);
    console.log(
      `${'run'.padEnd(28)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'2xx'.padStart(8)} ${'other'.padStart(6)} ${'cpu µs'.padStart(7)} ${'sys µs'.padStart(7)}  ${'req/s vs'.padStart(8)} ${'cpu vs'.padStart(9)}`,
    );
    console.log(`${''.padEnd(28)} ${''.padStart(8)} ${''.padStart(7)} ${''.padStart(7)} ${''.padStart(8)} ${''.padStart(6)} ${'per req'.padStart(7)} ${'per req'.padStart(7)}  ${'bare'.padStart(8)} ${'bare'.padStart(9)}`);
    await drain();
    const only = process.env.BENCH_ONLY;
    if (only === 'growth') {
      await growth(ready, ids, drain, askLine);
      return;
    }
    if (only === 'create' || only === 'retrieve') {
      console.log(row(only, await load(ready.engineUrl, only === 'create' ? creates : retrieves)));
      return;
    }
    const mocks = process.env.BENCH_MOCKERS === '0' ? null : await startMocks(ready, retrieves);
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const bareCreate = await load(ready.bareUrl, creates);
      console.log(row('bare node:http (POST)', bareCreate));
      // The stack's own floor for a create (see floor-server.ts): the target can be no easier than this.
      // It runs before the engine's create, whose settlements would otherwise land in its run.
      const floorCreate = await load(ready.floorUrl, creates);
      console.log(row('floor: minimal signed create', floorCreate, bareCreate));
      const engineCreate = await load(ready.engineUrl, creates);
      console.log(row('engine POST /v1/payments', engineCreate, bareCreate));
      // The engine's settlements of its run land before the mocks' runs, not in them.
      await drain();
      const mockCreates = await mockRuns(mocks?.mocks ?? [], 'POST', creates);
      const bareRetrieve = await load(ready.bareUrl, retrieves);
      console.log(row('bare node:http (GET)', bareRetrieve));
      const engineRetrieve = await load(ready.engineUrl, retrieves);
      console.log(row('engine GET /v1/payments/{id}', engineRetrieve, bareRetrieve));
      const mockRetrieves = await mockRuns(mocks?.mocks ?? [], 'GET', retrieves);
      const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)} %`;
      // The API's own cost: what the engine's create spends beyond the floor's (same stack, one INSERT).
      console.log(
        `\nengine create vs floor: ${percent(engineCreate.rps, floorCreate.rps)} by req/s; the API's own work ` +
          `${(engineCreate.cpuPerRequest - floorCreate.cpuPerRequest).toFixed(0)} µs of server CPU per create beyond the floor's ${floorCreate.cpuPerRequest.toFixed(0)}`,
      );
      (mocks?.mocks ?? []).forEach((mock, index) => {
        const create = mockCreates[index] as Figures;
        const retrieve = mockRetrieves[index] as Figures;
        console.log(
          `engine vs ${mock.name}: create ${(engineCreate.rps / create.rps).toFixed(1)}x by req/s, ${(create.cpuPerRequest / engineCreate.cpuPerRequest).toFixed(1)}x by CPU per request; ` +
            `retrieve ${(engineRetrieve.rps / retrieve.rps).toFixed(1)}x by req/s, ${(retrieve.cpuPerRequest / engineRetrieve.cpuPerRequest).toFixed(1)}x by CPU per request`,
        );
      });
      console.log(`targets: create >= 35 % of bare, retrieve >= 50 % of bare; create and retrieve >= 10x Prism by req/s`);
      // One line to paste: the figures of this run and the machine's load around it.
      console.log(
        `summary: create ${percent(engineCreate.rps, bareCreate.rps)} of bare (floor ${percent(floorCreate.rps, bareCreate.rps)}), ` +
          `retrieve ${percent(engineRetrieve.rps, bareRetrieve.rps)} of bare; server CPU µs/req create ${engineCreate.cpuPerRequest.toFixed(0)} ` +
          `(floor ${floorCreate.cpuPerRequest.toFixed(0)}, bare ${bareCreate.cpuPerRequest.toFixed(0)}), retrieve ${engineRetrieve.cpuPerRequest.toFixed(0)} ` +
          `(bare ${bareRetrieve.cpuPerRequest.toFixed(0)}); load average ${loadBefore.toFixed(2)} -> ${(loadavg()[0] ?? 0).toFixed(2)}`,
      );
    } finally {
      await mocks?.stop();
    }
    if (GROW_TO > 0) await growth(ready, ids, drain, askLine);
  } finally {
    child.stdin.end();
  }
}

if (process.argv.includes('--serve')) void serve();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
