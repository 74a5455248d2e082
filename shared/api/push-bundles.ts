/**
 * Push events travel from main to the page in bundles, `[[event, payload], ...]` in the order main
 * emitted them (electron/console/push-bundles.ts gathers them; docs/decisions/push-events-travel-in-bundles.md).
 * Both transports' page ends hand a bundle out here. Imports no zod: the browser transport is in the
 * page's first chunk.
 */
import type { TypedEmitter } from '../events';
import { PUSH_EVENTS, type PushEvent, type PushEvents } from './push-events';

/** One push event inside a bundle. */
export type BundledPush = { [E in PushEvent]: readonly [E, PushEvents[E]] }[PushEvent];

export function isPushEvent(name: unknown): name is PushEvent {
  return typeof name === 'string' && (PUSH_EVENTS as string[]).includes(name);
}

/**
 * A listener that throws is reported as the page's uncaught error, after the bundle: the events
 * after it still reach their listeners, as when each event was its own message.
 */
export function reportListenerError(error: unknown): void {
  setTimeout(() => {
    throw error;
  });
}

/** Hands each event of a bundle to its listeners, in order; an item that is not `[push event, payload]` is skipped. */
export function emitBundle(listeners: TypedEmitter<PushEvents>, bundle: unknown): void {
  if (!Array.isArray(bundle)) return;
  for (const item of bundle as unknown[]) {
    if (Array.isArray(item) && item.length === 2 && isPushEvent(item[0])) listeners.emit(item[0], item[1] as never);
  }
}
