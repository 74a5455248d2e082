/**
 * The OS keychain's native calls, run on a worker thread with a time limit.
 *
 * `@napi-rs/keyring` answers synchronously: on Linux each call opens a D-Bus connection and waits
 * for the Secret Service. When gnome-keyring stalls or crashes, that wait held main's event loop:
 * no HTTP, no IPC, no SIGTERM (issue 37 item 6). Here every call goes to a worker thread and gets
 * `timeoutMs` to answer; past it the caller gets KEYCHAIN_UNRESPONSIVE, the worker is terminated
 * (it exits once the native call returns) and the next call starts a fresh one. While
 * MAX_HUNG_WORKERS given-up workers still hang, calls fail at once rather than pile up threads and
 * D-Bus sockets.
 * Why a worker thread and not a child process: docs/decisions/keychain-cached-and-off-main-thread.md.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The keychain operations the vault needs, answered asynchronously. */
export interface KeychainCalls {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  /** Stops the worker (the runtime's close). */
  close(): void;
}

/** The keychain did not answer within the limit (the library's failures come back as `KeychainFailure`). */
export class KeychainUnresponsive extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the keychain did not answer within ${timeoutMs} ms`);
    this.name = 'KeychainUnresponsive';
  }
}

/** The keyring library's own failure, carried from the worker (its text is sorted by the vault, never shown). */
export class KeychainFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeychainFailure';
  }
}

export const KEYCHAIN_TIMEOUT_MS = 5_000;

/** Given-up workers still stuck in a native call, each holding a thread and a D-Bus connection, beyond which calls fail at once. */
export const MAX_HUNG_WORKERS = 3;

type Operation = { op: 'get'; service: string; account: string } | { op: 'set'; service: string; account: string; password: string } | { op: 'delete'; service: string; account: string };
type Answer = { id: number; ok: true; value: string | boolean | null } | { id: number; ok: false; message: string };

/*
 * The worker's source, evaluated as CommonJS: the main build is one bundle (vite.config.ts), so a
 * worker file would need an entry of its own; the native module is resolved by main and passed in.
 * On Linux the store is pinned to the Secret Service: the library's default silently falls back to
 * the kernel's keyutils when no Secret Service answers, which keeps secrets only until logout and
 * would hide the missing keychain from the user.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Entry } = require(workerData.modulePath);
parentPort.on('message', function keychainCall(call) {
  try {
    const entry = new Entry(call.service, call.account, { linux: { store: 'secret-service' } });
    let value = null;
    if (call.op === 'get') value = entry.getPassword();
    else if (call.op === 'set') entry.setPassword(call.password);
    else value = entry.deletePassword();
    parentPort.postMessage({ id: call.id, ok: true, value: value === undefined ? null : value });
  } catch (error) {
    parentPort.postMessage({ id: call.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Pending {
  resolve: (value: string | boolean | null) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface WorkerKeychainOptions {
  timeoutMs?: number;
}

/** The OS keychain through a worker thread, each call limited to `timeoutMs`. */
export function workerKeychain(options: WorkerKeychainOptions = {}): KeychainCalls {
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const modulePath = createRequire(import.meta.url).resolve('@napi-rs/keyring');
  let worker: Worker | null = null;
  /** Workers given up on whose native call has not returned yet. */
  let hanging = 0;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(error: Error): void {
    for (const [id, call] of pending) {
      clearTimeout(call.timer);
      pending.delete(id);
      call.reject(error);
    }
  }

  function abandon(stuck: Worker, error: Error): void {
    if (worker === stuck) worker = null;
    hanging += 1;
    stuck.once('exit', () => {
      hanging -= 1;
    });
    // Terminate takes effect once the native call returns; the thread never holds the process open.
    void stuck.terminate().catch(() => undefined);
    failAll(error);
  }

  function started(): Worker {
    if (worker) return worker;
    const fresh = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath } });
    fresh.unref();
    fresh.on('message', (answer: Answer) => {
      const call = pending.get(answer.id);
      if (!call) return;
      pending.delete(answer.id);
      clearTimeout(call.timer);
      if (answer.ok) call.resolve(answer.value);
      else call.reject(new KeychainFailure(answer.message));
    });
    fresh.on('error', (error) => abandon(fresh, new KeychainFailure(error.message)));
    fresh.on('exit', () => {
      if (worker === fresh) {
        worker = null;
        failAll(new KeychainFailure('the keychain worker stopped'));
      }
    });
    worker = fresh;
    return fresh;
  }

  function call(operation: Operation): Promise<string | boolean | null> {
    if (hanging >= MAX_HUNG_WORKERS) return Promise.reject(new KeychainUnresponsive(timeoutMs));
    const target = started();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => abandon(target, new KeychainUnresponsive(timeoutMs)), timeoutMs);
      pending.set(id, { resolve, reject, timer });
      target.postMessage({ id, ...operation });
    });
  }

  return {
    async getPassword(service, account) {
      const value = await call({ op: 'get', service, account });
      return typeof value === 'string' ? value : null;
    },
    async setPassword(service, account, password) {
      await call({ op: 'set', service, account, password });
    },
    async deletePassword(service, account) {
      return (await call({ op: 'delete', service, account })) === true;
    },
    close() {
      failAll(new KeychainFailure('the keychain worker was closed'));
      if (worker) void worker.terminate().catch(() => undefined);
      worker = null;
    },
  };
}
