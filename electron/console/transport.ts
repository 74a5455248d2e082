/**
 * What both transports need from the console runtime: the handler table and the push events.
 * Structural, so the transports are tested with a fake table as well as the real runtime.
 */
import type { PushEvent, PushEvents, Result } from '../../shared/api';
import type { HandlerTable } from './handlers';
import { processLog } from '@paydesk/sandbox';

/** One function per channel; each validates its own input and never throws (a Result instead). */
export type ChannelHandlers = HandlerTable;

/** Where push events come from (the runtime's `on`); returns an unsubscribe function. */
export interface PushSource {
  on<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void;
}

/** The refusal a transport answers without calling any handler. */
export function transportRefusal(code: string, message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

/** A handler broke its contract and threw: the caller still gets a Result, never a stack. */
export function internalFailure(channel: string, error: unknown): Result<never> {
  const name = error instanceof Error ? error.name : typeof error;
  processLog.error('a handler threw', { channel, errorClass: name, error });
  return transportRefusal('INTERNAL', `The operation ${channel} failed unexpectedly; see the console log.`);
}
