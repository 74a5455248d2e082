/**
 * The Electron transport of the handler table: one `ipcMain.handle` per channel of the map, each
 * answering only our own window's main frame on app:// ("Validate the sender of all IPC
 * messages"), and the push events sent to our windows.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { CHANNELS, ELECTRON_PUSH_CHANNEL, type Channel, type Result } from '../../shared/api';
import { isAppUrl } from './app-protocol';
import { internalFailure, transportRefusal, type ChannelHandlers, type PushSource } from '../console/transport';
import { bundlePushes } from '../console/push-bundles';
import { processLog } from '@paydesk/sandbox';

/** The web contents of the windows we created; nothing else may call a handler or receive an event. */
export class TrustedWindows {
  private readonly contents = new Map<number, WebContents>();

  add(contents: WebContents): void {
    this.contents.set(contents.id, contents);
    contents.once('destroyed', () => this.contents.delete(contents.id));
  }

  /** Our windows that still exist and still show our own page. */
  live(): WebContents[] {
    return [...this.contents.values()].filter((contents) => !contents.isDestroyed() && isAppUrl(contents.getURL()));
  }

  /**
   * Whether an invoke comes from the main frame of one of our windows, on app://paydesk.
   * A subframe (an iframe the page was tricked into), another window, or a frame that navigated
   * away is refused.
   */
  isTrustedSender(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>): boolean {
    try {
      const sender = event.sender;
      const frame = event.senderFrame;
      if (frame === null || frame === undefined) return false; // the frame navigated or was destroyed
      if (this.contents.get(sender.id) !== sender || sender.isDestroyed()) return false;
      if (frame.parent !== null) return false;
      const main = sender.mainFrame;
      if (frame !== main && (frame.processId !== main.processId || frame.routingId !== main.routingId)) return false;
      return isAppUrl(frame.url);
    } catch {
      // Electron throws when a disposed frame is read: such a sender is not ours any more.
      return false;
    }
  }
}

export const FORBIDDEN_SENDER = 'FORBIDDEN_SENDER';

/** Registers every channel; returns a function that removes them again. */
export function registerChannels(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, handlers: ChannelHandlers, windows: TrustedWindows): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(channel, async function invokeChannel(event, input: unknown): Promise<Result<unknown>> {
      if (!windows.isTrustedSender(event)) {
        processLog.warn('shell: refused a call from a sender that is not the console window\'s main frame', { channel });
        return transportRefusal(FORBIDDEN_SENDER, 'This caller is not the Paydesk console window.');
      }
      try {
        return await handlers[channel as Channel](input);
      } catch (error) {
        return internalFailure(channel, error);
      }
    });
  }
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(channel);
  };
}

/**
 * Sends every push event to our windows, payloads only, bundled: one message per ~50 ms on
 * ELECTRON_PUSH_CHANNEL (see ../console/push-bundles.ts); returns a function that stops it.
 */
export function forwardPushEvents(source: PushSource, windows: TrustedWindows, bundleMs?: number): () => void {
  return bundlePushes(
    source,
    (bundle) => {
      for (const contents of windows.live()) contents.send(ELECTRON_PUSH_CHANNEL, bundle);
    },
    bundleMs,
  );
}
