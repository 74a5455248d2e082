/**
 * All stores of the app, built for one API, with the push events wired: main pushes small
 * "changed" events and the stores fetch again.
 */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { PaydeskApi } from '../../../shared/api';
import { createBatchStore, type BatchState } from './batch';
import { createApprovalsStore, type ApprovalsState } from './approvals';
import { createAuditStore, type AuditState } from './audit';
import { createPeopleStore, type PeopleState } from './people';
import { showApprovalNotices } from './approval-notices';
import type { InspectedRequest } from '../../../shared/contract';
import { createHistoryStore, type HistoryState } from './history';
import { createInspectorStore, type InspectorState } from './inspector';
import { createOverviewStore, type OverviewState } from './overview';
import { createProfilesStore, type ProfilesState } from './profiles';
import { createReconcileStore, type ReconcileState } from './reconcile';
import { createSandboxStore, type SandboxState } from './sandbox';
import { createTransactionsStore, type TransactionsState } from './transactions';
import { createUiStore, type UiState } from './ui';
import { createWorkspaceStore, watchingWorkspace, type WorkspaceState } from './workspace';

export function createStores(given: PaydeskApi, initialUi?: Parameters<typeof createUiStore>[0]) {
  const workspace = createWorkspaceStore(given);
  const api = watchingWorkspace(given, workspace);
  return {
    profiles: createProfilesStore(api),
    transactions: createTransactionsStore(api),
    history: createHistoryStore(api),
    sandbox: createSandboxStore(api),
    inspector: createInspectorStore(api),
    reconcile: createReconcileStore(api),
    ui: createUiStore(initialUi),
    batch: createBatchStore(api),
    overview: createOverviewStore(api),
    approvals: createApprovalsStore(api),
    audit: createAuditStore(api),
    people: createPeopleStore(api),
    workspace,
  };
}
export type Stores = ReturnType<typeof createStores>;

/**
 * Coalesces bursts of pushes (a watch emits several) into one fetch per animation-ish tick;
 * `minGapMs`: and never sooner than that after the previous one (a steady stream of pushes).
 */
function coalesce(run: () => void, ms: number, minGapMs = 0): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = -Infinity;
  return () => {
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = null;
        last = Date.now();
        run();
      },
      Math.max(ms, last + minGapMs - Date.now()),
    );
  };
}

/**
 * A batch sending on the local engine moves the wallet with every row (hundreds of pushes a
 * second): the balance is read again at most once a second then, not four times (each read is a
 * request from the page and a GET /v1/balance; issue 28, bench/batch-ui.ts).
 */
const BALANCE_REREAD_GAP_MS = 1000;

/** History reads its rows again at most this often on the journal's change events (a search is a query on the whole journal). */
const HISTORY_LIVE_GAP_MS = 750;

/** Approvals read again this soon after a change event names one (main already bundles a burst). */
export const APPROVALS_LIVE_MS = 100;

/** The audit log reads again this soon after a change event names a line (main already bundles a burst). */
export const AUDIT_LIVE_MS = 100;

