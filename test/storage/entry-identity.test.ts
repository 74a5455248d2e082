/**
 * An entry's money identity never changes once written, in raw SQL as a finance login (who may
 * UPDATE entries: the console's own writes need it) and as the workspace's owner (migration 34,
 * postgres/migrations/0034-every-action-of-a-person-in-the.sql): environment, kind, profile and external id never, the
 * transaction id never removed; amount and currency only while it is being sent with no answer
 * yet, or with the service's first answer. The console's own paths (a continued attempt, an answer, a status) still write.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { insertPayoutEntry } from './approval-helpers';
import { payoutRequest } from './fixtures';

let workspaces: TestWorkspaces;
let database: string;
let fatou: pg.Client;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  fatou = await workspaces.connectAs('fatou', database);
}, 60_000);
afterAll(async () => {
  await fatou?.end();
  await workspaces?.stop();
});

const IDENTITY = /never change once written/;
const AMOUNT = /amount and currency change only while it is being sent/;

async function read(id: string) {
  return (await fatou.query('SELECT state, amount::int AS amount, currency, external_id, transaction_id, environment FROM entries WHERE id = $1', [id])).rows[0];
}

describe('an entry’s money identity', () => {
  it('is kept from a finance login and from the owner once the service answered', async () => {
    await insertPayoutEntry(fatou, 'answered', 5_000, 'ID-ANSWERED');
    // The service's first answer may bring its amount with the transaction id (the console's applyTransaction).
    await fatou.query(`UPDATE entries SET state = 'known', transaction_id = 'tx-1', status = 'processing', amount = 5000 WHERE id = 'answered'`);
    // A later status write lists the amount unchanged: it goes.
    await fatou.query(`UPDATE entries SET status = 'completed', amount = 5000, currency = 'XAF' WHERE id = 'answered'`);
    for (const change of [`amount = 9000`, `currency = 'EUR'`]) {
      await expect(fatou.query(`UPDATE entries SET ${change} WHERE id = 'answered'`)).rejects.toThrow(AMOUNT);
    }
    for (const change of [`external_id = 'ID-OTHER'`, `external_id = NULL`, `environment = 'live'`, `kind = 'payment'`, `profile_id = 'p2'`, `transaction_id = NULL`]) {
      await expect(fatou.query(`UPDATE entries SET ${change} WHERE id = 'answered'`)).rejects.toThrow(IDENTITY);
    }
    const owner = await workspaces.server.connect(undefined, database);
    try {
      await expect(owner.query(`UPDATE entries SET amount = 1 WHERE id = 'answered'`)).rejects.toThrow(AMOUNT);
      await expect(owner.query(`UPDATE entries SET environment = 'live' WHERE id = 'answered'`)).rejects.toThrow(IDENTITY);
    } finally {
      await owner.end();
    }
    expect(await read('answered')).toEqual({ state: 'known', amount: 5_000, currency: 'XAF', external_id: 'ID-ANSWERED', transaction_id: 'tx-1', environment: 'sandbox' });
  });

  it('keeps the amount of an entry whose outcome is unknown (it may exist at the service)', async () => {
    await insertPayoutEntry(fatou, 'unknown', 7_000, 'ID-UNKNOWN', 'outcome_unknown');
    await expect(fatou.query(`UPDATE entries SET amount = 70 WHERE id = 'unknown'`)).rejects.toThrow(AMOUNT);
    await expect(fatou.query(`UPDATE entries SET external_id = 'ID-ELSE' WHERE id = 'unknown'`)).rejects.toThrow(IDENTITY);
    // Found by its external id: the service's answer (transaction id and amount) is recorded.
    await fatou.query(`UPDATE entries SET state = 'known', transaction_id = 'tx-9', amount = 7000 WHERE id = 'unknown'`);
    expect(await read('unknown')).toMatchObject({ state: 'known', amount: 7_000, transaction_id: 'tx-9' });
  });

  it('lets an attempt that is being sent carry the request as it is sent now', async () => {
    await insertPayoutEntry(fatou, 'continued', 3_000, 'ID-CONTINUED');
    // The request and its columns together (the entry's gate refuses them apart: migration 41).
    await fatou.query(`UPDATE entries SET amount = 3500, request = $1 WHERE id = 'continued'`, [JSON.stringify(payoutRequest({ amount: 3_500, external_id: 'ID-CONTINUED' }))]);
    expect(await read('continued')).toMatchObject({ state: 'pending', amount: 3_500, transaction_id: null });
    await expect(fatou.query(`UPDATE entries SET environment = 'live' WHERE id = 'continued'`)).rejects.toThrow(IDENTITY);
  });
});
