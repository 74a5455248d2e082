/**
 * Live across desktops: a write committed on one connection reaches a listener on another
 * (LISTEN/NOTIFY from migration 7's triggers), as a small event naming what changed; a write
 * rolled back reaches no one (the next event heard is the next committed one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForChanges, parseChange, type WorkspaceChange } from '../../electron/console/storage/postgres/events';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';

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
    expect(events.heard.map((change) => change.table)).toEqual(['entries', 'batches', 'team_settings']);
    await listener.close();
  });

  it('names the batch of a changed batch row entry, for its progress on other desktops', async () => {
    const database = await workspaces.create();
    const fatou = workspaces.storeAs('fatou', database);
    await fatou.batches.create({ id: 'prog', fileName: 'f.csv', fileHash: 'h', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows: checkedRows(1), at: 1 });
    const [row] = await fatou.batches.rowsInState('prog', ['not_sent']);
    const events = recorder();
    const listener = await listenForChanges(workspaces.server.config('samuel', database), events.onChange);
    const next = events.next();
    const id = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: row!.request!, currency: 'XAF', at: 1, batch: { id: 'prog', row: row!.rowNumber } });
    expect(await next).toEqual({ table: 'entries', id, batchId: 'prog' });
    await listener.close();
  });

  it('ignores a payload that is not a change event', () => {
    expect(parseChange('not json')).toBeNull();
    expect(parseChange(JSON.stringify({ table: 'users', id: 'x' }))).toBeNull();
    expect(parseChange(JSON.stringify({ table: 'entries' }))).toBeNull();
  });
});
