/**
 * Change events on one desktop's SQLite journal (./changes-port.ts): an in-process emitter told by
 * the port's writes once they have committed (a group-committed write resolves after its COMMIT),
 * so this desktop's screens hear the writes no handler pushes for (the sweeper's, start-up's). A
 * write that throws was rolled back and tells no one. One desktop writes this file: nothing else to hear.
 */
import type { JournalDb } from '../journal/entries';
import { changeBundle, type ChangeBundle, type StoreChange } from './changes-port';
import type { BatchPort, JournalPort, ReconcilePort, TeamSettingsPort } from './port';

/** Ids per statement when the batches of changed entries are read (SQLite's limit on parameters is far above). */
const LOOKUP_CHUNK = 500;

/** The batch of each changed entry not named yet, read once per delivery (a burst of a batch's rows is one query). */
function completeBatches(db: JournalDb) {
  return (changes: StoreChange[]): StoreChange[] => {
    const unnamed = changes.filter((change) => change.kind === 'entry' && change.batchId === null).map((change) => (change as { id: string }).id);
    if (unnamed.length === 0) return changes;
    const batches = new Map<string, string>();
    for (let start = 0; start < unnamed.length; start += LOOKUP_CHUNK) {
      const ids = unnamed.slice(start, start + LOOKUP_CHUNK);
      const rows = db.prepare(`SELECT id, batch_id FROM entries WHERE batch_id IS NOT NULL AND id IN (${ids.map(() => '?').join(',')})`).all(...ids) as { id: string; batch_id: string }[];
      for (const row of rows) batches.set(row.id, row.batch_id);
    }
    return changes.map((change) => (change.kind === 'entry' && change.batchId === null && batches.has(change.id) ? { ...change, batchId: batches.get(change.id)! } : change));
  };
}

const entry = (id: string, batchId: string | null = null): StoreChange => ({ kind: 'entry', id, batchId });
const batch = (id: string): StoreChange => ({ kind: 'batch', id, batchId: id });
const run = (id: string): StoreChange => ({ kind: 'reconciliation', id, batchId: null });

/** The port's writes, each telling `bundle` what it changed once it resolved. */
export function sqliteChanges(db: JournalDb) {
  const bundle: ChangeBundle = changeBundle({ complete: completeBatches(db) });
  /** `work`, then its changes told (only when it resolved: a write that threw changed nothing). */
  const told =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>, changed: (result: R, ...args: A) => StoreChange[]) =>
    async (...args: A): Promise<R> => {
      const result = await work(...args);
      if (bundle.listening()) bundle.add(changed(result, ...args));
      return result;
    };
  return {
    port: bundle.port,
    journal(port: JournalPort): JournalPort {
      return {
        ...port,
        writeRequest: told(port.writeRequest, (id, input) => [entry(id, input.batch?.id ?? null)]),
        writeResend: told(port.writeResend, (_, id) => [entry(id)]),
        linkRowToPayout: told(port.linkRowToPayout, (_, row, id) => [entry(id, row.id), batch(row.id)]),
        writeInitiateOutcome: told(port.writeInitiateOutcome, (_, id) => [entry(id)]),
        recordObserved: told(port.recordObserved, (_, id) => [entry(id)]),
        recordNotFound: told(port.recordNotFound, (_, id) => [entry(id)]),
        markStalePending: told(port.markStalePending, (ids) => ids.map((id) => entry(id))),
        recordLookedUp: told(port.recordLookedUp, (added) => [entry(added.id)]),
        recordReadFailure: told(port.recordReadFailure, (_, id) => [entry(id)]),
        recordStatusEvent: told(port.recordStatusEvent, (_, id) => [entry(id)]),
      };
    },
    batches(port: BatchPort): BatchPort {
      return {
        ...port,
        create: told(port.create, (_, input) => [batch(input.id)]),
        setState: told(port.setState, (_, id) => [batch(id)]),
        replaceDraftRows: told(port.replaceDraftRows, (_, id) => [batch(id)]),
        saveRehearsal: told(port.saveRehearsal, (_, id) => [batch(id)]),
        markInterrupted: told(port.markInterrupted, (ids) => ids.map(batch)),
        expireClaims: told(port.expireClaims, (lost) => lost.flatMap((row) => [entry(row.journalId, row.batchId), batch(row.batchId)])),
      };
    },
    reconcile(port: ReconcilePort): ReconcilePort {
      return {
        ...port,
        create: told(port.create, (id) => [run(id)]),
        setStatus: told(port.setStatus, (_, id) => [run(id)]),
        // The runs it will stop, read before (the journal's function returns only how many).
        async markInterrupted(at) {
          const ids = bundle.listening() ? (db.prepare(`SELECT id FROM reconciliations WHERE status = 'running'`).all() as { id: string }[]).map((row) => row.id) : [];
          const count = await port.markInterrupted(at);
          if (count > 0) bundle.add(ids.map(run));
          return count;
        },
      };
    },
    settings(port: TeamSettingsPort): TeamSettingsPort {
      return { ...port, set: told(port.set, (_, key) => [{ kind: 'setting', id: key, batchId: null }]) };
    },
  };
}
