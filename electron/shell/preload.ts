/**
 * The preload: the page's only way into main. Exposes `window.paydesk` with one function per
 * channel of the map (named by the channel) and `on` for the push events; never `ipcRenderer`
 * itself, never the IPC event. Bundled to CommonJS with shared/ inlined (sandboxed preloads can
 * require nothing but a few Electron modules).
 */
import { contextBridge, ipcRenderer, type IpcRenderer, type IpcRendererEvent } from 'electron';
import {
  CHANNELS,
  ELECTRON_API_GLOBAL,
  PUSH_EVENTS,
  type Channel,
  type ChannelInput,
  type ChannelResults,
  type PaydeskApi,
  type PushEvent,
  type Result,
} from '../../shared/api';

/** What `window.paydesk` holds. */
export type PreloadApi = { [C in Channel]: (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>> } & {
  on: PaydeskApi['on'];
};

function isPushEvent(name: unknown): name is PushEvent {
  return typeof name === 'string' && (PUSH_EVENTS as string[]).includes(name);
}

/** Builds the exposed API over an `ipcRenderer`; exported so a test can build it over a fake. */
export function buildPreloadApi(ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>): PreloadApi {
  const api: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    // Only the first argument crosses: a page cannot smuggle extra arguments to a handler.
    api[channel] = (input: unknown) => ipc.invoke(channel, input);
  }
  api.on = (event: unknown, listener: unknown): (() => void) => {
    if (!isPushEvent(event)) throw new Error(`paydesk.on: unknown push event ${JSON.stringify(String(event))}`);
    if (typeof listener !== 'function') throw new Error('paydesk.on: the listener must be a function');
    const forward = (_event: IpcRendererEvent, payload: unknown): void => {
      (listener as (payload: unknown) => void)(payload);
    };
    ipc.on(event, forward);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      ipc.removeListener(event, forward);
    };
  };
  return api as PreloadApi;
}

contextBridge.exposeInMainWorld(ELECTRON_API_GLOBAL, buildPreloadApi(ipcRenderer));
