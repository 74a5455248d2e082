/**
 * A claim released while one of its rows still waits for its answer (issue 24, items 4 and 7).
 * The batch runner releases a claim once its rows' POSTs have ended, their answers still on their
 * way to the group commit; if that answer never comes (the connection lost, the desktop killed),
 * the row must not be left `pending` with no lease: nothing would ever make it outcome unknown, and
 * every desktop still sending the batch would wait for it forever. It keeps its lease instead, and
 * when the lease runs out another desktop finds it, makes it outcome unknown and looks it up.
 * Only the database's own clock decides: the test waits for the lease to run out there.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LEASE_LOST_MESSAGE } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { checkedRows, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

it('keeps the lease of a released row whose answer never came, so that it ends outcome unknown once the lease runs out', async () => {
  const database = await workspaces.create();
  const fatou = workspaces.storeAs('fatou', database);
  const kofi = workspaces.storeAs('kofi', database);
  await fatou.batches.create({ id: 'rel', fileName: 'rel.csv', fileHash: 'rel', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(3), at: 0 });
  await fatou.batches.setState('rel', 'sending', 0);
  const claim = await fatou.batches.claimRows('rel', 'desk-fatou', 2, 1_500, 0);
  const [answered, unanswered] = claim.rows;
  const write = (rowNumber: number, request: NonNullable<typeof answered>['request']) =>
    fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: request!, currency: 'XAF', at: 1, batch: { id: 'rel', row: rowNumber } });
  const answeredId = await write(answered!.rowNumber, answered!.request);
  await fatou.journal.writeInitiateOutcome(answeredId, { kind: 'accepted', tx: serviceTx(answered!.request!), httpStatus: 201, message: null }, 2);
  // Its POST left; its answer is lost with the connection.
  const lostId = await write(unanswered!.rowNumber, unanswered!.request);
  await fatou.batches.releaseClaims('rel', 'desk-fatou', claim.rows.map((row) => row.rowNumber));

  const root = await workspaces.server.connect(undefined, database);
  const held = async () => (await root.query<{ row_number: number }>('SELECT row_number FROM batch_rows WHERE claim_holder IS NOT NULL AND lease_until IS NOT NULL ORDER BY row_number')).rows.map((row) => row.row_number);
  expect(await held()).toEqual([unanswered!.rowNumber]);

  // Another desktop sending the batch: once the lease has run out on the database's clock, the row is its to look up.
  for (let waited = 0; (await root.query('SELECT bool_and(lease_until <= paydesk_now_ms()) AS over FROM batch_rows WHERE lease_until IS NOT NULL')).rows[0].over !== true; waited += 1) {
    if (waited > 400) throw new Error('the lease never ran out on the database clock');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await kofi.batches.expireClaims(3)).toEqual([{ batchId: 'rel', rowNumber: unanswered!.rowNumber, journalId: lostId }]);
  expect((await kofi.journal.getEntry(lostId))?.state).toBe('outcome_unknown');
  expect((await kofi.journal.getEntry(answeredId))?.state).toBe('known');
  expect((await root.query('SELECT count(*)::int AS n FROM timeline WHERE message = $1', [LEASE_LOST_MESSAGE])).rows[0].n).toBe(1);
  expect(await held()).toEqual([]);
  await root.end();
});
