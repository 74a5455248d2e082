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
import type { LoginRights } from '../storage/login-rights-port';
import type { WorkspaceSession } from '../storage/postgres/workspace-session';

const READS: Record<string, ReadonlySet<string>> = {
  journal: new Set(['getForFollowUp', 'findByTransactionId', 'getEntry', 'getTimeline', 'search', 'overview', 'exportPage', 'withPaidLater']),
  batches: new Set([
    'summary', 'list', 'earlierImports', 'rowsInState', 'counts', 'rows', 'rowsPage', 'rowsByNumber', 'progressCounts', 'rowInputs', 'rehearsal',
    'adoptedDifferingCount', 'sentEarlier', 'sentEarlierRowNumbers', 'earlierRowIds', 'batchMadeFrom',
  ]),
  reconcile: new Set(['run', 'summary', 'list', 'detail', 'progressCounts', 'uncheckedRows', 'rowsToVerify', 'fileKeys', 'journalCandidates', 'pageRows']),
  sweeper: new Set(['openEntries']),
  settings: new Set(['get']),
  teamProfiles: new Set(['list']),
};

/**
 * Reads tried even while the connection is lost, never answered from an earlier read: reading
 * the approvals again is how a person learns whether a decision lost on its way was recorded
 * (APPROVAL_UNCONFIRMED), and an old list would still offer the vote. The gates stay writes: they
 * come right before a send, and sending stops while the connection is lost.
 */
const READS_NOW: Record<string, ReadonlySet<string>> = {
  approvals: new Set(['whoAmI', 'policy', 'waiting', 'get', 'about']),
};

/**
 * Parts passed on as they are: change events (a subscription answers at once with its
 * unsubscribe; the workspace's LISTEN connection finds the server again by itself and then says
 * "everything", ../storage/postgres/live-changes.ts).
 */
const PASSED_ON = new Set(['changes']);

/** A read whose arguments are larger than this (a file's rows) is not kept to show while the server is away. */
const KEPT_KEY_CHARS = 2_000;

type Part = Record<string, unknown>;

function throughSession(session: WorkspaceSession, name: string, part: Part): Part {
  const reads = READS[name] ?? new Set<string>();
  const readsNow = READS_NOW[name] ?? new Set<string>();
  return new Proxy(part, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      // The same method of the same part, on the store the session runs it with.
      const on = (args: unknown[]) => (store: StoragePort) => ((store as unknown as Record<string, Part>)[name]![key] as (...a: unknown[]) => Promise<unknown>)(...args);
      if (readsNow.has(key)) return (...args: unknown[]) => session.readNow(on(args));
      if (reads.has(key)) {
        return async (...args: unknown[]) => {
          const readKey = `${name}.${key}:${JSON.stringify(args)}`;
          if (readKey.length > KEPT_KEY_CHARS) return session.write(on(args));
          return (await session.read(readKey, on(args))).value;
        };
      }
      return (...args: unknown[]) => session.write(on(args));
    },
  });
}

/** Finance sends; finance and support follow up (postgres/login-rights.ts asks the same of the server). */
function rightsOf(roles: readonly string[]): LoginRights {
  return { sends: roles.includes('finance'), followsUp: roles.includes('finance') || roles.includes('support') };
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
      // The login's rights as the workspace said them when it opened (its roles): every send asks them
      // first, so a login that may not send is refused without asking the server, and a lost server
      // is said by the send's own write (a role changed since is still refused by the database).
      if (key === 'loginRights') return async () => rightsOf(session.who.roles);
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof key === 'string' && value !== null && typeof value === 'object' && !PASSED_ON.has(key)) {
        let part = parts.get(key);
        if (!part) parts.set(key, (part = throughSession(session, key, value as Part)));
        return part;
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
