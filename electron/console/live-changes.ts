/**
 * The store's change events (storage/changes-port.ts) forwarded to the renderer as one push,
 * `journal:changed`, at most every FORWARD_MS: a batch writes thousands of rows a minute and every
 * desktop of a workspace hears each of them, but a screen needs one "read again" per moment, not
 * one per row. The first change after a quiet moment goes at once (a colleague's single payout
 * shows without waiting); the ones that follow within FORWARD_MS wait and go together.
 */
import { JOURNAL_CHANGED_MAX_IDS, type JournalChanged } from '../../shared/api/push-events';
import type { ChangesPort, StoreChange } from './storage/changes-port';

export const FORWARD_MS = 150;

const LISTS = { entry: 'entries', batch: 'batches', reconciliation: 'reconciliations', setting: 'settings', approval: 'approvals', audit: 'audit' } as const;

/** Forwards `changes` to `emit`, bundled; returns the stop (a bundle not sent yet is dropped). */
export function forwardChanges(changes: ChangesPort, emit: (payload: JournalChanged) => void, intervalMs = FORWARD_MS): () => void {
  let named = { entries: new Set<string>(), batches: new Set<string>(), reconciliations: new Set<string>(), settings: new Set<string>(), approvals: new Set<string>(), audit: new Set<string>() };
  let everything = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = -Infinity;

  function name(list: keyof typeof named, id: string) {
    if (everything) return;
    named[list].add(id);
    // Past what one push names: every screen reads again anyway.
    if (named[list].size > JOURNAL_CHANGED_MAX_IDS) everything = true;
  }
  function send() {
    timer = null;
    last = Date.now();
    const payload: JournalChanged = everything
      ? { entries: [], batches: [], reconciliations: [], settings: [], approvals: [], audit: [], everything: true }
      : { entries: [...named.entries], batches: [...named.batches], reconciliations: [...named.reconciliations], settings: [...named.settings], approvals: [...named.approvals], audit: [...named.audit], everything: false };
    named = { entries: new Set(), batches: new Set(), reconciliations: new Set(), settings: new Set(), approvals: new Set(), audit: new Set() };
    everything = false;
    emit(payload);
  }
  function heard(batch: readonly StoreChange[]) {
    // A team profile travels as `profiles:changed`, once the console read the definitions again (team-profiles-live.ts);
    // an ask to the team sender wakes the desktop waiting for its answer (handlers/team-sender-send.ts), no screen.
    const journal = batch.filter((change) => change.kind !== 'profile' && change.kind !== 'ask');
    if (journal.length === 0) return;
    for (const change of journal) {
      if (change.kind === 'everything') everything = true;
      else if (change.kind !== 'profile' && change.kind !== 'ask') {
        name(LISTS[change.kind], change.id);
        if (change.batchId !== null) name('batches', change.batchId);
      }
    }
    timer ??= setTimeout(send, Math.max(0, last + intervalMs - Date.now()));
  }
  const unsubscribe = changes.subscribe(heard);
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}
