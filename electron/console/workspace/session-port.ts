/**
 * The storage port the console's handlers use on a team workspace: the workspace store, every
 * call through its session (storage/postgres/workspace-session.ts), so a failure is a workspace
 * fault with its code and words, a lost connection stops every write at once (never kept to run
 * later), and a read while the server is away gives back what was last read, if anything.
 *
 * Which calls are reads is listed here; anything not listed (a port operation added later) goes
 * through as a write: refused while the connection is lost, which is the safe side for money.
 */
import type { StoragePort } from '../storage/port';
import type { WorkspaceSession } from '../storage/postgres/workspace-session';

const READS: Record<string, ReadonlySet<string>> = {
  journal: new Set(['getForFollowUp', 'findByTransactionId', 'getEntry', 'getTimeline', 'search']),
  batches: new Set(['summary', 'list', 'earlierImports', 'rowsInState', 'counts']),
  reconcile: new Set(['run']),
  sweeper: new Set(['openEntries']),
  settings: new Set(['get']),
};

type Part = Record<string, unknown>;

function throughSession(session: WorkspaceSession, name: string, part: Part): Part {
  const reads = READS[name] ?? new Set<string>();
  return new Proxy(part, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      if (reads.has(key)) {
        return async (...args: unknown[]) => {
          const read = await session.read(`${name}.${key}:${JSON.stringify(args)}`, (store) => ((store as unknown as Record<string, Part>)[name]![key] as (...a: unknown[]) => Promise<unknown>)(...args));
          return read.value;
        };
      }
      return (...args: unknown[]) => session.write((store) => ((store as unknown as Record<string, Part>)[name]![key] as (...a: unknown[]) => Promise<unknown>)(...args));
    },
  });
}

/** The port over an open session; closing it closes the session (the runtime closes its store). */
export async function sessionPort(session: WorkspaceSession): Promise<StoragePort> {
  // The store object itself, without touching the server (sub-ports are wrapped below, other members passed on).
  const store = await session.write(async (raw) => raw);
  // One wrapper per part: the batch runner reaches `storage.batches` for every row.
  const parts = new Map<string, Part>();
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'close') return () => session.close();
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof key === 'string' && value !== null && typeof value === 'object') {
        let part = parts.get(key);
        if (!part) parts.set(key, (part = throughSession(session, key, value as Part)));
        return part;
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
