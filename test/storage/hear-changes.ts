/**
 * A listener on a store's change events for tests: every delivery kept, and a promise for the
 * moment what was heard satisfies a condition (no timer: a test that never hears it times out).
 */
import type { ChangesPort, StoreChange } from '../../electron/console/storage/changes-port';

export interface Hearing {
  deliveries: StoreChange[][];
  heard(): StoreChange[];
  /** Resolves once `test` holds on everything heard so far (checked at each delivery). */
  until(test: (heard: StoreChange[]) => boolean): Promise<void>;
  /** Forgets what was heard. */
  clear(): void;
  stop(): void;
}

export function hear(changes: ChangesPort): Hearing {
  const deliveries: StoreChange[][] = [];
  let waiters: { test: (heard: StoreChange[]) => boolean; resolve: () => void }[] = [];
  const heard = () => deliveries.flat();
  const check = () => {
    const all = heard();
    waiters = waiters.filter((waiter) => (waiter.test(all) ? (waiter.resolve(), false) : true));
  };
  const stop = changes.subscribe((changes) => {
    deliveries.push([...changes]);
    check();
  });
  return {
    deliveries,
    heard,
    until: (test) =>
      new Promise<void>((resolve) => {
        waiters.push({ test, resolve });
        check();
      }),
    clear: () => void deliveries.splice(0),
    stop,
  };
}

/** Whether `heard` names this id of this kind. */
export const named = (heard: StoreChange[], kind: StoreChange['kind'], id?: string) => heard.some((change) => change.kind === kind && (id === undefined || (change.kind !== 'everything' && change.id === id)));
