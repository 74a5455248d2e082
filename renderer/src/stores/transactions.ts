/**
 * Transactions store: journal entries the user has open (detail + timeline), the watch progress
 * main pushes after an initiate, and the actions on one entry (create, verify, look up, resend).
 */
import { createStore } from 'zustand/vanilla';
import type {
  ApiFailure,
  ChannelResults,
  JournalTransaction,
  PaydeskApi,
  PushEvents,
  Result,
  TransactionDetail,
} from '../../../shared/api';
import type { TransactionRequest } from '../../../shared/contract';
import { currentLanguage, t } from '../i18n';

export interface EntryState {
  detail: TransactionDetail | null;
  loading: boolean;
  error: ApiFailure | null;
}

export interface ActionOutcome {
  busy: boolean;
  message: string | null;
  error: ApiFailure | null;
}

export interface TransactionsState {
  entries: Record<string, EntryState>;
  progress: Record<string, PushEvents['watch:progress']>;
  verify: Record<string, ActionOutcome>;
  resolve: Record<string, ActionOutcome & { exists: boolean | null }>;
  load(journalId: string): Promise<void>;
  /** A push said the entry changed: fetch it again if it is open. */
  changed(journalId: string): Promise<void>;
  watchProgress(progress: PushEvents['watch:progress']): void;
  createPayment(request: TransactionRequest): Promise<Result<JournalTransaction>>;
  preparePayout(request: TransactionRequest, typedAmount?: number): Promise<Result<ChannelResults['payouts:prepare']>>;
  initiatePayout(request: TransactionRequest, confirmationToken: string): Promise<Result<JournalTransaction>>;
  lookup(input: { id: string; by: 'transaction_id' | 'external_id'; kind: 'payment' | 'payout' }): Promise<Result<ChannelResults['transactions:lookup']>>;
  verifyNow(journalId: string): Promise<void>;
  resolveUnknown(journalId: string): Promise<void>;
  resend(journalId: string): Promise<Result<JournalTransaction>>;
}

const idle: ActionOutcome = { busy: false, message: null, error: null };

/** Verify's outcome sentence: the service's own words in English, the catalogue's in French (the new status is shown next to it). */
function verifiedMessage(serviceMessage: string): string {
  return currentLanguage() === 'en' ? serviceMessage : t('console:verify.done');
}

export function createTransactionsStore(api: PaydeskApi) {
  return createStore<TransactionsState>()((set, get) => {
    function patchEntry(journalId: string, patch: Partial<EntryState>) {
      const previous = get().entries[journalId] ?? { detail: null, loading: false, error: null };
      set({ entries: { ...get().entries, [journalId]: { ...previous, ...patch } } });
    }
    return {
      entries: {},
      progress: {},
      verify: {},
      resolve: {},
      async load(journalId) {
        patchEntry(journalId, { loading: true });
        const result = await api.invoke('transactions:get', { journalId });
        patchEntry(journalId, result.ok ? { loading: false, error: null, detail: result.value } : { loading: false, error: result.error });
      },
      async changed(journalId) {
        if (get().entries[journalId]) await get().load(journalId);
      },
      watchProgress(progress) {
        set({ progress: { ...get().progress, [progress.journalId]: progress } });
      },
      async createPayment(request) {
        return api.invoke('payments:create', { request });
      },
      async preparePayout(request, typedAmount) {
        return api.invoke('payouts:prepare', typedAmount === undefined ? { request } : { request, typedAmount });
      },
      async initiatePayout(request, confirmationToken) {
        return api.invoke('payouts:initiate', { request, confirmationToken });
      },
      async lookup(input) {
        return api.invoke('transactions:lookup', input);
      },
      async verifyNow(journalId) {
        set({ verify: { ...get().verify, [journalId]: { busy: true, message: null, error: null } } });
        const result = await api.invoke('transactions:verify', { journalId });
        set({
          verify: {
            ...get().verify,
            [journalId]: result.ok ? { ...idle, message: verifiedMessage(result.value.message) } : { ...idle, error: result.error },
          },
        });
        await get().load(journalId);
      },
      async resolveUnknown(journalId) {
        set({ resolve: { ...get().resolve, [journalId]: { busy: true, message: null, error: null, exists: null } } });
        const result = await api.invoke('transactions:resolveUnknown', { journalId });
        set({
          resolve: {
            ...get().resolve,
            [journalId]: result.ok
              ? { ...idle, exists: result.value.exists, message: result.value.exists ? t('console:resolve.exists') : t('console:resolve.missing') }
              : { ...idle, exists: null, error: result.error },
          },
        });
        await get().load(journalId);
      },
      async resend(journalId) {
        const result = await api.invoke('transactions:resend', { journalId });
        const { [journalId]: _done, ...rest } = get().resolve;
        set({ resolve: rest });
        await get().load(result.ok ? result.value.id : journalId);
        return result;
      },
    };
  });
}
export type TransactionsStore = ReturnType<typeof createTransactionsStore>;
