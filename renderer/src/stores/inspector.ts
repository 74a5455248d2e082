/**
 * Request inspector store: the local sandbox's recorded requests (newest first, filtered, paged),
 * new ones prepended as main pushes them, the open request, and the sign helper's last result.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, PaydeskApi, SignedExample, SignRequestInput } from '../../../shared/api';
import type { InspectedRequest } from '../../../shared/contract';
import { i18n } from '../i18n';

/** '' means all; otherwise a class (`4xx`) or one status (`401`), as `sandbox:requests` takes it. */
export type StatusFilterChoice = '' | '2xx' | '4xx' | '401' | '5xx';

/** The most requests the panel holds (the engine keeps 500 by default). */
const MAX_SHOWN = 1000;
const PAGE = 100;

export interface InspectorState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  failure: ApiFailure | null;
  requests: InspectedRequest[];
  nextCursor: string | null;
  capacity: number;
  filter: { status: StatusFilterChoice; key: string };
  selectedId: string | null;
  example: SignedExample | null;
  signFailure: ApiFailure | null;
  load(): Promise<void>;
  loadMore(): Promise<void>;
  setFilter(filter: Partial<InspectorState['filter']>): Promise<void>;
  /** Records main pushed (oldest first): those matching the filter go on top. */
  received(records: readonly InspectedRequest[]): void;
  select(id: string | null): void;
  sign(input: SignRequestInput): Promise<boolean>;
  /** A signed version of a recorded request (the detail view's curl), or the failure. */
  reproduce(record: InspectedRequest): Promise<{ example: SignedExample } | { failure: ApiFailure }>;
}

function matches(record: InspectedRequest, filter: InspectorState['filter']): boolean {
  if (filter.key !== '' && record.publicKey !== filter.key) return false;
  if (filter.status === '') return true;
  if (filter.status.endsWith('xx')) return Math.floor(record.status / 100) === Number(filter.status[0]);
  return record.status === Number(filter.status);
}

export function createInspectorStore(api: PaydeskApi) {
  return createStore<InspectorState>()((set, get) => {
    function query(cursor?: string) {
      const { filter } = get();
      return {
        limit: PAGE,
        ...(filter.status === '' ? {} : { status: filter.status }),
        ...(filter.key === '' ? {} : { key: filter.key }),
        ...(cursor === undefined ? {} : { cursor }),
      };
    }
    return {
      status: 'idle',
      failure: null,
      requests: [],
      nextCursor: null,
      capacity: 0,
      filter: { status: '', key: '' },
      selectedId: null,
      example: null,
      signFailure: null,
      async load() {
        if (get().status === 'idle') set({ status: 'loading' });
        const result = await api.invoke('sandbox:requests', query());
        if (!result.ok) return set({ status: 'error', failure: result.error });
        set({ status: 'ready', failure: null, requests: result.value.requests, nextCursor: result.value.nextCursor, capacity: result.value.capacity });
      },
      async loadMore() {
        const cursor = get().nextCursor;
        if (cursor === null) return;
        const result = await api.invoke('sandbox:requests', query(cursor));
        if (!result.ok) return set({ failure: result.error });
        const known = new Set(get().requests.map((r) => r.id));
        set({ requests: [...get().requests, ...result.value.requests.filter((r) => !known.has(r.id))].slice(0, MAX_SHOWN), nextCursor: result.value.nextCursor });
      },
      async setFilter(filter) {
        set({ filter: { ...get().filter, ...filter } });
        await get().load();
      },
      received(records) {
        if (get().status !== 'ready') return;
        const known = new Set(get().requests.map((r) => r.id));
        const fresh = records.filter((r) => matches(r, get().filter) && !known.has(r.id)).reverse();
        if (fresh.length > 0) set({ requests: [...fresh, ...get().requests].slice(0, MAX_SHOWN) });
      },
      select: (id) => set({ selectedId: id }),
      async sign(input) {
        const result = await api.invoke('sandbox:signRequest', input);
        set(result.ok ? { example: result.value, signFailure: null } : { signFailure: result.error });
        return result.ok;
      },
      async reproduce(record) {
        const result = await api.invoke('sandbox:signRequest', {
          method: record.method === 'GET' ? 'GET' : 'POST',
          path: record.path,
          query: record.query,
          body: record.method === 'GET' ? '' : record.body,
          language: i18n.language === 'fr' ? 'fr' : 'en',
        });
        return result.ok ? { example: result.value } : { failure: result.error };
      },
    };
  });
}
export type InspectorStore = ReturnType<typeof createInspectorStore>;