/** Subscribes the stores to main's push events; returns the unsubscribe. */
export function wirePushEvents(api: PaydeskApi, stores: Stores): () => void {
  const refreshHistory = coalesce(() => {
    if (stores.history.getState().status !== 'idle') void stores.history.getState().refresh();
  }, 250);
  const refreshSandbox = coalesce(() => {
    if (stores.sandbox.getState().status !== 'idle') void stores.sandbox.getState().load();
  }, 250);
  const refreshBalance = coalesce(() => void stores.profiles.getState().loadBalance(), 250, BALANCE_REREAD_GAP_MS);
  // A client under load can make hundreds of requests a second: the list takes them in batches.
  let arrived: InspectedRequest[] = [];
  const showArrived = coalesce(() => {
    const batch = arrived;
    arrived = [];
    stores.inspector.getState().received(batch);
  }, 200);
  // The journal's changes come every 150 ms while a batch sends (on a workspace, anyone's): History's
  // rows on screen are read again at most every HISTORY_LIVE_GAP_MS then, the first change at once.
  const refreshHistoryLive = coalesce(() => {
    if (stores.history.getState().status !== 'idle') void stores.history.getState().refresh();
  }, 250, HISTORY_LIVE_GAP_MS);
  // Entries the journal named (any desktop's writes on a workspace): those held (a transaction's
  // page) are read again, each once per burst.
  let namedEntries = new Set<string>();
  let everyEntry = false;
  const reloadNamedEntries = coalesce(() => {
    const transactions = stores.transactions.getState();
    const held = Object.keys(transactions.entries).filter((id) => everyEntry || namedEntries.has(id));
    namedEntries = new Set();
    everyEntry = false;
    for (const id of held) void transactions.changed(id);
  }, 250);
  // An approval asked or decided on any desktop: the count waiting for this login, "asked by you"
  // and an open trail read again, and what is new shows as a desktop notification.
  let namedApprovals = { everything: false, ids: new Set<string>() };
  const refreshApprovals = coalesce(() => {
    const named = { everything: namedApprovals.everything, ids: [...namedApprovals.ids] };
    namedApprovals = { everything: false, ids: new Set() };
    void stores.approvals.getState().changed(named).then(showApprovalNotices);
  }, APPROVALS_LIVE_MS);
  // A line written on any desktop (or by the database): an Audit screen that was read shows it.
  const refreshAudit = coalesce(() => void stores.audit.getState().changed(), AUDIT_LIVE_MS);
  const offs = [
    api.on('transaction:changed', (event) => {
      void stores.transactions.getState().changed(event.journalId);
      refreshHistory();
      stores.batch.getState().transactionChanged();
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
    // Coalesced inside the store: counters at most every 200 ms, rows at most every 1.5 s.
    api.on('batch:progress', (event) => stores.batch.getState().progressed(event)),
    api.on('sandbox:event', (event) => {
      refreshSandbox();
      // Only what moves the wallet (a top-up, a settled payment or payout: the engine's ledger
      // events) reads it again: each read is a GET /v1/balance the service's rate limit counts.
      if (event.kind === 'wallet' || (event.kind === 'engine' && event.detail === 'reset')) refreshBalance();
    }),
    api.on('sandbox:request', (record) => {
      arrived.push(record);
      showArrived();
    }),
    api.on('reconcile:progress', (event) => stores.reconcile.getState().progress(event)),
    // No polling loop reads these screens: the journal's own change events do (live across desktops, issue 24).
    api.on('journal:changed', (changed) => {
      for (const id of changed.entries) namedEntries.add(id);
      everyEntry ||= changed.everything;
      if (changed.everything || changed.entries.length > 0) {
        reloadNamedEntries();
        refreshHistoryLive();
      }
      if (changed.everything || changed.entries.length > 0 || changed.batches.length > 0) stores.overview.getState().changed();
      stores.batch.getState().journalChanged(changed);
      if (changed.everything || changed.approvals.length > 0) {
        namedApprovals.everything ||= changed.everything;
        for (const id of changed.approvals) namedApprovals.ids.add(id);
        refreshApprovals();
      }
      if (changed.everything || changed.audit.length > 0) refreshAudit();
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

export function useWorkspace<T>(selector: (state: WorkspaceState) => T): T {
  return useStore(useStores().workspace, selector);
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
export function useBatch<T>(selector: (state: BatchState) => T): T {
  return useStore(useStores().batch, selector);
}
export function useInspector<T>(selector: (state: InspectorState) => T): T {
  return useStore(useStores().inspector, selector);
}
export function useReconcile<T>(selector: (state: ReconcileState) => T): T {
  return useStore(useStores().reconcile, selector);
}
export function useUi<T>(selector: (state: UiState) => T): T {
  return useStore(useStores().ui, selector);
}
export function useOverview<T>(selector: (state: OverviewState) => T): T {
  return useStore(useStores().overview, selector);
}
export function useApprovals<T>(selector: (state: ApprovalsState) => T): T {
  return useStore(useStores().approvals, selector);
}
export function useAudit<T>(selector: (state: AuditState) => T): T {
  return useStore(useStores().audit, selector);
}

export function usePeople<T>(selector: (state: PeopleState) => T): T {
  return useStore(useStores().people, selector);
}
