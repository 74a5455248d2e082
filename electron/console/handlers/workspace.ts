/**
 * The workspace calls of a console started on its own (tests, tools): it records where it was
 * started and cannot change that. The Electron shell and the browser host run the console through
 * electron/console/workspace/console-host.ts, which answers these calls itself.
 */
import { HandlerFailure, type Context, type HandlerImpls } from './context';

type WorkspaceChannel = 'workspace:status' | 'workspace:test' | 'workspace:use' | 'workspace:useDesktop' | 'workspace:retry';

export function workspaceHandlers(context: Context): HandlerImpls<WorkspaceChannel> {
  const fixed = (): never => {
    throw new HandlerFailure('CONFLICT', 'This console was started on a fixed store and cannot change it; start it with the desktop app or the browser host.');
  };
  return {
    async 'workspace:status'() {
      if (context.deps.storage.kind === 'sqlite') return { store: 'desktop' };
      return fixed();
    },
    'workspace:test': async () => fixed(),
    'workspace:use': async () => fixed(),
    'workspace:useDesktop': async () => fixed(),
    'workspace:retry': async () => fixed(),
  };
}
