/**
 * The approval policy through the console's handlers on a throwaway team workspace (issue 25
 * item 1): an admin's console saves a tier, and a finance maker's console is then held back on a
 * payout the tier covers (APPROVAL_REQUIRED, nothing written) while a smaller one goes; the change
 * is in the database's audit log under the admin's login. A finance console's save is refused
 * with a sentence that says who may change the policy, and the policy stays as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspacePool } from '../../electron/console/storage/postgres/db';
import { workspaceStore } from '../../electron/console/storage/postgres/store';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { expectFail, expectOk, paymentRequest, startRuntime } from './helpers';

let workspaces: TestWorkspaces;
let database: string;
const runtimes: Awaited<ReturnType<typeof startRuntime>>[] = [];

const consoleOf = async (person: Person) => {
  const runtime = await startRuntime({ openStorage: async () => workspaceStore(openWorkspacePool(workspaces.server.config(person, database))) });
  runtimes.push(runtime);
  return runtime;
};

beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
}, 120_000);
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  await workspaces?.stop();
});

async function sendPayout(runtime: Awaited<ReturnType<typeof startRuntime>>, amount: number) {
  const request = paymentRequest({ amount });
  const quote = expectOk(await runtime.handlers['payouts:prepare']({ request }));
  return runtime.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken });
}

describe('the approval policy saved from a console', () => {
  it('by the admin: a covered payout then needs approval, a smaller one goes, and the change is audited', async () => {
    // tester holds admin and finance (an admin-only login's console: admin-only-console.test.ts).
    const admin = await consoleOf('tester');
    const fatou = await consoleOf('fatou');
    // Before any policy, the maker sends a large payout alone.
    expectOk(await sendPayout(fatou, 250_000));

    const asked = expectOk(await admin.handlers['people:askPolicy']({ environment: 'sandbox', currency: 'XAF', tiers: [{ minAmount: 200_000, approvals: 1, approverRole: 'finance' }] }));
    expect(asked).toMatchObject({ kind: 'policy', state: 'awaiting', requestedBy: 'tester', mine: true });
    // Asked, not applied: the maker still sends alone until a second admin approves it.
    expect(expectOk(await fatou.handlers['approvals:policy']({})).tiers).toEqual([]);
    expect(expectFail(await admin.handlers['people:approveChange']({ id: asked.id }), 'SECOND_ADMIN_NEEDED').message).toMatch(/a second admin, another person, approves it/);
    const adele = await consoleOf('adele');
    expect(expectOk(await adele.handlers['people:approveChange']({ id: asked.id }))).toMatchObject({ state: 'applied', decidedBy: 'adele' });
    const saved = expectOk(await fatou.handlers['approvals:policy']({}));
    expect(saved.tiers).toEqual([{ environment: 'sandbox', currency: 'XAF', minAmount: 200_000, approvals: 1, approverRole: 'finance', updatedBy: 'adele' }]);

    const refused = expectFail(await sendPayout(fatou, 250_000), 'APPROVAL_REQUIRED');
    expect(refused.approval).toMatchObject({ subject: 'payout', environment: 'sandbox', amount: 250_000, approvals: 1, approverRole: 'finance' });
    expectOk(await sendPayout(fatou, 199_999));

    const raw = await workspaces.connectAs('adele', database);
    const { rows } = await raw.query(`SELECT actor, subject, after->>'min_amount' AS after FROM audit_log WHERE action = 'policy_change' ORDER BY id`);
    await raw.end();
    expect(rows).toEqual([{ actor: 'adele', subject: 'sandbox/XAF', after: '200000' }]);
  });

  it('by a finance login: refused with who may change it, and nothing changes', async () => {
    const fatou = runtimes[1] ?? (await consoleOf('fatou'));
    const refused = expectFail(await fatou.handlers['people:askPolicy']({ environment: 'sandbox', currency: 'XAF', tiers: [] }), 'PEOPLE_NOT_ADMIN');
    expect(refused.message).toBe('only a workspace admin changes the policy, roles or people; fatou is not one');
    expect(expectOk(await fatou.handlers['approvals:policy']({})).tiers.map((t) => t.minAmount)).toEqual([200_000]);
  });
});
