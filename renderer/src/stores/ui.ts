/** UI store: which screen is open, which transaction, and a prefill from the Sandbox panel. */
import { createStore } from 'zustand/vanilla';

export const SCREENS = ['overview', 'payment', 'payout', 'lookup', 'timeline', 'history', 'batches', 'reconcile', 'settings', 'sandbox'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Prefill {
  phoneNumber: string;
  /** Bumped on each use so the same number can be used twice in a row. */
  serial: number;
}

export interface UiState {
  screen: Screen;
  journalId: string | null;
  prefill: Prefill | null;
  navigate(screen: Screen): void;
  openTransaction(journalId: string): void;
  useNumber(phoneNumber: string, screen: 'payment' | 'payout'): void;
  /** The form took the prefill: later forms start empty again. */
  clearPrefill(): void;
}

export function createUiStore(initial: Partial<Pick<UiState, 'screen' | 'journalId'>> = {}) {
  return createStore<UiState>()((set, get) => ({
    screen: initial.screen ?? 'overview',
    journalId: initial.journalId ?? null,
    prefill: null,
    navigate(screen) {
      set({ screen });
    },
    openTransaction(journalId) {
      set({ screen: 'timeline', journalId });
    },
    useNumber(phoneNumber, screen) {
      set({ screen, prefill: { phoneNumber, serial: (get().prefill?.serial ?? 0) + 1 } });
    },
    clearPrefill() {
      set({ prefill: null });
    },
  }));
}
export type UiStore = ReturnType<typeof createUiStore>;
