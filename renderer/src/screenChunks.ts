/**
 * Each screen is its own chunk, loaded when first opened: a support agent looking a transaction up
 * never downloads Bulk payouts, Reconcile, the Sandbox panel or the charts (issue 17 item 6). The
 * opening screen's chunk is asked for at start (main.tsx), beside the profiles, not after them; a
 * screen's chunk is also asked for when the pointer or the focus reaches its button, and the
 * reading screens' chunks are fetched when the page is idle after the first screen is drawn.
 */
import type { ComponentType } from 'react';
import { chunk, type Chunk } from './chunks';
import type { Screen } from './stores/ui';

export const SCREEN_CHUNKS: Record<Screen, Chunk<ComponentType>> = {
  overview: chunk(() => import('./screens/OverviewScreen').then((m) => m.OverviewScreen)),
  payment: chunk(() => import('./screens/PaymentScreen').then((m) => m.PaymentScreen)),
  payout: chunk(() => import('./screens/PayoutScreen').then((m) => m.PayoutScreen)),
  lookup: chunk(() => import('./screens/LookupScreen').then((m) => m.LookupScreen)),
  timeline: chunk(() => import('./screens/TimelineScreen').then((m) => m.TimelineScreen)),
  history: chunk(() => import('./screens/HistoryScreen').then((m) => m.HistoryScreen)),
  batches: chunk(() => import('./screens/BatchScreen').then((m) => m.BatchScreen)),
  reconcile: chunk(() => import('./screens/ReconcileScreen').then((m) => m.ReconcileScreen)),
  settings: chunk(() => import('./screens/SettingsScreen').then((m) => m.SettingsScreen)),
  sandbox: chunk(() => import('./screens/SandboxScreen').then((m) => m.SandboxScreen)),
  approvals: chunk(() => import('./screens/ApprovalsScreen').then((m) => m.ApprovalsScreen)),
  audit: chunk(() => import('./screens/AuditScreen').then((m) => m.AuditScreen)),
  people: chunk(() => import('./screens/PeopleScreen').then((m) => m.PeopleScreen)),
};

/** Starts loading a screen's chunk; a failure shows when the screen is opened (useChunk). */
export function preloadScreen(screen: Screen): void {
  SCREEN_CHUNKS[screen].load().catch(() => undefined);
}

/**
 * The screens a person opens next to look something up (History, Lookup, Timeline): small chunks
 * without forms or zod, fetched when the page is idle once the first screen is drawn, so the first
 * switch to one does not wait for its chunk (issue 28: 343 ms, of which ~30 ms was the screen).
 */
export const PREFETCHED_SCREENS: readonly Screen[] = ['history', 'lookup', 'timeline'];

type IdleWindow = Pick<Window, 'setTimeout'> & { requestIdleCallback?: (run: () => void, options?: { timeout: number }) => number };

/** Loads each screen's chunk in its own idle period, one after the other (never several at once). */
export function prefetchScreensWhenIdle(screens: readonly Screen[], win: IdleWindow = window): void {
  const idle = (run: () => void) => (win.requestIdleCallback ? win.requestIdleCallback(run, { timeout: 5000 }) : win.setTimeout(run, 200));
  const next = (index: number) => {
    const screen = screens[index];
    if (!screen) return;
    idle(() => {
      void SCREEN_CHUNKS[screen]
        .load()
        .catch(() => undefined)
        .then(() => next(index + 1));
    });
  };
  next(0);
}
