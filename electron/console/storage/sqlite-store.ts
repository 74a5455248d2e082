/**
 * The storage port on one desktop's embedded SQLite journal: an adapter over the journal's own
 * functions (journal/, batch/store.ts, reconcile/store.ts), so a single desktop keeps its
 * behaviour and its figures. Each call runs synchronously inside a resolved promise: no worker
 * hop per statement; the writes of a batch's rows (request, resend, answer) are queued to the
 * journal's group commit instead and resolve once it has committed.
 *
 * Two things a single desktop never needed are kept here: row claims live in memory (one process
 * is the only sender, and a restart marks its pending entries outcome unknown anyway), and team
 * settings live in a small JSON file beside the journal (a new table would need a journal
 * migration; see docs/decisions/team-workspace-storage.md).
 */
import { entriesHolding } from '../journal/reads';
import { firstKnown } from '../journal/payout-identity';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { BatchRow } from '../../../shared/api';
import {
  findByTransactionId,
  getEntry,
  getEntryForFollowUp,
  getTimeline,
  markStalePending,
  recordLookedUp,
  recordNotFound,
  recordObserved,
  recordReadFailure,
  recordStatusEvent,
  writeInitiateOutcome,
  writeRequest,
  writeRequestInTransaction,
  writeResend,
  type JournalDb,
} from '../journal/entries';
import { journalWrites } from '../journal/group-commit';
import { OPEN_STATUS_SQL, type EntryRow } from '../journal/rows';
import { searchJournal } from '../journal/search';
import { batchState, countRows, createBatch, moveRemainingRows, earlierImports, getSummary, linkRow, listSummaries, markInterruptedBatches, rowsInState, rowsNotSentFrom, setState } from '../batch/store';
import { createReconciliation, markInterrupted, setStatus } from '../reconcile/store';
import type { MerchantRow } from '../reconcile/parse';
import { sqliteBatchDrafts } from './sqlite-batch-drafts';
import { sqliteChanges } from './sqlite-changes';
import type { JournalReads } from './journal-reads-port';
import { sqliteReads } from './sqlite-reads';
import { sqliteReconcileRows } from './sqlite-reconcile-rows';
import { EVERY_RIGHT } from './login-rights-port';
import { FIRST_OPEN_PAGE, LEASE_LOST_MESSAGE, readIgnoredColumns, rowTakenMessage, type BatchPort, type JournalPort, type OpenEntry, type ReconcilePort, type StoragePort, type SweeperPort, type TeamSettingsPort } from './port';
import { desktopTeamProfiles } from './team-profiles-port';


/**
 * The writes of a batch's rows (a request before its POST, a resend, an answer) go through the
 * journal's group commit (../journal/group-commit.ts): the writes of one event-loop turn share one
 * SQLite transaction, and each resolves only once that has committed, so a pending entry awaited
 * before its POST is durable before the request leaves.
 *
 * A single send's request and its answer are written at once, each its own transaction, as the
 * handler wrote them before the port: one payout gains nothing from a group, and waiting for the
 * end of the turn twice made its journal work half as slow again (bench/port-sqlite.ts).
 */
const ATOMIC = { atomic: true };

function sqliteJournal(db: JournalDb): Omit<JournalPort, keyof JournalReads> {
  const writes = journalWrites(db);
  /** Entries of single sends whose answer is not written yet. */
  const alone = new Set<string>();
  return {
    async writeRequest(input) {
      if (!input.batch) {
        const id = writeRequest(db, input);
        alone.add(id);
        return id;
      }
      const batch = input.batch;
      return writes.write(() => {
        // In the group's savepoint for this write, with the row's link: both or neither.
        const id = writeRequestInTransaction(db, input);
        // A row has one entry, ever (a resend reuses it): a second one would be a second payout.
        // Thrown inside the group's savepoint for this write: the entry just written is undone.
        if (!linkRow(db, batch.id, batch.row, id)) throw new Error(rowTakenMessage(batch.id, batch.row));
        return id;
      });
    },
    // Each of these is one db.transaction of its own (a throw undoes all it wrote): no savepoint of the group around it.
    writeResend: (id, at) => writes.write(() => writeResend(db, id, at), ATOMIC),
    linkRowToPayout: (batch, journalId) => writes.write(() => linkRow(db, batch.id, batch.row, journalId), ATOMIC),
    async writeInitiateOutcome(id, outcome, at) {
      if (alone.delete(id)) return writeInitiateOutcome(db, id, outcome, at);
      return writes.write(() => writeInitiateOutcome(db, id, outcome, at), ATOMIC);
    },
    // A status push comes in bursts (a batch's rows settle together): grouped like the writes
    // above, as the watcher grouped it before the port. Every other observation is written now.
    recordObserved: async (id, tx, event, at) =>
      event.type === 'sandbox_status' ? writes.write(() => recordObserved(db, id, tx, event, at), ATOMIC) : recordObserved(db, id, tx, event, at),
    recordNotFound: async (id, at, message) => recordNotFound(db, id, at, message),
    markStalePending: async (at) => markStalePending(db, at),
    getEntry: async (id) => getEntry(db, id),
    getTimeline: async (id) => getTimeline(db, id),
    search: async (query, offset, limit) => searchJournal(db, query, offset, limit),
    getForFollowUp: async (id) => getEntryForFollowUp(db, id),
    knownPayout: async (kind, environment, externalId) => firstKnown(entriesHolding(db, externalId, kind, environment)),
    findByTransactionId: async (transactionId, scope) => findByTransactionId(db, transactionId, scope),
    recordLookedUp: async (input) => recordLookedUp(db, input),
    recordReadFailure: async (id, failure, at) => recordReadFailure(db, id, failure, at),
    recordStatusEvent: async (id, status, message, at) => recordStatusEvent(db, id, status, message, at),
  };
}

