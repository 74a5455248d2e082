/**
 * Where this console records (this desktop, or a team workspace) and as whom. A change of
 * workspace re-opens the console in main; the window then loads again, so every store starts
 * afresh on the new store's records.
 */
import { createStore } from 'zustand/vanilla';
// Types only: the stores are in the first chunk, zod is not (issue 28).
import type { ApiFailure, ChannelResults, PaydeskApi, Result, WorkspaceConnectionInput, WorkspaceStatus } from '../../../shared/api';

export interface WorkspaceState {
  status: WorkspaceStatus | null;
  error: ApiFailure | null;
  load(): Promise<void>;
  test(connection: WorkspaceConnectionInput, password?: string): Promise<Result<ChannelResults['workspace:test']>>;
  use(connection: WorkspaceConnectionInput, password?: string): Promise<Result<unknown>>;
  useDesktop(): Promise<Result<unknown>>;
  retry(): Promise<Result<unknown>>;
}

/** Sending is offered only to a login with the finance role on an open workspace (the database refuses the rest anyway). */
export function maySend(status: WorkspaceStatus | null): boolean {
  if (!status || status.store === 'desktop') return true;
  return status.state === 'open' && status.who.roles.includes('finance');
}

/**
 * Whether this login may record what the service says (Look up, Verify, reconcile): finance or
 * support on an open workspace, or this desktop. An admin-only login reads (docs/decisions/start-up-by-role.md).
 */
export function mayFollowUp(status: WorkspaceStatus | null): boolean {
  if (!status || status.store === 'desktop') return true;
  return status.state === 'open' && (status.who.roles.includes('finance') || status.who.roles.includes('support'));
}

export function createWorkspaceStore(api: PaydeskApi, reload: () => void = () => window.location.reload()) {
  return createStore<WorkspaceState>()((set, get) => {
    async function thenReload(result: Result<unknown>): Promise<Result<unknown>> {
      // The console re-opened on another store: every screen's data is from before.
      if (result.ok) reload();
      return result;
    }
    return {
      status: null,
      error: null,
      async load() {
        const result = await api.invoke('workspace:status', {});
        if (result.ok) set({ status: result.value, error: null });
        else set({ error: result.error });
      },
      test: (connection, password) => api.invoke('workspace:test', { connection, ...(password ? { password } : {}) }),
      use: async (connection, password) => thenReload(await api.invoke('workspace:use', { connection, ...(password ? { password } : {}) })),
      useDesktop: async () => thenReload(await api.invoke('workspace:useDesktop', {})),
      async retry() {
        const before = get().status;
        const result = await api.invoke('workspace:retry', {});
        if (!result.ok) return result;
        // Still not open, or found again after a lost connection (the same console: nothing to reload).
        if ((result.value.status.store === 'workspace' && result.value.status.state === 'fault') || (before?.store === 'workspace' && before.state === 'lost')) {
          set({ status: result.value.status });
          return result;
        }
        await get().load();
        return thenReload(result);
      },
    };
  });
}

const WORKSPACE_GONE = new Set(['WORKSPACE_CONNECTION_LOST', 'WORKSPACE_UNREACHABLE']);

/** The API, telling the workspace store to read its status again when a call met a lost workspace (its banner offers Try again). */
export function watchingWorkspace(api: PaydeskApi, workspace: ReturnType<typeof createWorkspaceStore>): PaydeskApi {
  return {
    on: (event, listener) => api.on(event, listener),
    async invoke(channel, input) {
      const result = await api.invoke(channel, input);
      if (!result.ok && WORKSPACE_GONE.has(result.error.code) && channel !== 'workspace:status') void workspace.getState().load();
      return result;
    },
  };
}
