/**
 * Support follows entries up and never sends nor changes money (migration 41; issue 36 item 1).
 * Migration 7 lets support UPDATE an entry's state, amount, currency and transaction id (a
 * follow-up writes the service's answer) under a policy that lets every row through: in raw SQL a
 * support login moved an entry back to `pending` (what lets a POST leave) and set an
 * outcome-unknown entry's amount by inventing a transaction id. samuel (support) tries here, in
 * raw SQL; his follow-ups through the store still write the service's answers.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoragePort } from '../../electron/console/storage/port';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { payoutRequest, PROFILE, serviceTx } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatouStore: StoragePort;
let samuel: pg.Client;
let root: pg.Client;
const MAY_EXIST = { kind: 'may-exist', cause: 'no-answer', message: 'timed out', error: null, retryAfterSeconds: null } as const;
const REFUSED = { kind: 'refused', error: { code: 'INVALID_PHONE', message: 'bad phone', httpStatus: 422 } } as const;

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatouStore = workspaces.storeAs('fatou', database);
  samuel = await workspaces.connectAs('samuel', database);
  root = await workspaces.server.connect(undefined, database);
}, 60_000);
afterAll(() => workspaces.stop());

/** A payout fatou sent, left in `state` by the service's answer (or none). */
async function sentPayout(externalId: string, outcome: 'unknown' | 'refused' | 'accepted'): Promise<{ id: string; request: ReturnType<typeof payoutRequest> }> {
  const request = payoutRequest({ amount: 5_000, external_id: externalId });
  const id = await fatouStore.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: 1_000 });
  if (outcome === 'unknown') await fatouStore.journal.writeInitiateOutcome(id, MAY_EXIST, 1_100);
  if (outcome === 'refused') await fatouStore.journal.writeInitiateOutcome(id, REFUSED, 1_100);
  if (outcome === 'accepted') await fatouStore.journal.writeInitiateOutcome(id, { kind: 'accepted', tx: serviceTx(request), httpStatus: 201, message: null }, 1_100);
  return { id, request };
}

const refusedAs = (code: string) => expect.objectContaining({ code });
const entryOf = async (id: string) =>
  (await root.query(`SELECT state, amount, currency, transaction_id FROM entries WHERE id = $1`, [id])).rows[0] as Record<string, unknown>;

describe('raw SQL as a support login', () => {
  it('never moves an entry to pending: not an outcome-unknown one, a refused one, nor a known one', async () => {
    for (const outcome of ['unknown', 'refused', 'accepted'] as const) {
      const { id } = await sentPayout(`SUP-PENDING-${outcome}`, outcome);
      const before = await entryOf(id);
      await expect(samuel.query(`UPDATE entries SET state = 'pending', resolution = NULL WHERE id = $1`, [id])).rejects.toEqual(refusedAs('42501'));
      expect(await entryOf(id)).toEqual(before);
    }
  });

  it('never sets an amount or currency, not even with a transaction id it invents, nor writes a transaction id without the answer that makes the entry known', async () => {
    const unknown = await sentPayout('SUP-MONEY-1', 'unknown');
    await expect(
      samuel.query(`UPDATE entries SET state = 'known', transaction_id = 'tr_invented', status = 'completed', amount = 9000000 WHERE id = $1`, [unknown.id]),
    ).rejects.toEqual(refusedAs('42501'));
    await expect(samuel.query(`UPDATE entries SET currency = 'EUR', transaction_id = 'tr_invented', state = 'known' WHERE id = $1`, [unknown.id])).rejects.toEqual(refusedAs('42501'));
    // A transaction id without the answer that makes the entry known.
    await expect(samuel.query(`UPDATE entries SET transaction_id = 'tr_invented' WHERE id = $1`, [unknown.id])).rejects.toEqual(refusedAs('42501'));
    expect(await entryOf(unknown.id)).toEqual({ state: 'outcome_unknown', amount: '5000', currency: 'XAF', transaction_id: null });

    const known = await sentPayout('SUP-MONEY-2', 'accepted');
    const before = await entryOf(known.id);
    // An answered entry's amount is kept for everyone (migration 34), support included.
    await expect(samuel.query(`UPDATE entries SET amount = 1 WHERE id = $1`, [known.id])).rejects.toThrow(/amount/);
    await expect(samuel.query(`UPDATE entries SET transaction_id = 'tr_other', state = 'outcome_unknown' WHERE id = $1`, [known.id])).rejects.toEqual(refusedAs('42501'));
    // The columns support holds no grant on stay refused by the grants.
    await expect(samuel.query(`UPDATE entries SET phone_number = '+237699999999' WHERE id = $1`, [known.id])).rejects.toEqual(refusedAs('42501'));
    await expect(samuel.query(`UPDATE entries SET request = '{}' WHERE id = $1`, [known.id])).rejects.toEqual(refusedAs('42501'));
    expect(await entryOf(known.id)).toEqual(before);
  });

  it('still follows up through the store: a look-up that finds an outcome-unknown payout records its answer, a status seen is written', async () => {
    const unknown = await sentPayout('SUP-FOUND', 'unknown');
    const samuelStore = workspaces.storeAs('samuel', database);
    const found = serviceTx(unknown.request, { status: 'completed' });
    const observed = await samuelStore.journal.recordObserved(unknown.id, found, { type: 'status_seen', httpStatus: 200, message: 'found by look-up' }, 2_000);
    expect(observed.entry).toMatchObject({ state: 'known', transactionId: found.transaction_id, status: 'completed', amount: 5_000 });
    await samuel.query(`UPDATE entries SET status = 'failed', failed_code = 'X', updated_at = 3000 WHERE id = $1`, [unknown.id]);
    expect((await root.query(`SELECT status, updated_by FROM entries WHERE id = $1`, [unknown.id])).rows[0]).toEqual({ status: 'failed', updated_by: 'samuel' });
  });
});