interface Lease {
  holder: string;
  until: number;
}

function sqliteBatches(db: JournalDb): BatchPort {
  /** batch id -> row number -> lease. */
  const leases = new Map<string, Map<number, Lease>>();
  /**
   * batch id -> the row a claim starts reading from (past the rows the last claim took): a claim
   * reads a few rows, not the whole batch. Lowered when rows are released or freed (they may be
   * not sent still); a claim that finds too few from there reads the batch from its first row.
   */
  const cursors = new Map<string, number>();
  const lower = (batchId: string, rowNumbers: Iterable<number>) => {
    for (const rowNumber of rowNumbers) if (rowNumber < (cursors.get(batchId) ?? 0)) cursors.set(batchId, rowNumber);
  };
  const leasesOf = (batchId: string) => {
    let map = leases.get(batchId);
    if (!map) leases.set(batchId, (map = new Map()));
    return map;
  };
  return {
    ...sqliteBatchDrafts(db),
    create: async (input) => createBatch(db, input),
    async moveRemaining(fromId, at, make) {
      // A row this console's runner still holds under a live lease may still be written by it: nothing moves until it lets go.
      const leases = leasesOf(fromId);
      return moveRemainingRows(db, fromId, make, (rowNumber) => (leases.get(rowNumber)?.until ?? 0) > at);
    },
    summary: async (id) => getSummary(db, id),
    list: async (limit) => listSummaries(db, limit),
    earlierImports: async (fileHash, exceptId) => earlierImports(db, fileHash, exceptId),
    setState: async (id, state, at, extra) => setState(db, id, state, at, extra),
    rowsInState: async (id, states) => rowsInState(db, id, states),
    counts: async (id) => countRows(db, id),
    markInterrupted: async (at) => markInterruptedBatches(db, at),
    async claimRows(batchId, holder, limit, leaseMs, at) {
      const until = at + leaseMs;
      if (batchState(db, batchId) !== 'sending') return { batchId, holder, until, rows: [] };
      const held = leasesOf(batchId);
      const live = (rowNumber: number) => (held.get(rowNumber)?.until ?? 0) > at;
      const from = cursors.get(batchId) ?? 0;
      let rows: BatchRow[] = rowsNotSentFrom(db, batchId, from, limit, live);
      if (rows.length < limit && from > 0) rows = rowsNotSentFrom(db, batchId, 0, limit, live);
      for (const row of rows) held.set(row.rowNumber, { holder, until });
      if (rows.length > 0) cursors.set(batchId, rows[rows.length - 1]!.rowNumber + 1);
      return { batchId, holder, until, rows };
    },
    async renewClaims(batchId, holder, leaseMs, at, rowNumbers) {
      let count = 0;
      const named = rowNumbers ? new Set(rowNumbers) : null;
      for (const [rowNumber, lease] of leasesOf(batchId)) {
        if (lease.holder !== holder || lease.until <= at || (named && !named.has(rowNumber))) continue;
        lease.until = at + leaseMs;
        count += 1;
      }
      return count;
    },
    async releaseClaims(batchId, holder, rowNumbers) {
      const held = leasesOf(batchId);
      for (const rowNumber of rowNumbers) if (held.get(rowNumber)?.holder === holder) held.delete(rowNumber);
      lower(batchId, rowNumbers);
    },
    async expireClaims(at) {
      const lost: { batchId: string; rowNumber: number; journalId: string }[] = [];
      db.transaction(() => {
        for (const [batchId, held] of leases) {
          const expired = [...held].filter(([, lease]) => lease.until <= at).map(([rowNumber]) => rowNumber);
          if (expired.length === 0) continue;
          lower(batchId, expired);
          const pending = new Map(rowsInState(db, batchId, ['pending']).map((row) => [row.rowNumber, row]));
          for (const rowNumber of expired) {
            held.delete(rowNumber);
            const row = pending.get(rowNumber);
            if (!row?.journalId) continue;
            writeInitiateOutcome(db, row.journalId, { kind: 'may-exist', cause: 'no-answer', message: LEASE_LOST_MESSAGE, error: null, retryAfterSeconds: null }, at);
            lost.push({ batchId, rowNumber, journalId: row.journalId });
          }
        }
      })();
      return lost;
    },
  };
}

