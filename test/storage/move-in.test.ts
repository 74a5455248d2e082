/**
 * Moving in (issue 24 item 8): a real SQLite journal file, with entries in every state, a batch,
 * a sending batch and reconciliations, copied into a throwaway workspace twice. The second run
 * copies nothing; the file is only read; who did what is the importing login; times are the
 * desktop's own; a payout the workspace already holds is refused and its batch row points there.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../electron/console/journal/entries';
import { MIGRATIONS } from '../../electron/console/journal/migrations';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { moveJournalIn, formatMoveInReport, type MoveInReport } from '../../electron/console/storage/postgres/move-in';
import { sqliteStore } from '../../electron/console/storage/sqlite-store';
import type { StoragePort } from '../../electron/console/storage/port';
import { makeTempDir } from '../temp-dir';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let file: string;
const ids: Record<string, string> = {};

const MAY_EXIST = { kind: 'may-exist', cause: 'no-answer', message: 'timed out', error: null, retryAfterSeconds: null } as const;
const RETRY_LATER = { kind: 'retry-later', error: { code: 'RATE_LIMITED', message: 'slow down', httpStatus: 429 }, retryAfterSeconds: 1 } as const;

/** A desktop's journal: one entry in each state, a batch (one row's payout is the workspace's already), a sending batch, two reconciliations. */
async function writeDesktopJournal(path: string): Promise<void> {
  const desk: StoragePort = sqliteStore(openJournal(path), { settingsFile: `${path}.settings.json` });
  const send = (externalId: string, at: number) => desk.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: externalId }), currency: 'XAF', at });
  ids.pending = await send('MV-PENDING', 1_000);
  ids.processing = await send('MV-PROCESSING', 1_001);
  await desk.journal.writeInitiateOutcome(ids.processing, { kind: 'accepted', tx: serviceTx(payoutRequest({ external_id: 'MV-PROCESSING' })), httpStatus: 201, message: null }, 1_100);
  ids.completed = await send('MV-COMPLETED', 1_002);
  await desk.journal.writeInitiateOutcome(ids.completed, { kind: 'accepted', tx: serviceTx(payoutRequest({ external_id: 'MV-COMPLETED' }), { status: 'completed' }), httpStatus: 201, message: null }, 1_100);
  ids.unknown = await send('MV-UNKNOWN', 1_003);
  await desk.journal.writeInitiateOutcome(ids.unknown, MAY_EXIST, 1_100);
  ids.notFound = await send('MV-NOTFOUND', 1_004);
  await desk.journal.writeInitiateOutcome(ids.notFound, MAY_EXIST, 1_100);
  await desk.journal.recordNotFound(ids.notFound, 1_200, 'no payout MV-NOTFOUND');
  ids.notSent = await send('MV-429', 1_005);
  await desk.journal.writeInitiateOutcome(ids.notSent, RETRY_LATER, 1_100);
  ids.refused = await send('MV-REFUSED', 1_006);
  await desk.journal.writeInitiateOutcome(ids.refused, { kind: 'refused', error: { code: 'INVALID_PHONE', message: 'bad phone', httpStatus: 422 } }, 1_100);

  // Batch mv-done: row B-1 paid, row B-2 is payout SHARED-1 (the workspace holds it already), row B-3 never sent.
  const rows = checkedRows(3).map((row, i) => (i === 1 ? { ...row, externalId: 'SHARED-1', request: { ...row.request!, external_id: 'SHARED-1' } } : row));
  await desk.batches.create({ id: 'mv-done', fileName: 'suppliers.csv', fileHash: 'h-mv', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 2_000 });
  await desk.batches.setState('mv-done', 'sending', 2_100, { started: true });
  for (const row of rows.slice(0, 2)) {
    const id = await desk.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row.request!, currency: 'XAF', at: 2_200, batch: { id: 'mv-done', row: row.rowNumber } });
    await desk.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(row.request!, { status: 'completed' }), httpStatus: 201, message: null }, 2_300);
    ids[row.externalId] = id;
  }
  await desk.batches.setState('mv-done', 'paused', 2_400);
  await desk.batches.create({ id: 'mv-sending', fileName: 'rent.csv', fileHash: 'h-rent', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1).map((r) => ({ ...r, externalId: 'RENT-1', request: { ...r.request!, external_id: 'RENT-1' } })), at: 3_000 });
  await desk.batches.setState('mv-sending', 'sending', 3_100, { started: true });

  const fileRows = [1, 2].map((n) => ({ row: n + 1, externalId: `MV-R${n}`, kind: 'payout' as const, amount: 100 * n, expectedRaw: 'completed', expected: 'completed' as const, dateRaw: null, dateMs: null, dateEndMs: null }));
  ids.reconcile = await desk.reconcile.create({ fileName: 'bank.csv', profile: PROFILE, rows: fileRows, ignoredColumns: ['Branch'], processingMinutes: 30, period: null, currency: 'XAF', at: 4_000 });
  ids.saving = await desk.reconcile.create({ fileName: 'half.csv', profile: PROFILE, rows: fileRows, processingMinutes: 30, period: null, currency: 'XAF', at: 4_100 });
  await desk.close();
  // A console that stopped while saving a file leaves its run `importing` (hidden from every screen).
  const raw = new Database(path);
  raw.prepare(`UPDATE reconciliations SET status = 'importing' WHERE id = ?`).run(ids.saving);
  raw.close();
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const moveInAs = async (person: Person, path = file): Promise<MoveInReport> => {
  const pool = openWorkspacePool(workspaces.server.config(person, database));
  try {
    return await moveJournalIn(pool, path, 10_000);
  } finally {
    await pool.end();
  }
};

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  file = join(makeTempDir('paydesk-move-in-test-'), 'journal.db');
  await writeDesktopJournal(file);
  // Another desktop of the team already sent payout SHARED-1 in the workspace.
  const kofi = workspaces.storeAs('kofi', database);
  ids.workspaceShared = await kofi.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'SHARED-1' }), currency: 'XAF', at: 2_500 });
}, 60_000);
afterAll(() => workspaces.stop());

