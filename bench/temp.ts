/**
 * Temp folders and child processes of a benchmark, removed whatever way the benchmark ends: a
 * normal exit, an exception, Ctrl-C (SIGINT) or SIGTERM. A benchmark writes hundreds of MB (a
 * million-row journal), and a folder left behind on every interrupted run fills the disk.
 *
 * Signal handlers alone are not enough: a benchmark spends seconds inside one synchronous SQLite
 * statement, and `tsx` kills a child that does not answer a signal within ~60 ms with SIGKILL,
 * which no handler sees. So each folder also gets a small detached guardian process that removes
 * it once the benchmark's process is gone, however it went.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cleanups = new Set<() => void>();
let installed = false;

function runCleanups(): void {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      cleanup();
    } catch {
      // Keep going: the next folder or process must still be removed.
    }
  }
  cleanups.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' runs synchronously on a normal end, on process.exit and after an uncaught exception.
  process.on('exit', runCleanups);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: removing the benchmark's temp folders`);
      runCleanups();
      process.exit(code);
    });
  }
}

/** Runs `cleanup` (synchronous) when the benchmark ends, however it ends; returns its removal. */
export function onBenchExit(cleanup: () => void): () => void {
  install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export interface BenchTempDir {
  path: string;
  /** Removes one file of the folder (and its SQLite -wal/-shm) as soon as it is no longer needed. */
  removeFile(file: string): void;
  /** Removes the folder now (it is also removed at exit). */
  remove(): void;
}

/** Polls every half second: the folder gone (removed by the benchmark) or the process gone (removes it). */
const GUARDIAN = `
const [pid, path] = process.argv.slice(1);
const { existsSync, rmSync } = require('node:fs');
const timer = setInterval(() => {
  if (!existsSync(path)) { clearInterval(timer); return; }
  try { process.kill(Number(pid), 0); } catch { rmSync(path, { recursive: true, force: true }); clearInterval(timer); }
}, 500);`;

export function benchTempDir(prefix: string): BenchTempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  spawn(process.execPath, ['-e', GUARDIAN, String(process.pid), path], { detached: true, stdio: 'ignore' }).unref();
  const remove = () => rmSync(path, { recursive: true, force: true });
  const forget = onBenchExit(remove);
  return {
    path,
    removeFile(file) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
    },
    remove() {
      remove();
      forget();
    },
  };
}

/**
 * Playwright makes its Chromium profile folders with `os.tmpdir()`: pointing TMPDIR into a guarded
 * folder before the browser starts puts them where an interrupted run still removes them.
 */
export function browserTempDir(): BenchTempDir {
  const dir = benchTempDir('paydesk-bench-browser-');
  process.env.TMPDIR = dir.path;
  return dir;
}
