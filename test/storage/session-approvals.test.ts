/**
 * Approvals through the workspace session, as the desktop uses them (the console host opens the
 * workspace as a session, workspace/session-port.ts): the rules' refusals keep their own codes
 * (APPROVAL_*), a send the gate refuses stays a gate refusal, and only a connection's own failure
 * becomes a workspace fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalRefusal } from '../../electron/console/storage/approvals-port';
import { BatchStateChanged } from '../../electron/console/storage/batch-drafts-port';
import { gateRefusalOf } from '../../electron/console/storage/postgres/approvals';
import { saveWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { openWorkspaceSession, WorkspaceFaultError } from '../../electron/console/storage/postgres/workspace-session';
import { createVault } from '../../electron/console/vault';
import { sessionPort } from '../../electron/console/workspace/session-port';
import { memoryKeyring } from '../helpers/memory-keyring';
import { startTestWorkspaces, type Person, type TestWorkspaces } from '../helpers/workspace';
import { setPolicy } from './approval-helpers';
import { checkedRows, payoutRequest, PROFILE } from './fixtures';

let workspaces: TestWorkspaces;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
}, 60_000);
afterAll(() => workspaces.stop());

async function desktop(person: Person, database: string) {
  const connection = { host: workspaces.server.cluster.host, port: workspaces.server.cluster.port, database, user: person, tls: 'off' as const };
  const vault = createVault(memoryKeyring());
  await saveWorkspacePassword(vault, connection, 'test-password');
  return sessionPort(await openWorkspaceSession({ connection, vault }));
}

describe('approvals through the workspace session', () => {
  it('keeps the rules’ refusals as they are', async () => {
    const database = await workspaces.create();
    await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
    const fatou = await desktop('fatou', database);
    const asked = (await fatou.approvals!.askPayout(PROFILE, 'XAF', payoutRequest({ amount: 150_000, external_id: 'SES-1' })))!;
    const own = await fatou.approvals!.approve(asked.id, asked.digest).then(() => null, (e: unknown) => e);
    expect(own).toBeInstanceOf(ApprovalRefusal);
    expect(own).toMatchObject({ code: 'APPROVAL_OWN_REQUEST' });

    // A covered payout written before it was approved: the gate's own SQLSTATE reaches the handlers
    // (which answer APPROVAL_REQUIRED with what it needs), nothing written, the session still open.
    const unapproved = payoutRequest({ amount: 300_000, external_id: 'SES-2' });
    const held = await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request: unapproved, currency: 'XAF', at: 1 }).then(() => null, (e: unknown) => e);
    expect(held).not.toBeInstanceOf(WorkspaceFaultError);
    expect(gateRefusalOf(held)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    const raw = await workspaces.connectAs('adele', database);
    expect((await raw.query(`SELECT id FROM entries WHERE external_id = 'SES-2'`)).rows).toEqual([]);
    await raw.end();

    // Of two starts of one draft, the second is told the state it found (the handler's CONFLICT).
    await fatou.batches.create({ id: 'b-ses', fileName: 's.csv', fileHash: 'hs', profile: PROFILE, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(2), at: 1 });
    await fatou.batches.setState('b-ses', 'sending', 2, { onlyFrom: 'draft' });
    const second = await fatou.batches.setState('b-ses', 'sending', 3, { onlyFrom: 'draft' }).then(() => null, (e: unknown) => e);
    expect(second).toBeInstanceOf(BatchStateChanged);
    expect(second).toMatchObject({ state: 'sending' });
    // None of these was a fault of the workspace: writes still go.
    expect(await fatou.approvals!.askPayout(PROFILE, 'XAF', payoutRequest({ amount: 150_000, external_id: 'SES-3' }))).toMatchObject({ state: 'awaiting' });
    await fatou.close();
  });
});
