/**
 * Prism (`@stoplight/prism-cli@5`) and Mockoon CLI (`@mockoon/cli@9`) for bench/engine.ts: the two
 * well-known mock servers, each mocking the engine's own OpenAPI document in its own process, so the
 * engine's create and retrieve can be printed beside them (issue 28 target 5).
 *
 * They are not dependencies of Paydesk: they are installed on demand with npm into a folder under
 * the system's temp directory (kept between runs, so only the first run downloads them), never into
 * package.json. `BENCH_MOCKERS=0` skips them; `BENCH_MOCKERS_DIR` names another folder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGES = { prism: '@stoplight/prism-cli@5', mockoon: '@mockoon/cli@9' } as const;
export type MockerName = keyof typeof PACKAGES;

export interface Mocker {
  name: string;
  url: string;
  /** The mock server process's CPU time so far (user + system), in µs, from /proc. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/** The install folder, with both CLIs in it (npm install once; later runs reuse it). */
export function installMockers(): string {
  const dir = process.env.BENCH_MOCKERS_DIR ?? join(tmpdir(), 'paydesk-bench-mockers');
  const installed = (name: string) => existsSync(join(dir, 'node_modules', name, 'package.json'));
  if (installed('@stoplight/prism-cli') && installed('@mockoon/cli')) return dir;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  console.log(`installing ${Object.values(PACKAGES).join(' and ')} into ${dir} (not into package.json)...`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...Object.values(PACKAGES)], { cwd: dir, stdio: 'inherit' });
  return dir;
}

export function mockerVersion(dir: string, name: MockerName): string {
  const pkg = name === 'prism' ? '@stoplight/prism-cli' : '@mockoon/cli';
  return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** utime + stime of a process, in µs (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Until the server answers anything over HTTP (a mock answers its routes; 404 elsewhere is fine). */
async function waitForHttp(url: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before answering`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`${name} did not answer within 120 s`);
}

/** Starts one mock server on `specPath` (the engine's OpenAPI document, JSON) in its own process. */
export async function startMocker(dir: string, name: MockerName, specPath: string): Promise<Mocker> {
  const port = await freePort();
  const args =
    name === 'prism'
      ? [join(dir, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-h', '127.0.0.1', '-p', String(port), specPath]
      : [join(dir, 'node_modules/@mockoon/cli/bin/run.js'), 'start', '-d', specPath, '-p', String(port), '-l', '127.0.0.1', '--disable-log-to-file', '--disable-admin-api'];
  // Their request logs go nowhere: a mock printing every request would be measured printing.
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/v1/balance`, child, name);
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}\n${stderr}`, { cause: error });
  }
  const pid = child.pid!;
  return {
    name: `${name === 'prism' ? 'Prism' : 'Mockoon CLI'} ${mockerVersion(dir, name)}`,
    url,
    cpuMicros: () => processCpuMicros(pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
