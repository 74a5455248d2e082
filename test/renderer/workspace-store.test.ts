/**
 * The renderer's side of a team workspace: who may send (finance on an open workspace, or this
 * desktop), a call that meets a lost workspace reads the status again (so its banner offers Try
 * again), and a change of store loads the window again, a found-again connection does not.
 */
import { describe, expect, it, vi } from 'vitest';
import type { WorkspaceStatus } from '../../shared/api';
import { createWorkspaceStore, maySend, watchingWorkspace } from '../../renderer/src/stores/workspace';
import { createFakeApi, fail, ok } from './fakeApi';

const place = { host: 'db.example.com', port: 5432, database: 'paydesk_team', user: 'samuel', tls: 'verify' as const, hasCa: true };
const open = (roles: ('finance' | 'support' | 'admin')[], state: 'open' | 'lost' = 'open'): WorkspaceStatus => ({ store: 'workspace', place, state, who: { login: 'samuel', roles }, schemaVersion: 21 });

describe('the workspace store', () => {
  it('lets finance on an open workspace and this desktop send; support, admin, lost or not open may not', () => {
    expect(maySend(null)).toBe(true);
    expect(maySend({ store: 'desktop' })).toBe(true);
    expect(maySend(open(['finance']))).toBe(true);
    expect(maySend(open(['support', 'admin']))).toBe(false);
    expect(maySend(open(['finance'], 'lost'))).toBe(false);
    expect(maySend({ store: 'workspace', place, state: 'fault', fault: { code: 'WORKSPACE_UNREACHABLE', message: '' } })).toBe(false);
  });

  it('reads the status again when a call meets a lost workspace, and not for other failures', async () => {
    let status: WorkspaceStatus = open(['finance']);
    const api = createFakeApi({
      'workspace:status': () => ok(status),
      'transactions:search': () => fail('WORKSPACE_CONNECTION_LOST', 'lost'),
      'transactions:get': () => fail('NOT_FOUND', 'no such entry'),
    });
    const store = createWorkspaceStore(api, () => undefined);
    const watched = watchingWorkspace(api, store);
    await store.getState().load();
    status = open(['finance'], 'lost');
    await watched.invoke('transactions:get', { journalId: 'j1' });
    expect(api.calls.filter((call) => call.channel === 'workspace:status')).toHaveLength(1);
    await watched.invoke('transactions:search', { query: {} });
    await vi.waitFor(() => expect(store.getState().status).toEqual(open(['finance'], 'lost')));
  });

  it('loads the window again after a change of store, not after a lost connection is found again', async () => {
    const reload = vi.fn();
    const retried: WorkspaceStatus = open(['finance']);
    const api = createFakeApi({
      'workspace:status': () => ok(open(['finance'], 'lost')),
      'workspace:retry': () => ok({ status: retried }),
      'workspace:useDesktop': () => ok({ reopened: true as const, status: { store: 'desktop' as const } }),
    });
    const store = createWorkspaceStore(api, reload);
    await store.getState().load();
    await store.getState().retry();
    expect(reload).not.toHaveBeenCalled();
    expect(store.getState().status).toEqual(open(['finance']));
    await store.getState().useDesktop();
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
