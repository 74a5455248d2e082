/**
 * UI store: which screen is open, which transaction, the open screen's own parameters (History's
 * filters), and a prefill from the Sandbox panel. The router (../router.ts) mirrors screen,
 * transaction and parameters into the address, so Back and Forward move between screens.
 */
import { createStore } from 'zustand/vanilla';

export const SCREENS = ['overview', 'payment', 'payout', 'lookup', 'timeline', 'history', 'batches', 'reconcile', 'settings', 'sandbox', 'approvals', 'audit', 'people'] as const;
export type Screen = (typeof SCREENS)[number];

/** A screen's own state worth an address (filters): short strings, empty ones left out. */
export type ScreenParams = Readonly<Record<string, string>>;

export interface Prefill {
  phoneNumber: string;
  /** Bumped on each use so the same number can be used twice in a row. */
  serial: number;
}

/** Where the console is: what an address names. */
export interface Route {
  screen: Screen;
  journalId: string | null;
  params: ScreenParams;
}

export interface UiState extends Route {
  prefill: Prefill | null;
  navigate(screen: Screen): void;
  /** `params`: what the transaction's page says of how it was opened (Look up's `foundIn`). */
  openTransaction(journalId: string, params?: ScreenParams): void;
  /** Back/Forward or an address typed in: the whole place at once (the router calls it). */
  goTo(route: Route): void;
  /** The open screen's parameters changed (a filter typed): same place, new parameters. */
  setParams(params: ScreenParams): void;
  useNumber(phoneNumber: string, screen: 'payment' | 'payout'): void;
  /** The form took the prefill: later forms start empty again. */
  clearPrefill(): void;
}

const NO_PARAMS: ScreenParams = {};

export function createUiStore(initial: Partial<Pick<UiState, 'screen' | 'journalId'>> = {}) {
  return createStore<UiState>()((set, get) => ({
    screen: initial.screen ?? 'overview',
    journalId: initial.journalId ?? null,
    params: NO_PARAMS,
    prefill: null,
    navigate(screen) {
      set({ screen, params: NO_PARAMS });
    },
    openTransaction(journalId, params = NO_PARAMS) {
      set({ screen: 'timeline', journalId, params });
    },
    goTo(route) {
      // Only the transaction screen's address names a transaction: elsewhere the last one is kept
      // (the Transaction entry of the sidebar reopens it).
      set({ screen: route.screen, journalId: route.journalId ?? get().journalId, params: route.params });
    },
    setParams(params) {
      set({ params });
    },
    useNumber(phoneNumber, screen) {
      set({ screen, params: NO_PARAMS, prefill: { phoneNumber, serial: (get().prefill?.serial ?? 0) + 1 } });
    },
    clearPrefill() {
      set({ prefill: null });
    },
  }));
}
export type UiStore = ReturnType<typeof createUiStore>;
