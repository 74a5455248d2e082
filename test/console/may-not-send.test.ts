/**
 * The console refuses every send to a login that may not send, before anything is written or sent
 * (issue 36 item 1; electron/console/handlers/send-rights.ts): a support login (samuel) and an
 * admin-only one (adele, who approves when the policy names admins) on a real workspace, through
 * every channel a screen offers a send on: a payment, a payout's confirmation and its send, Send
 * again (Resend), a batch's confirmation, Start, Resume and Help send. And History's Send again of
 * a batch row's payout is its batch's (SEND_FROM_BATCH): the workspace writes a batch row's entry
 * only under the writer's own claim (migration 44), which only the batch's run takes.
 */
import { describe, expect, it } from 'vitest';
import { payoutRequest } from '../storage/fixtures';
import { claimRow, insertRowEntry } from '../storage/gate-helpers';
import { batchCsv } from './batch-helpers';
import { expectFail, expectOk } from './helpers';
import { useWorkspaceConsoles, type TestConsole } from './workspace-consoles';

const team = useWorkspaceConsoles();
const { consoleOf } = team;

const request = (externalId: string) => payoutRequest({ external_id: externalId, payment_method: 'momo_cm' });

async function counted(): Promise<{ entries: number; sent: number; claims: number }> {
  const root = await team.workspaces.server.connect(undefined, team.database);
  try {
    const { rows } = await root.query<{ entries: number; sent: number; claims: number }>(
      `SELECT (SELECT count(*)::int FROM entries) AS entries, (SELECT count(*)::int FROM audit_log WHERE action = 'send') AS sent,
         (SELECT count(*)::int FROM batch_rows WHERE claim_holder IS NOT NULL) AS claims`,
    );
    return rows[0]!;
  } finally {
    await root.end();
  }
}

/** Every send a screen offers, as `login`'s console: each refused with MAY_NOT_SEND, in words that say why. */
async function everySendRefused(login: TestConsole, batchId: string, journalId: string): Promise<string[]> {
  const refusals = [
    expectFail(await login.handlers['payments:create']({ request: request('NS-PAYMENT') }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['payouts:prepare']({ request: request('NS-PAYOUT') }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['payouts:initiate']({ request: request('NS-PAYOUT'), confirmationToken: 'any-token' }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['transactions:resend']({ journalId }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['batches:prepare']({ batchId }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['batches:start']({ batchId, confirmationToken: 'any-token' }), 'MAY_NOT_SEND'),
    expectFail(await login.handlers['batches:resume']({ batchId }), 'MAY_NOT_SEND'),
  ].map((failure) => failure.message);
  // Help send says it in the batch's own words (batch:refusal.joinMayNotSend).
  expect(expectFail(await login.handlers['batches:join']({ batchId }), 'WORKSPACE_NO_PERMISSION').reason).toEqual({ key: 'joinMayNotSend', params: {} });
  return refusals;
}

describe('a login that may not send', () => {
  it('is refused every send by the console before anything is written: support and an admin-only login', async () => {
    const fatou = await consoleOf('fatou');
    const imported = expectOk(await fatou.handlers['batches:import']({ fileName: 'suppliers.csv', text: batchCsv(2), paymentMethod: 'momo_cm' }));
    const sent = expectOk(await fatou.handlers['payouts:prepare']({ request: request('NS-FATOU') }));
    const paid = expectOk(await fatou.handlers['payouts:initiate']({ request: request('NS-FATOU'), confirmationToken: sent.confirmationToken }));
    const before = await counted();

    for (const person of ['samuel', 'adele'] as const) {
      const login = await consoleOf(person);
      const refusals = await everySendRefused(login, imported.batch.id, paid.id);
      for (const message of refusals) expect(message).toMatch(/may not send money, so .* was refused: only a finance login sends/);
      expect(login.batchRunner.isRunning(imported.batch.id)).toBe(false);
    }
    // Nothing written: no entry, no send in the audit log, no row claimed; the batch still a draft.
    expect(await counted()).toEqual(before);
    expect(await team.stateOf(imported.batch.id, 'batches')).toBe('draft');
  }, 60_000);
});

describe('History\'s Send again of a batch row\'s payout', () => {
  it('is refused: its batch sends it again under the row\'s claim; nothing is written', async () => {
    const fatou = await consoleOf('fatou');
    const imported = expectOk(await fatou.handlers['batches:import']({ fileName: 'again.csv', text: batchCsv(1, { tag: 'AGAIN' }), paymentMethod: 'momo_cm' }));
    const batchId = imported.batch.id;
    // Its row sent by a run (claimed, its entry written), then lost and looked up: not found.
    const raw = await team.workspaces.connectAs('fatou', team.database);
    await raw.query(`UPDATE batches SET state = 'sending' WHERE id = $1`, [batchId]);
    expect((await claimRow(raw, batchId, 2)).rowCount).toBe(1);
    await insertRowEntry(raw, 'again-row-2', batchId, 2);
    await raw.query(`UPDATE entries SET state = 'outcome_unknown' WHERE id = 'again-row-2'`);
    await raw.query(`UPDATE entries SET resolution = 'not_found' WHERE id = 'again-row-2'`);
    await raw.end();
    const before = await counted();

    const refused = expectFail(await fatou.handlers['transactions:resend']({ journalId: 'again-row-2' }), 'SEND_FROM_BATCH');
    expect(refused.message).toBe(`This payout is row 2 of batch ${batchId}: it is sent again from its batch (Resume it), which claims the row first. Nothing was sent.`);
    expect(await team.stateOf('again-row-2')).toBe('outcome_unknown/not_found');
    expect(await counted()).toEqual(before);
  }, 60_000);
});
