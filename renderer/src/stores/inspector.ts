/**
 * Request inspector store: the local sandbox's recorded requests (newest first, filtered, paged),
 * new ones prepended as main pushes them, the open request, and the sign helper's last result.
 */
import { createStore } from 'zustand/vanilla';
import type { ApiFailure, PaydeskApi, SignedExample, SignRequestInput } from '../../../shared/api';
import type { InspectedRequest } from '../../../shared/contract';
import { i18n } from '../i18n';
import { createCursorPager } from './pages';

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
    const pager = createCursorPager({
      pageSize: PAGE,
      maxHeld: MAX_SHOWN,
      maxLimit: 500,
      get: () => ({ rows: get().requests, nextCursor: get().nextCursor }),
      set: ({ rows, nextCursor }) => set({ ...(rows ? { requests: rows } : {}), ...(nextCursor !== undefined ? { nextCursor } : {}) }),
      idOf: (record) => record.id,
      fetch: async (cursor, limit) => {
        const { filter } = get();
        const result = await api.invoke('sandbox:requests', {
          limit,
          ...(filter.status === '' ? {} : { status: filter.status }),
          ...(filter.key === '' ? {} : { key: filter.key }),
          ...(cursor === undefined ? {} : { cursor }),
        });
        return result.ok ? { ok: true, value: { ...result.value, rows: result.value.requests } } : result;
      },
      answered: (result, asked) => {
        if (asked === 'more') return result.ok ? undefined : set({ failure: result.error });
        set(result.ok ? { status: 'ready', failure: null, capacity: result.value.capacity } : { status: 'error', failure: result.error });
      },
    });
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
        await pager.restart();
      },
      loadMore: () => pager.more(),
      async setFilter(filter) {
        set({ filter: { ...get().filter, ...filter } });
        await get().load();
      },
      received(records) {
        if (get().status !== 'ready') return;
        pager.prepend(records.filter((r) => matches(r, get().filter)).reverse());
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
