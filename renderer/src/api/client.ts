/**
 * The one typed API the app uses: the Electron preload's `window.paydesk` when present, else the
 * browser-host transport.
 */
import type { Channel, PaydeskApi, PushEvent, Result } from '../../../shared/api';
// Values from the zod-free modules, not shared/api: this is in the first chunk, zod is not (issue 28).
import { CHANNEL_NAMES as CHANNELS } from '../../../shared/api/plain';
import { ELECTRON_API_GLOBAL } from '../../../shared/api/transport';
import { createBrowserApi, takeFragmentToken } from './browser';

/** What the preload exposes: one function per channel, named by the channel, plus `on`. */
type PreloadBridge = Record<Channel, (input: unknown) => Promise<Result<unknown>>> & {
  on(event: PushEvent, listener: (payload: unknown) => void): () => void;
};

export function wrapPreload(bridge: PreloadBridge): PaydeskApi {
  return {
    async invoke(channel, input) {
      const call = bridge[channel];
      if (typeof call !== 'function') {
        return { ok: false, error: { code: 'INTERNAL', message: `The preload does not offer ${channel}.` } };
      }
      try {
        return (await call(input ?? {})) as never;
      } catch (error) {
        return { ok: false, error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } };
      }
    },
    on(event, listener) {
      return bridge.on(event, listener as (payload: unknown) => void);
    },
  };
}

function isPreloadBridge(value: unknown): value is PreloadBridge {
  return typeof value === 'object' && value !== null && typeof (value as { on?: unknown }).on === 'function' &&
    CHANNELS.every((channel) => typeof (value as Record<string, unknown>)[channel] === 'function');
}

export function createPaydeskApi(win: Window = window): PaydeskApi {
  const bridge = (win as unknown as Record<string, unknown>)[ELECTRON_API_GLOBAL];
  if (isPreloadBridge(bridge)) return wrapPreload(bridge);
  return createBrowserApi(takeFragmentToken(win.location, win.history));
}
