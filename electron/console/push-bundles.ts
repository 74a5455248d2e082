/**
 * Push events gathered for a moment and handed to a transport together, in the order they came.
 *
 * While a batch sends on the local engine main pushes thousands of events a second (each row: its
 * engine events, its inspected request, its journal change). One message each cost the page a task
 * and a network or IPC message per event: in bench/batch-ui.ts ~60,000 messages a run, ~37,000 tasks
 * on the page's main thread, the most of what the page did while sending (issue 28 item 3). Sent
 * together, every event still arrives, in order, and the page handles a whole bundle in one task.
 */
import { PUSH_EVENTS, type BundledPush } from '../../shared/api';
import type { PushSource } from './transport';

export type { BundledPush };

/**
 * How long the first event of a bundle waits for others. Short beside what the page does with
 * them (its stores read again at most every 200–250 ms), long beside the engine's pace.
 */
export const PUSH_BUNDLE_MS = 50;

/**
 * Listens to every push event of `source` and calls `deliver` with each bundle (never empty) at
 * most `windowMs` after its first event (0: each event alone, at once, as before bundles; for
 * benches comparing the two). Returns the stop: it delivers what is still gathered (nothing heard
 * is lost) and stops listening.
 */
export function bundlePushes(source: PushSource, deliver: (bundle: BundledPush[]) => void, windowMs = PUSH_BUNDLE_MS): () => void {
  let gathered: BundledPush[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    timer = null;
    if (gathered.length === 0) return;
    const bundle = gathered;
    gathered = [];
    deliver(bundle);
  };
  const unsubscribes = PUSH_EVENTS.map((event) =>
    source.on(event, (payload) => {
      gathered.push([event, payload] as BundledPush);
      if (windowMs <= 0) return flush();
      if (timer === null) {
        timer = setTimeout(flush, windowMs);
        // A push waiting to go never keeps the process alive.
        timer.unref?.();
      }
    }),
  );
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const unsubscribe of unsubscribes) unsubscribe();
    if (timer !== null) clearTimeout(timer);
    flush();
  };
}
