/** One submit at a time: the guard every screen that sends something uses. */
import { useRef, useState } from 'react';

export function useSingleFlight() {
  // A ref, not state: a second click in the same tick must see the first one.
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);
  /** Runs `work` unless a previous run is still going (then does nothing). */
  async function run(work: () => Promise<void>): Promise<void> {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await work();
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }
  return { busy, run };
}
