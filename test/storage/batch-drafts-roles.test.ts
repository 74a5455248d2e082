/**
 * Bulk payouts in a team workspace, by role (issue 24, item 3): finance drafts, edits, confirms and
 * sends; support only reads the batches (raw SQL as the support login, what a modified client
 * could send, is refused: migration 7's grants). Once a batch has left `draft` the port refuses a
 * draft edit; in raw SQL a finance login's change of a confirmed row is the approval gate's to
 * refuse (issue 25: a changed row voids the approval, the claim compares the digest).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: StoragePort;
let samuel: StoragePort;
let samuelSql: pg.Client;
let fatouSql: pg.Client;
const rows = checkedRows(3);
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = workspaces.storeAs('fatou', database);
  samuel = workspaces.storeAs('samuel', database);
  samuelSql = await workspaces.connectAs('samuel', database);
  fatouSql = await workspaces.connectAs('fatou', database);
  await fatou.batches.create({ id: 'draft-1', fileName: 'd.csv', fileHash: 'd1', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1_000 });
  await fatou.batches.create({ id: 'sent-1', fileName: 's.csv', fileHash: 's1', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows, at: 1_000 });
  await fatou.batches.setState('sent-1', 'draft', 1_100, { profile: PROFILE });
  await fatou.batches.setState('sent-1', 'sending', 1_200, { started: true });
}, 60_000);
afterAll(async () => {
  await samuelSql?.end();
  await fatouSql?.end();
  await workspaces.stop();
});

const denied = /permission denied/;

describe('support reads the batches and changes none of them', () => {
  it('reads a batch, its rows page by page, what was sent earlier and the progress counters', async () => {
    expect((await samuel.batches.summary('draft-1'))?.counts.valid).toBe(3);
    expect((await samuel.batches.rowsPage('draft-1', 'all', 0, 2)).total).toBe(3);
    expect((await samuel.batches.sentEarlier('draft-1')).count).toBe(0);
    expect((await samuel.batches.progressCounts('sent-1'))?.state).toBe('sending');
  });

  it('is refused a new draft, a draft edit, a rehearsal, a confirm and a pause through the port', async () => {
    await expect(samuel.batches.create({ id: 'by-support', fileName: 'x.csv', fileHash: 'x', profile: PROFILE, paymentMethod: null, concurrency: 1, retryOf: null, rows, at: 2_000 })).rejects.toThrow(denied);
    await expect(samuel.batches.replaceDraftRows('draft-1', rows.slice(1), 2_000)).rejects.toThrow(denied);
    await expect(samuel.batches.saveRehearsal('draft-1', { at: 'x', rows: 3, accepted: 3, rejected: 0, wouldFail: 0 }, new Map(), 2_000)).rejects.toThrow(denied);
    await expect(samuel.batches.setState('draft-1', 'sending', 2_000, { started: true })).rejects.toThrow(denied);
    await expect(samuel.batches.setState('sent-1', 'paused', 2_000)).rejects.toThrow(denied);
    expect((await fatou.batches.summary('draft-1'))?.state).toBe('draft');
    expect((await fatou.batches.rows('draft-1')).length).toBe(3);
  });

  it('is refused in raw SQL: no batch written, no row changed, added or removed', async () => {
    await expect(
      samuelSql.query(`INSERT INTO batches (id, file_name, file_hash, state, profile_id, profile_name, environment, concurrency, created_at, updated_at)
        VALUES ('raw', 'r.csv', 'r', 'draft', 'p1', 'Acme', 'sandbox', 1, 1, 1)`),
    ).rejects.toThrow(denied);
    await expect(samuelSql.query(`UPDATE batches SET state = 'cancelled' WHERE id = 'sent-1'`)).rejects.toThrow(denied);
    await expect(samuelSql.query(`UPDATE batch_rows SET cells = '{}' WHERE row_number = 2`)).rejects.toThrow(denied);
    await expect(samuelSql.query(`DELETE FROM batch_rows WHERE row_number = 2`)).rejects.toThrow(denied);
    await expect(samuelSql.query(`INSERT INTO batch_rows (batch_seq, row_number, cells, errors, duplicates, external_id) SELECT seq, 99, '{}', '{}', '[]', 'X' FROM batches WHERE id = 'draft-1'`)).rejects.toThrow(denied);
    expect((await samuelSql.query(`SELECT count(*)::int AS n FROM batch_rows`)).rows[0]).toEqual({ n: 6 });
  });
});

describe('finance drafts, edits and confirms', () => {
  it('edits a draft through the port and in raw SQL', async () => {
    await fatou.batches.replaceDraftRows('draft-1', rows.slice(0, 2), 2_000);
    expect((await fatou.batches.rows('draft-1')).map((row) => row.rowNumber)).toEqual([2, 3]);
    await fatouSql.query(`UPDATE batch_rows SET cells = cells WHERE batch_seq = (SELECT seq FROM batches WHERE id = 'draft-1')`);
  });

  it('cannot edit a batch that left draft through the port; sending it stays possible', async () => {
    await expect(fatou.batches.replaceDraftRows('sent-1', rows.slice(1), 3_000)).rejects.toThrow(/not a draft/);
    expect((await fatou.batches.rows('sent-1')).map((row) => [row.externalId, row.request?.amount])).toEqual(rows.map((row) => [row.externalId, row.request?.amount]));
    expect((await fatou.batches.claimRows('sent-1', 'desk-fatou', 1, 60_000, 3_000)).rows.map((row) => row.rowNumber)).toEqual([2]);
  });
});