function sqliteReconcile(db: JournalDb): ReconcilePort {
  return {
    ...sqliteReconcileRows(db),
    async create(input, alive) {
      const id = await createReconciliation(db, { ...input, rows: input.rows as MerchantRow[], ignoredColumns: [...(input.ignoredColumns ?? [])] }, alive);
      if (!id) throw new Error('the reconciliation was not saved');
      return id;
    },
    async run(id) {
      const run = db.prepare(`SELECT id, status, phase, total_rows, file_name, ignored_columns FROM reconciliations WHERE id = ? AND status != 'importing'`).get(id) as
        | { id: string; status: 'running'; phase: 'matching'; total_rows: number; file_name: string; ignored_columns: string | null }
        | undefined;
      if (!run) return null;
      const { n } = db.prepare(`SELECT COUNT(*) AS n FROM reconciliation_rows WHERE reconciliation_id = ? AND source = 'file' AND category IS NULL`).get(id) as { n: number };
      return { id: run.id, status: run.status, phase: run.phase, totalRows: run.total_rows, fileName: run.file_name, unchecked: n, ignoredColumns: readIgnoredColumns(run.ignored_columns) };
    },
    setStatus: async (id, status, at, phase) => setStatus(db, id, status, at, phase),
    markInterrupted: async (at) => markInterrupted(db, at),
  };
}

/** The follow-up sweeper's selection (electron/console/sweeper.ts), on its partial indexes. */
function sqliteSweeper(db: JournalDb): SweeperPort {
  return {
    async openEntries(singleSendsBefore, limit, after = FIRST_OPEN_PAGE) {
      const rows = db
        .prepare(
          `SELECT * FROM entries
           WHERE ((state = 'known' AND ${OPEN_STATUS_SQL})
              OR (state = 'outcome_unknown' AND resolution IS NULL AND external_id IS NOT NULL AND (batch_id IS NOT NULL OR updated_at < ?)))
             AND (updated_at, id) > (?, ?)
           ORDER BY updated_at, id LIMIT ?`,
        )
        .all(singleSendsBefore, after.updatedAtMs, after.id, limit) as EntryRow[];
      return rows.map(
        (row): OpenEntry => ({
          id: row.id,
          kind: row.kind,
          state: row.state as OpenEntry['state'],
          status: row.status,
          transactionId: row.transaction_id,
          externalId: row.external_id,
          profileId: row.profile_id,
          environment: row.environment,
          batchId: row.batch_id ?? null,
          updatedAtMs: row.updated_at,
        }),
      );
    },
  };
}

/** Team settings of a single desktop: a JSON object in `file`, replaced whole (write then rename). */
function fileSettings(file: string): TeamSettingsPort {
  const read = (): Record<string, { value: unknown; at: number }> => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { value: unknown; at: number }>) : {});
  return {
    async get(key) {
      return read()[key]?.value ?? null;
    },
    async set(key, value, at) {
      const next = { ...read(), [key]: { value, at } };
      writeFileSync(`${file}.tmp`, JSON.stringify(next), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    },
  };
}

export function sqliteStore(db: JournalDb, options: { settingsFile: string }): StoragePort {
  // This desktop's own commits through the port, told to whoever listens (./sqlite-changes.ts).
  const changes = sqliteChanges(db);
  return {
    kind: 'sqlite',
    journal: changes.journal({ ...sqliteJournal(db), ...sqliteReads(db) }),
    batches: changes.batches(sqliteBatches(db)),
    reconcile: changes.reconcile(sqliteReconcile(db)),
    sweeper: sqliteSweeper(db),
    settings: changes.settings(fileSettings(options.settingsFile)),
    changes: changes.port,
    teamProfiles: desktopTeamProfiles,
    loginRights: async () => EVERY_RIGHT,
    async close() {
      db.close();
    },
  };
}
