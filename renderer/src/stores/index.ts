/**
 * All stores of the app, built for one API, with the push events wired: main pushes small
 * "changed" events and the stores fetch again.
 */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { PaydeskApi } from '../../../shared/api';
import { createHistoryStore, type HistoryState } from './history';
import { createOverviewStore, type OverviewState } from './overview';
import { createProfilesStore, type ProfilesState } from './profiles';
import { createSandboxStore, type SandboxState } from './sandbox';
import { createTransactionsStore, type TransactionsState } from './transactions';
import { createUiStore, type UiState } from './ui';

export function createStores(api: PaydeskApi, initialUi?: Parameters<typeof createUiStore>[0]) {
  return {
    profiles: createProfilesStore(api),
    transactions: createTransactionsStore(api),
    history: createHistoryStore(api),
    sandbox: createSandboxStore(api),
    ui: createUiStore(initialUi),
    overview: createOverviewStore(api),
  };
}
export type Stores = ReturnType<typeof createStores>;

/** Coalesces bursts of pushes (a watch emits several) into one fetch per animation-ish tick. */
function coalesce(run: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      run();
    }, ms);
  };
}

/** Subscribes the stores to main's push events; returns the unsubscribe. */
export function wirePushEvents(api: PaydeskApi, stores: Stores): () => void {
  const refreshHistory = coalesce(() => {
    if (stores.history.getState().status !== 'idle') void stores.history.getState().refresh();
  }, 250);
  const refreshSandbox = coalesce(() => {
    if (stores.sandbox.getState().status !== 'idle') void stores.sandbox.getState().load();
  }, 250);
  const refreshBalance = coalesce(() => void stores.profiles.getState().loadBalance(), 250);
  const offs = [
    api.on('transaction:changed', (event) => {
      void stores.transactions.getState().changed(event.journalId);
      refreshHistory();
      stores.overview.getState().changed();
    }),
    api.on('watch:progress', (event) => {
      stores.transactions.getState().watchProgress(event);
      if (event.done) void stores.transactions.getState().changed(event.journalId);
    }),
    api.on('profiles:changed', () => {
      void stores.profiles.getState().load();
      refreshSandbox();
      stores.overview.getState().changed();
    }),
    api.on('sandbox:event', () => {
      refreshSandbox();
      // Settled payments and payouts move the wallet too, not only top-ups.
      refreshBalance();
    }),
  ];
  return () => offs.forEach((off) => off());
}

export const StoresContext = createContext<Stores | null>(null);

function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('StoresContext is missing: render inside <App>.');
  return stores;
}

export function useProfiles<T>(selector: (state: ProfilesState) => T): T {
  return useStore(useStores().profiles, selector);
}
export function useTransactions<T>(selector: (state: TransactionsState) => T): T {
  return useStore(useStores().transactions, selector);
}
export function useHistory<T>(selector: (state: HistoryState) => T): T {
  return useStore(useStores().history, selector);
}
export function useSandbox<T>(selector: (state: SandboxState) => T): T {
  return useStore(useStores().sandbox, selector);
}
export function useUi<T>(selector: (state: UiState) => T): T {
  return useStore(useStores().ui, selector);
}
export function useOverview<T>(selector: (state: OverviewState) => T): T {
  return useStore(useStores().overview, selector);
}
