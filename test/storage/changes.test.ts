/**
 * Live across desktops: a write committed on one connection reaches a listener on another
 * (LISTEN/NOTIFY from migration 7's triggers), as a small event naming what changed; a write
 * rolled back reaches no one (the next event heard is the next committed one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForChanges, parseChange, type WorkspaceChange } from '../../electron/console/storage/postgres/events';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { CHANGES_APPLICATION } from '../../electron/console/storage/postgres/live-changes';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';
import { hear, named } from './hear-changes';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

/** The changes heard, and a promise for the next one. */
function recorder() {
  const heard: WorkspaceChange[] = [];
  let waiting: ((change: WorkspaceChange) => void) | null = null;
  return {
    heard,
    onChange(change: WorkspaceChange) {
      heard.push(change);
      waiting?.(change);
    },
    next: () => new Promise<WorkspaceChange>((resolve) => (waiting = resolve)),
  };
}

describe('workspace change events', () => {
  it('tells another desktop of an entry, a batch and a team setting written elsewhere, once committed', async () => {
    const database = await workspaces.create();
    const events = recorder();
    const listener = await listenForChanges(workspaces.server.config('samuel', database), events.onChange);
    const fatou = workspaces.storeAs('fatou', database);

    let next = events.next();
    const id = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'LIVE-1' }), currency: 'XAF', at: 1 });
    expect(await next).toEqual({ table: 'entries', id, batchId: null });

    // A rolled-back write notifies no one: the next event heard is the batch committed after it.
    const raw = await workspaces.connectAs('fatou', database);
    await raw.query('BEGIN');
    await raw.query(`UPDATE entries SET updated_at = 5 WHERE id = $1`, [id]);
    await raw.query('ROLLBACK');
    next = events.next();
    await fatou.batches.create({ id: 'live-b', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1), at: 1 });
    expect(await next).toEqual({ table: 'batches', id: 'live-b', batchId: 'live-b' });

    next = events.next();
    await workspaces.storeAs('adele', database).settings.set('theme.team', 'dark', 1);
    expect(await next).toEqual({ table: 'team_settings', id: 'theme.team', batchId: null });
    // A batch's rows tell of themselves too (migration 25), once for the statement that added them; the
    // send's and the import's audit lines (migration 34) are heard after their rows, in the same commit.
    expect(events.heard.map((change) => change.table)).toEqual(['entries', 'audit_log', 'batches', 'batch_rows', 'audit_log', 'team_settings']);
    await listener.close();
  });

  it('names the batch of a changed batch row entry, for its progress on other desktops', async () => {
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    await fatou.batches.create({ id: 'prog', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1), at: 1 });
    const [row] = await fatou.batches.rowsInState('prog', ['not_sent']);
    // Sent as a runner sends it: the batch sending, the row claimed by this login (migration 44).
    await fatou.batches.setState('prog', 'sending', 1);
    await fatou.batches.claimRows('prog', 'desk-fatou', 1, 60_000, 1);
    const events = recorder();
    const listener = await listenForChanges(workspaces.server.config('samuel', database), events.onChange);
    const next = events.next();
    const id = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row!.request!, currency: 'XAF', at: 1, batch: { id: 'prog', row: row!.rowNumber } });
    expect(await next).toEqual({ table: 'entries', id, batchId: 'prog' });
    await listener.close();
  });

  it("tells of a batch's rows edited, added or dropped (migration 25), once per statement, but not of a claim", async () => {
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    await fatou.batches.create({ id: 'rows', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(3), at: 1 });
    const samuel = workspaces.storeAs('samuel', database);
    const hearing = hear(samuel.changes);
    await samuel.changes.ready();
    const raw = await workspaces.connectAs('fatou', database);
    const ofBatch = `batch_seq = (SELECT seq FROM batches WHERE id = 'rows')`;
    await raw.query(`UPDATE batch_rows SET cells = '{"edited":true}' WHERE ${ofBatch} AND row_number = 2`);
    await hearing.until((heard) => named(heard, 'batch', 'rows'));
    expect(hearing.heard()).toEqual([{ kind: 'batch', id: 'rows', batchId: 'rows' }]);

    // Three rows dropped in one statement: one event.
    hearing.clear();
    await raw.query(`DELETE FROM batch_rows WHERE ${ofBatch}`);
    await workspaces.storeAs('adele', database).settings.set('after-drop', 1, 1);
    await hearing.until((heard) => named(heard, 'setting', 'after-drop'));
    expect(hearing.heard().filter((change) => change.kind === 'batch')).toEqual([{ kind: 'batch', id: 'rows', batchId: 'rows' }]);

    // A claim, its renewal and its release change nothing a screen shows: no event for the rows.
    await fatou.batches.create({ id: 'claimed', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(3), at: 1 });
    await fatou.batches.setState('claimed', 'sending', 1, { started: true });
    await workspaces.storeAs('adele', database).settings.set('before-claim', 1, 1);
    await hearing.until((heard) => named(heard, 'setting', 'before-claim'));
    hearing.clear();
    const claim = await fatou.batches.claimRows('claimed', 'desk-a', 3, 60_000, Date.now());
    expect(claim.rows).toHaveLength(3);
    await fatou.batches.renewClaims('claimed', 'desk-a', 60_000, Date.now());
    await fatou.batches.releaseClaims('claimed', 'desk-a', [2, 3, 4]);
    await workspaces.storeAs('adele', database).settings.set('after-claim', 1, 1);
    await hearing.until((heard) => named(heard, 'setting', 'after-claim'));
    expect(hearing.heard()).toEqual([{ kind: 'setting', id: 'after-claim', batchId: null }]);
    hearing.stop();
  });

  it('listens again after its connection is lost, then says everything may have changed', async () => {
    const database = await workspaces.create();
    const samuel = workspaces.storeAs('samuel', database);
    const hearing = hear(samuel.changes);
    await samuel.changes.ready();
    const root = await workspaces.server.connect(undefined, database);
    const { rows } = await root.query(`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = $2`, [CHANGES_APPLICATION, database]);
    expect(rows).toEqual([{ ended: true }]);
    await hearing.until((heard) => named(heard, 'everything'));
    expect(hearing.heard().filter((change) => change.kind === 'everything')).toHaveLength(1);
    // Listening again: a write after the loss is heard by name.
    const id = await workspaces.storeAs('fatou', database).journal.writeRequest({ profile: PROFILE, kind: 'payout', request: payoutRequest({ external_id: 'LIVE-AGAIN' }), currency: 'XAF', at: 1 });
    await hearing.until((heard) => named(heard, 'entry', id));
    hearing.stop();
    await root.end();
  });

  it('tells of a team profile added, edited and removed (migration 36), naming its id', async () => {
    const database = await workspaces.create();
    const events = recorder();
    const listener = await listenForChanges(workspaces.server.config('samuel', database), events.onChange);
    const profiles = workspaces.storeAs('adele', database).teamProfiles!;
    const definition = { id: 'team-x', name: 'Team', environment: 'sandbox' as const, baseUrl: 'https://sandbox.example.com/', headerWord: 'SVC' };
    for (const write of [() => profiles.save(definition, 1), () => profiles.save({ ...definition, name: 'Renamed' }, 2), () => profiles.remove('team-x')]) {
      const next = events.next();
      await write();
      expect(await next).toEqual({ table: 'team_profiles', id: 'team-x', batchId: null });
    }
    expect(parseChange(JSON.stringify({ table: 'team_profiles', id: 'team-x', batchId: null }))).toEqual({ table: 'team_profiles', id: 'team-x', batchId: null });
    await listener.close();
  });

  it('ignores a payload that is not a change event', () => {
    expect(parseChange('not json')).toBeNull();
    expect(parseChange(JSON.stringify({ table: 'users', id: 'x' }))).toBeNull();
    expect(parseChange(JSON.stringify({ table: 'entries' }))).toBeNull();
  });
});
