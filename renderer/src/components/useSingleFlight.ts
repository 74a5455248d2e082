/**
 * One submit at a time: the guard every screen that sends something uses. With `once`, the work
 * runs at most once for the component's life (a confirmation's token is single-use: a payout or
 * a batch confirmed in a dialog is never fired from it again, whatever happened).
 */
import { useRef, useState } from 'react';

export function useSingleFlight(options: { once?: boolean } = {}) {
  // Refs, not state: a second click in the same tick must see the first one.
  const inFlight = useRef(false);
  const fired = useRef(false);
  const [busy, setBusy] = useState(false);
  /** With `once`: the work has started once, so it never will again (a button shows it disabled). */
  const [spent, setSpent] = useState(false);
  /** Runs `work` unless a previous run is still going, or (`once`) has ever started; then does nothing. */
  async function run(work: () => Promise<void>): Promise<void> {
    if (inFlight.current || (options.once && fired.current)) return;
    inFlight.current = true;
    fired.current = true;
    setBusy(true);
    if (options.once) setSpent(true);
    try {
      await work();
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }
  /**
   * With `once`: the work did not happen after all (the console refused it before anything was
   * sent), so it may run again. Called from inside the work, it re-arms for the next click.
   */
  function rearm(): void {
    fired.current = false;
    setSpent(false);
  }
  return { busy, spent, run, rearm };
}
