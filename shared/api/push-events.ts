/**
 * The events main pushes to the renderer: small "changed" notices after which a store fetches
 * again, never the IPC event object.
 */
import type { InspectedRequest } from '../contract/inspector';
import type { BatchProgress } from './batch';
import type { ReconcileProgress } from './reconcile';

/** Push events from main to the renderer (no IPC event object is ever passed). */
export interface PushEvents {
  /** A journal entry changed (status, timeline): the store fetches it again. */
  'transaction:changed': { journalId: string; status: string | null; state: string };
  /** Watching a transaction after initiate: progress for the UI. */
  'watch:progress': { journalId: string; attempt: number; status: string | null; done: boolean };
  'profiles:changed': { activeId: string };
  /** Something in the local sandbox changed (status change, delivery attempt, wallet). */
  'sandbox:event': { kind: 'status' | 'delivery' | 'wallet' | 'engine'; transactionId?: string; detail?: string };
  /** A batch's sending or rehearsal progressed or changed state (at most about 4 a second per batch). */
  'batch:progress': BatchProgress;
  /** The local sandbox answered a request (the request inspector's new record). */
  'sandbox:request': InspectedRequest;
  /** A reconciliation moved on (rows checked, verified, finished, cancelled). */
  'reconcile:progress': ReconcileProgress;
}
export type PushEvent = keyof PushEvents;
export const PUSH_EVENTS: PushEvent[] = ['transaction:changed', 'watch:progress', 'profiles:changed', 'sandbox:event', 'batch:progress', 'sandbox:request', 'reconcile:progress'];
