/**
 * The events main pushes to the renderer: small "changed" notices after which a store fetches
 * again, never the IPC event object.
 */
import type { InspectedRequest } from '../contract/inspector';
import type { BatchProgress } from './batch';
import type { ReconcileProgress } from './reconcile';

/**
 * What the journal heard committed over the last ~150 ms (electron/console/live-changes.ts): on a
 * team workspace any desktop's writes, on one desktop its own. Ids only; a screen showing one of
 * them (or `everything`) reads again. Each list holds at most JOURNAL_CHANGED_MAX_IDS ids.
 */
export interface JournalChanged {
  entries: string[];
  /** Batches whose state or rows changed, or one of whose entries did. */
  batches: string[];
  reconciliations: string[];
  /** Team settings' keys. */
  settings: string[];
  /** Approval requests asked or decided. */
  approvals: string[];
  /** Audit log lines written (a statement's newest line; a workspace's only, migration 31). */
  audit: string[];
  /** More changed than a push names, or changes may have been missed (the workspace connection came back): read everything again. */
  everything: boolean;
}
export const JOURNAL_CHANGED_MAX_IDS = 200;

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
  /** The journal changed (this desktop's writes, or any desktop's on a team workspace), bundled: see JournalChanged. */
  'journal:changed': JournalChanged;
}
export type PushEvent = keyof PushEvents;
export const PUSH_EVENTS: PushEvent[] = ['transaction:changed', 'watch:progress', 'profiles:changed', 'sandbox:event', 'batch:progress', 'sandbox:request', 'reconcile:progress', 'journal:changed'];
