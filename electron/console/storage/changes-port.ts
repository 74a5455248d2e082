/**
 * Change events: what a store heard committed, so every screen that shows it reads again (issue
 * 24, item 5: live across desktops, no polling loop). On one desktop's SQLite journal they are
 * this console's own commits through the port (an in-process emitter); on a team workspace they
 * are every desktop's, heard with LISTEN on the workspace's change channel (./postgres/live-changes.ts).
 *
 * An event names ids only (an entry, a batch, a reconcile run, a team setting, an approval
 * request), never what changed: the screens fetch again, as they do for the main process's own
 * pushes, so nothing shown is ever built from an event. Bursts are coalesced: the changes heard in
 * one turn of the event loop reach each listener once, each id once.
 */

export type NamedChangeKind = 'entry' | 'batch' | 'reconciliation' | 'setting' | 'approval' | 'audit' | 'profile' | 'ask';

export type StoreChange =
  | {
      kind: NamedChangeKind;
      /** The entry's, batch's, run's or approval request's id; the setting's key; an audit line's id; a team profile's id, an ask to the team sender's id (a workspace's only). */
      id: string;
      /** The batch the change belongs to: a batch itself, one of its rows, or a batch row's entry. */
      batchId: string | null;
    }
  /** Changes may have been missed (the workspace connection was lost, then came back): read everything again. */
  | { kind: 'everything' };

export type ChangeListener = (changes: readonly StoreChange[]) => void;

export interface ChangesPort {
  /** Hears the changes committed from now on; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Resolves once changes committed from now on are heard (a workspace: its LISTEN connection is
   * up, started by the first subscribe). Never rejects: a workspace that is away is retried.
   */
  ready(): Promise<void>;
}

/** The key two changes share when they name the same thing (the later one's batch kept if known). */
function keyOf(change: StoreChange): string {
  return change.kind === 'everything' ? 'everything' : `${change.kind}\u0000${change.id}`;
}

export interface ChangeBundle {
  readonly port: ChangesPort;
  /** Changes committed: delivered to every listener at the end of this turn of the event loop, each once. */
  add(changes: readonly StoreChange[]): void;
  /** Whether anyone listens (a store skips work for events no one hears). */
  listening(): boolean;
}

/**
 * The listeners of one store and the coalescing of its bursts. `complete` may fill in what a
 * store only knows later (the SQLite journal: the batch of an entry), once per delivery.
 */
export function changeBundle(options: { ready?: () => Promise<void>; complete?: (changes: StoreChange[]) => StoreChange[]; onListenerError?: (error: unknown) => void; onFirstSubscriber?: () => void } = {}): ChangeBundle {
  const listeners = new Set<ChangeListener>();
  let pending = new Map<string, StoreChange>();
  let scheduled = false;
  let started = false;

  function deliver() {
    scheduled = false;
    const heard = pending;
    pending = new Map();
    if (listeners.size === 0 || heard.size === 0) return;
    let changes = [...heard.values()];
    if (options.complete) changes = options.complete(changes);
    for (const listener of [...listeners]) {
      try {
        listener(changes);
      } catch (error) {
        // One screen's listener failing must not keep the change from the others.
        options.onListenerError?.(error);
      }
    }
  }

  return {
    port: {
      subscribe(listener) {
        listeners.add(listener);
        if (!started) {
          started = true;
          options.onFirstSubscriber?.();
        }
        return () => void listeners.delete(listener);
      },
      ready: options.ready ?? (() => Promise.resolve()),
    },
    add(changes) {
      if (listeners.size === 0) return;
      for (const change of changes) {
        const key = keyOf(change);
        const before = pending.get(key);
        // The same id twice in a burst is one change; a batch named by either is kept.
        if (before && before.kind !== 'everything' && change.kind !== 'everything' && change.batchId === null && before.batchId !== null) continue;
        pending.delete(key);
        pending.set(key, change);
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(deliver);
      }
    },
    listening: () => listeners.size > 0,
  };
}