describe('moving a desktop journal into a workspace', () => {
  let first: MoveInReport;
  let fileHash: string;

  it('refuses a login that may not send (support), copying nothing', async () => {
    await expect(moveInAs('samuel')).rejects.toMatchObject({ code: 'NO_PERMISSION', message: expect.stringContaining('paydesk_finance') });
    const store = workspaces.storeAs('tester', database);
    expect((await store.journal.search({}, 0, 50)).total).toBe(1);
  });

  it('copies every entry, event, batch, row and run once, counted, with what it refused and why', async () => {
    fileHash = sha(file);
    first = await moveInAs('fatou');
    expect(first).toMatchObject({
      journalVersion: MIGRATIONS.at(-1)!.version,
      importedBy: 'fatou',
      entries: { copied: 8, alreadyThere: 0, refused: 1 },
      batches: { copied: 2, alreadyThere: 0, refused: 0 },
      batchRows: { copied: 4, alreadyThere: 0, refused: 0 },
      reconciliations: { copied: 1, alreadyThere: 0, refused: 1 },
      reconciliationRows: { copied: 2, alreadyThere: 0, refused: 2 },
      atStart: { outcomeUnknown: 1, batchesInterrupted: 1, reconcilesInterrupted: 1 },
    });
    expect(first.refused).toEqual([
      { what: 'entry', id: ids['SHARED-1'], externalId: 'SHARED-1', why: `the workspace already holds this payout (external id SHARED-1) as entry ${ids.workspaceShared}, written by kofi` },
      { what: 'reconciliation', id: ids.saving, externalId: null, why: 'its file was still being saved when its console stopped' },
    ]);
    // Every event of the file but payout SHARED-1's two, and the one a start adds to the pending entry.
    const raw = new Database(file, { readonly: true });
    const { n } = raw.prepare('SELECT count(*) AS n FROM timeline').get() as { n: number };
    raw.close();
    expect(first.timeline).toEqual({ copied: n - 2 + 1, alreadyThere: 0, refused: 2 });
    expect(formatMoveInReport(first)).toContain('already there');
    expect(sha(file)).toBe(fileHash);
  });

  it('keeps each entry as the desktop knew it, its times and timeline, stamped with the importing login', async () => {
    const store = workspaces.storeAs('tester', database);
    const desk = sqliteStore(openJournal(file), { settingsFile: `${file}.settings.json` });
    for (const key of ['processing', 'completed', 'unknown', 'notFound', 'notSent', 'refused', 'B-1']) {
      const [mine, theirs] = [await store.journal.getEntry(ids[key]!), await desk.journal.getEntry(ids[key]!)];
      expect(mine).toEqual(theirs);
      expect((await store.journal.getTimeline(ids[key]!)).map((e) => [e.type, e.at, e.status, e.outcome])).toEqual((await desk.journal.getTimeline(ids[key]!)).map((e) => [e.type, e.at, e.status, e.outcome]));
    }
    await desk.close();
    // Left pending on the desktop: outcome unknown, to be looked up, as a console start makes it.
    expect(await store.journal.getEntry(ids.pending!)).toMatchObject({ state: 'outcome_unknown', createdAt: new Date(1_000).toISOString() });
    const client = await workspaces.connectAs('tester', database);
    const who = await client.query(`SELECT DISTINCT created_by FROM entries WHERE id <> $1`, [ids.workspaceShared]);
    expect(who.rows).toEqual([{ created_by: 'fatou' }]);
    expect((await client.query(`SELECT DISTINCT recorded_by FROM timeline t JOIN entries e ON e.seq = t.entry_seq WHERE e.id <> $1`, [ids.workspaceShared])).rows).toEqual([{ recorded_by: 'fatou' }]);
    expect((await store.journal.search({ text: 'mv-compl' }, 0, 10)).rows.map((row) => row.id)).toEqual([ids.completed]);
  });

  it('points a batch row whose payout the workspace held to that entry, never leaving it without one', async () => {
    const store = workspaces.storeAs('tester', database);
    expect(await store.batches.summary('mv-done')).toMatchObject({ state: 'paused', counts: { rows: 3 } });
    expect((await store.batches.rowsInState('mv-done', ['accepted', 'pending', 'not_sent'])).map((row) => [row.externalId, row.journalId])).toEqual([
      ['B-1', ids['B-1']],
      ['SHARED-1', ids.workspaceShared],
      ['B-3', null],
    ]);
    expect((await store.batches.summary('mv-sending'))?.state).toBe('interrupted');
    expect(await store.reconcile.run(ids.reconcile!)).toMatchObject({ status: 'interrupted', totalRows: 2, ignoredColumns: ['Branch'] });
    expect(await store.reconcile.run(ids.saving!)).toBeNull();
  });

  it('copies nothing the second time: everything is already there, the refusals stand', async () => {
    const again = await moveInAs('kofi');
    const none = (n: { copied: number; alreadyThere: number; refused: number }) => ({ copied: 0, alreadyThere: n.copied + n.alreadyThere, refused: n.refused });
    expect(again).toMatchObject({
      importedBy: 'kofi',
      entries: none(first.entries),
      timeline: none(first.timeline),
      batches: none(first.batches),
      batchRows: none(first.batchRows),
      reconciliations: none(first.reconciliations),
      reconciliationRows: none(first.reconciliationRows),
    });
    expect(again.refused).toEqual(first.refused);
    const store = workspaces.storeAs('tester', database);
    expect((await store.journal.search({}, 0, 50)).total).toBe(9);
  });

  it('npm run team:import prints the report: a third run copies nothing', () => {
    const { host, port } = workspaces.server.config('fatou', database);
    const out = execFileSync(join('node_modules', '.bin', 'tsx'), ['scripts/team-import.ts', '--journal', file, '--workspace', `postgres://fatou@${encodeURIComponent(String(host))}:${port}/${database}`, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: '' },
    });
    const report = JSON.parse(out) as MoveInReport;
    expect(report).toMatchObject({ importedBy: 'fatou', entries: { copied: 0, alreadyThere: first.entries.copied }, timeline: { copied: 0 }, batchRows: { copied: 0 } });
  });

  it('refuses a journal written by a newer Paydesk and a file that is not a journal, copying nothing', async () => {
    const newer = join(makeTempDir('paydesk-move-in-newer-'), 'journal.db');
    copyFileSync(file, newer);
    const raw = new Database(newer);
    raw.pragma('user_version = 99');
    raw.close();
    await expect(moveInAs('fatou', newer)).rejects.toMatchObject({ code: 'JOURNAL_NEWER', message: expect.stringContaining('newer Paydesk') });
    const other = join(makeTempDir('paydesk-move-in-other-'), 'notes.db');
    new Database(other).exec('CREATE TABLE notes (t TEXT)');
    await expect(moveInAs('fatou', other)).rejects.toMatchObject({ code: 'NOT_A_JOURNAL' });
    await expect(moveInAs('fatou', join(newer, 'missing.db'))).rejects.toMatchObject({ code: 'NOT_A_JOURNAL' });
  });
});
