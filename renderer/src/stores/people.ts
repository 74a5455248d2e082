/**
 * People store (issue 36 item 3): the People screen's list of logins and the changes waiting for a
 * second admin, read again after each ask or decision and on the workspace's change events. On a
 * single desktop, or for a login that is not an admin, the channel refuses: `failure` holds why.
 */
import { createStore } from 'zustand/vanilla';
import type { AddPersonInput, AdminChange, ApiFailure, PaydeskApi, PeopleView, PersonRole, Result } from '../../../shared/api';

export interface PeopleState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  view: PeopleView | null;
  failure: ApiFailure | null;
  /** The last ask or decision: what the screen confirms or explains. */
  last: { ok: true; change: AdminChange } | { ok: false; error: ApiFailure; about: string } | null;
  busy: string | null;
  load(): Promise<void>;
  add(input: AddPersonInput): Promise<Result<AdminChange>>;
  resetPassword(login: string, password: string): Promise<Result<AdminChange>>;
  disable(login: string): Promise<Result<AdminChange>>;
  setRole(login: string, role: PersonRole, member: boolean): Promise<Result<AdminChange>>;
  approve(id: number): Promise<Result<AdminChange>>;
  reject(id: number): Promise<Result<AdminChange>>;
}

export function createPeopleStore(api: PaydeskApi) {
  return createStore<PeopleState>()((set, get) => {
    async function acting(about: string, call: () => Promise<Result<AdminChange>>): Promise<Result<AdminChange>> {
      set({ busy: about, last: null });
      const result = await call();
      set({ busy: null, last: result.ok ? { ok: true, change: result.value } : { ok: false, error: result.error, about } });
      await get().load();
      return result;
    }
    return {
      status: 'idle',
      view: null,
      failure: null,
      last: null,
      busy: null,
      async load() {
        if (get().status === 'idle') set({ status: 'loading' });
        const result = await api.invoke('people:list', {});
        set(result.ok ? { status: 'ready', view: result.value, failure: null } : { status: 'error', failure: result.error });
      },
      add: (input) => acting('add', () => api.invoke('people:add', input)),
      resetPassword: (login, password) => acting(`reset:${login}`, () => api.invoke('people:resetPassword', { login, password })),
      disable: (login) => acting(`disable:${login}`, () => api.invoke('people:disable', { login })),
      setRole: (login, role, member) => acting(`role:${login}`, () => api.invoke('people:setRole', { login, role, member })),
      approve: (id) => acting(`approve:${id}`, () => api.invoke('people:approveChange', { id })),
      reject: (id) => acting(`reject:${id}`, () => api.invoke('people:rejectChange', { id })),
    };
  });
}
