/**
 * WAL checkpoints copied back off the request thread.
 *
 * In WAL mode SQLite copies the log back into the database file (a checkpoint) from the connection
 * that commits once the log passes `wal_autocheckpoint` pages, inside that COMMIT: on the engine's
 * one thread, every ~16 MB of log, a copy of thousands of pages and two fsyncs while no request is
 * served (bench:engine, issue 28: with checkpoints left out the same engine took 55–120 % more
 * creates a second). A worker thread with its own connection runs PASSIVE checkpoints every few
 * milliseconds instead: they never take the write lock, never wait for one, and copy what is
 * committed while the requests go on. The request thread keeps its own `wal_autocheckpoint`
 * exactly as before, so the log stays bounded whatever the worker does (slow, failed, never
 * started): when its turn comes the worker has copied nearly everything, and what is left is the
 * last few milliseconds of log.
 *
 * Nothing about durability changes: a checkpoint is the same operation from either connection, and
 * an interrupted one leaves the log whole (decision engine-wal-synchronous-normal-kill-loses-nothing).
 *
 * Started only once the log has grown past START_AT_WAL_BYTES: an engine that writes little (most
 * tests, a person clicking through the console) never pays for a thread.
 */
import { stat } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { processLog } from '../log';
import { AUTOCHECKPOINT_PAGES } from './db';

/** Log size past which the worker starts. */
const START_AT_WAL_BYTES = 2 * 1024 * 1024;
/** How often the log's size is looked at until the worker starts (an asynchronous stat). */
const WATCH_EVERY_MS = 250;
/** How often the worker checkpoints. */
const CHECKPOINT_EVERY_MS = 20;
/**
 * Log frames past which the worker, right after a PASSIVE pass, restarts the log (RESTART: waits
 * for the open write group, then holds new writers off while it copies the few frames left and
 * syncs). A PASSIVE checkpoint never lets the log start over while writes keep coming, and the log
 * would grow for as long as they do.
 */
const RESTART_AT_FRAMES = 4000;
/** How long the worker waits for the write lock before trying again on its next pass. */
const RESTART_WAIT_MS = 200;
/**
 * The request thread's own threshold while the worker runs: a bound the log reaches only if the
 * worker falls far behind (restored to the usual one when the worker ends).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_000;

/** The worker, as CommonJS source: opens the same file and checkpoints PASSIVE on a timer until told to stop. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding, fileMustExist: true } : { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.restartWaitMs);
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
let timer = null;
function tick() {
  timer = null;
  try {
    const [result] = passive.all();
    if (result.log >= workerData.restartAtFrames) restart.all();
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
    return;
  }
  timer = setTimeout(tick, workerData.everyMs);
}
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  if (timer !== null) clearTimeout(timer);
  db.close();
  parentPort.close();
});
tick();
`;

export interface BackgroundCheckpoints {
  /** Stops watching and ends the worker (its connection closed) before the engine closes its own. */
  stop(): Promise<void>;
}

/** Where better-sqlite3 is, for the worker's `require`; null where this module has no URL (some bundles). */
function betterSqlitePath(): string | null {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return null;
  }
}

/** Watches `file`'s log and starts the checkpointing worker once it has grown; `:memory:` has no log. */
export function startBackgroundCheckpoints(db: Database.Database, file: string, nativeBinding?: string): BackgroundCheckpoints {
  const modulePath = file === ':memory:' || file === '' ? null : betterSqlitePath();
  if (modulePath === null) return { stop: async () => undefined };
  let stopped = false;
  let worker: Worker | null = null;
  let watch: NodeJS.Timeout | null = null;

  function start(): void {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, file, nativeBinding, everyMs: CHECKPOINT_EVERY_MS, restartAtFrames: RESTART_AT_FRAMES, restartWaitMs: RESTART_WAIT_MS } });
    // The engine's process may end without stop() (a CLI's Ctrl-C): the worker does not keep it alive.
    started.unref();
    started.on('message', (message: { error?: string }) => {
      // The request thread's own checkpoints go on as before: nothing is lost, only this speed-up.
      if (message.error !== undefined) processLog.warn('engine: background checkpoints stopped', { error: message.error });
    });
    started.on('error', (error) => processLog.warn('engine: background checkpoints stopped', { error }));
    started.once('exit', () => {
      if (worker === started) worker = null;
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    });
    worker = started;
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  }

  function look(): void {
    watch = null;
    stat(`${file}-wal`, (error, stats) => {
      if (stopped) return;
      if (!error && stats.size >= START_AT_WAL_BYTES) {
        start();
        return;
      }
      watch = setTimeout(look, WATCH_EVERY_MS);
      watch.unref();
    });
  }
  watch = setTimeout(look, WATCH_EVERY_MS);
  watch.unref();

  return {
    async stop() {
      stopped = true;
      if (watch) clearTimeout(watch);
      const running = worker;
      worker = null;
      if (running === null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.postMessage('stop');
      await exited;
    },
  };
}
