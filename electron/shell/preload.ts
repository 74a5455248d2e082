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
  ELECTRON_PUSH_CHANNEL,
  emitBundle,
  isPushEvent,
  reportListenerError,
  type Channel,
  type ChannelInput,
  type ChannelResults,
  type PaydeskApi,
  type PushEvents,
  type Result,
} from '../../shared/api';
import { TypedEmitter } from '../../shared/events';

/** What `window.paydesk` holds. */
export type PreloadApi = { [C in Channel]: (input: ChannelInput<C>) => Promise<Result<ChannelResults[C]>> } & {
  on: PaydeskApi['on'];
};

/** Builds the exposed API over an `ipcRenderer`; exported so a test can build it over a fake. */
export function buildPreloadApi(ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>): PreloadApi {
  const api: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    // Only the first argument crosses: a page cannot smuggle extra arguments to a handler.
    api[channel] = (input: unknown) => ipc.invoke(channel, input);
  }
  // Main sends push events in bundles on one message name (shared/api/push-bundles.ts): each event
  // of a bundle goes to its own listeners, in order.
  const listeners = new TypedEmitter<PushEvents>({ onListenerError: reportListenerError });
  let subscriptions = 0;
  const receive = (_event: IpcRendererEvent, bundle: unknown): void => emitBundle(listeners, bundle);
  api.on = (event: unknown, listener: unknown): (() => void) => {
    if (!isPushEvent(event)) throw new Error(`paydesk.on: unknown push event ${JSON.stringify(String(event))}`);
    if (typeof listener !== 'function') throw new Error('paydesk.on: the listener must be a function');
    // Its own function per subscription: the same listener subscribed twice hears each event twice.
    const forward = (payload: unknown): void => {
      (listener as (payload: unknown) => void)(payload);
    };
    const unsubscribe = listeners.on(event, forward);
    if (subscriptions === 0) ipc.on(ELECTRON_PUSH_CHANNEL, receive);
    subscriptions += 1;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      unsubscribe();
      subscriptions -= 1;
      if (subscriptions === 0) ipc.removeListener(ELECTRON_PUSH_CHANNEL, receive);
    };
  };
  return api as PreloadApi;
}

contextBridge.exposeInMainWorld(ELECTRON_API_GLOBAL, buildPreloadApi(ipcRenderer));
