/**
 * Issue 25 item 5 on a real cluster: every action of every person is in the audit log, with who
 * (the database login), what, its subject, and before/after where something changed. Each action is
 * performed through the console's handlers as the screens call them (a role change through the
 * database's own `paydesk_set_role`: no screen changes roles), then its line is read back through
 * the Audit screen's handler. Written by the database's triggers (migration 34; approvals, policy
 * and roles since migration 20) except the sign-in, which the console writes when it opens.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditAction, AuditEntry } from '../../shared/api/audit';
import { batchCsv } from './batch-helpers';
import { startGateProxy, type GateAction, type GateProxy } from './gate-proxy';
import { activateEngineProfile, expectOk, paymentRequest } from './helpers';
import { useWorkspaceConsoles } from './workspace-consoles';

const team = useWorkspaceConsoles();
const { consoleOf } = team;
let gate: GateProxy;
// Registered after the consoles' afterAll, so run before it (hooks run as a stack): the gate closes first.
afterAll(async () => {
  await gate?.close();
});

describe('the audit log', () => {
  it('holds sign-in, import, confirm, send, pause, cancel, approve, reject, withdraw, policy and role changes, each with who and what', async () => {
    const adele = await consoleOf('adele');
    const fatou = await consoleOf('fatou');
    const kofi = await consoleOf('kofi');
    const lines = async (action: AuditAction): Promise<AuditEntry[]> => expectOk(await adele.handlers['audit:list']({ filter: { action } })).entries;
    const only = async (action: AuditAction, subject: string): Promise<AuditEntry> => {
      const found = (await lines(action)).filter((line) => line.subject === subject);
      expect(found, `${action} ${subject}`).toHaveLength(1);
      return found[0]!;
    };

    // Sign-in: each console as it opened, under its own login.
    expect((await lines('sign_in')).map((line) => [line.actor, line.subject]).sort()).toEqual([['adele', 'adele'], ['fatou', 'fatou'], ['kofi', 'kofi']]);
    expect((await lines('sign_in'))[0]!.after).toEqual({ version: '0.0.0-test' });

    // Policy and a role change: asked by adele, applied by tester (a second admin, migration 46), each step audited.
    const policy = expectOk(await adele.handlers['people:askPolicy']({ environment: 'sandbox', currency: 'XAF', tiers: [{ minAmount: 100_000, approvals: 1, approverRole: 'finance' }] }));
    const role = expectOk(await adele.handlers['people:setRole']({ login: 'kofi', role: 'support', member: true }));
    const sql = await team.workspaces.connectAs('tester', team.database);
    for (const id of [policy.id, role.id]) await sql.query('SELECT paydesk_approve_change($1)', [id]);
    await sql.end();
    expect(await only('change_request', `change:${policy.id}`)).toMatchObject({ actor: 'adele', after: { kind: 'policy' } });
    expect(await only('change_approve', `change:${policy.id}`)).toMatchObject({ actor: 'tester', after: { state: 'applied' } });
    expect(await only('policy_change', 'sandbox/XAF')).toMatchObject({ actor: 'tester', before: null, after: { min_amount: 100_000, approvals: 1 } });
    expect(await only('change_request', `change:${role.id}`)).toMatchObject({ actor: 'adele', after: { kind: 'role' } });
    expect(await only('role_change', 'kofi')).toMatchObject({ actor: 'tester', before: { paydesk_support: false }, after: { paydesk_support: true } });

    // A single payout sent by fatou on her desktop's local sandbox.
    const request = paymentRequest({ amount: 5_000, external_id: 'AUDIT-SINGLE-1' });
    const quote = expectOk(await fatou.handlers['payouts:prepare']({ request }));
    const payout = expectOk(await fatou.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    expect(await only('send', `entry:${payout.id}`)).toMatchObject({
      actor: 'fatou',
      before: null,
      after: { state: 'pending', kind: 'payout', amount: 5_000, currency: 'XAF', externalId: 'AUDIT-SINGLE-1', environment: 'sandbox' },
    });

    // A batch through a gate that holds its first payout until the test has paused it.
    gate = await startGateProxy(fatou.engineUrl!);
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    gate.decide = async ({ method, path }): Promise<GateAction> => {
      if (method === 'POST' && path.includes('payout')) {
        arrived();
        await released;
      }
      return 'forward';
    };
    await activateEngineProfile(fatou, gate.url, 'Gated sandbox');
    const imported = expectOk(await fatou.handlers['batches:import']({ fileName: 'audit.csv', text: batchCsv(3), paymentMethod: 'momo_cm' })).batch;
    const batch = `batch:${imported.id}`;
    expect(await only('import', batch)).toMatchObject({ actor: 'fatou', before: null, after: { file: 'audit.csv', rows: 3, environment: 'sandbox', retryOf: null } });
    const confirmed = expectOk(await fatou.handlers['batches:prepare']({ batchId: imported.id }));
    expect(await only('confirm', batch)).toMatchObject({ actor: 'fatou', before: { environment: 'sandbox' }, after: { profile: 'Gated sandbox', environment: 'sandbox', rows: 3 } });
    expectOk(await fatou.handlers['batches:start']({ batchId: imported.id, confirmationToken: confirmed.confirmationToken, concurrency: 1 }));
    expect(await only('send', batch)).toMatchObject({ actor: 'fatou', before: { state: 'draft' }, after: { state: 'sending' } });
    await inFlight;
    expectOk(await fatou.handlers['batches:pause']({ batchId: imported.id }));
    expect(await only('pause', batch)).toMatchObject({ actor: 'fatou', before: { state: 'sending' }, after: { state: 'paused' } });
    release();
    await fatou.batchesIdle();
    expectOk(await fatou.handlers['batches:cancel']({ batchId: imported.id }));
    expect(await only('cancel', batch)).toMatchObject({ actor: 'fatou', before: { state: 'paused' }, after: { state: 'cancelled' } });
    // Besides its batch's send, each row sent has its own line, naming its batch and row (migration 41).
    const sends = await lines('send');
    const rowLines = sends.filter((line) => line.subject !== batch && line.subject !== `entry:${payout.id}`);
    expect(sends.filter((line) => line.subject === batch || line.subject === `entry:${payout.id}`)).toHaveLength(2);
    expect(rowLines.length).toBeGreaterThanOrEqual(1);
    for (const line of rowLines) expect(line).toMatchObject({ actor: 'fatou', subject: expect.stringMatching(/^entry:/), after: { state: 'pending', batchId: imported.id } });

    // Approvals: asked by fatou, approved and rejected by kofi, one withdrawn by fatou.
    const ask = async (amount: number) =>
      expectOk(await fatou.handlers['approvals:askPayout']({ request: paymentRequest({ amount, external_id: `AUDIT-ASK-${amount}` }) })).request!;
    const approved = await ask(150_000);
    expect(await only('request_approval', `approval:${approved.id}`)).toMatchObject({ actor: 'fatou' });
    expectOk(await kofi.handlers['approvals:approve']({ id: approved.id, digest: approved.digest, remark: 'invoice seen' }));
    expect(await only('approve', `approval:${approved.id}`)).toMatchObject({ actor: 'kofi', before: { state: 'awaiting' }, remark: 'invoice seen' });
    const rejected = await ask(160_000);
    expectOk(await kofi.handlers['approvals:reject']({ id: rejected.id, remark: 'no invoice' }));
    expect(await only('reject', `approval:${rejected.id}`)).toMatchObject({ actor: 'kofi', before: { state: 'awaiting' }, after: { state: 'rejected' }, remark: 'no invoice' });
    const withdrawn = await ask(170_000);
    expectOk(await fatou.handlers['approvals:withdraw']({ id: withdrawn.id }));
    expect(await only('withdraw', `approval:${withdrawn.id}`)).toMatchObject({ actor: 'fatou', before: { state: 'awaiting' }, after: { state: 'withdrawn' } });
  }, 120_000);
});
