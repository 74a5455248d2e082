/**
 * The audit log is append-only for every role and for the workspace's owner (grants and a
 * trigger); desktops record only what they see happen (sign-in, import, confirm, send, pause,
 * cancel), the database alone writes approvals, policy and role changes (asked by one admin, applied by another); the actor is always
 * session_user. And approval changes reach other desktops as change events (a waiting count
 * kept live without polling).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForChanges, type WorkspaceChange } from '../../electron/console/storage/postgres/events';
import { startTestWorkspaces, type TestWorkspaces } from '../helpers/workspace';
import { adminChange, approve, askPayout, setPolicy } from './approval-helpers';

let workspaces: TestWorkspaces;
let database: string;
beforeAll(async () => {
  workspaces = await startTestWorkspaces();
  database = await workspaces.create();
  await setPolicy(workspaces, database, [{ minAmount: 100_000, approvals: 1 }]);
}, 60_000);
afterAll(() => workspaces.stop());

describe('the audit log', () => {
  it('records a desktop’s hook with the login from session_user, and refuses actions only the database writes', async () => {
    const fatou = await workspaces.connectAs('fatou', database);
    const { rows } = await fatou.query(`SELECT paydesk_audit('send', 'entry:e1', NULL, '{"amount": 5000}', 'sent from desk 1') AS id`);
    const line = (await fatou.query('SELECT actor, action, subject, after, remark FROM audit_log WHERE id = $1', [rows[0].id])).rows[0];
    expect(line).toEqual({ actor: 'fatou', action: 'send', subject: 'entry:e1', after: { amount: 5000 }, remark: 'sent from desk 1' });
    for (const action of ['approve', 'policy_change', 'role_change', 'nonsense']) {
      await expect(fatou.query(`SELECT paydesk_audit($1, 'x')`, [action])).rejects.toThrow(/only the database writes it/);
    }
    await expect(fatou.query(`INSERT INTO audit_log (action, actor) VALUES ('send', 'kofi')`)).rejects.toThrow(/permission denied/);
    const samuel = await workspaces.connectAs('samuel', database);
    await samuel.query(`SELECT paydesk_audit('sign_in', 'samuel')`);
  });

  it('lets no role update, delete or truncate a line', async () => {
    for (const person of ['fatou', 'samuel', 'adele', 'tester'] as const) {
      const client = await workspaces.connectAs(person, database);
      await expect(client.query(`UPDATE audit_log SET remark = 'edited'`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`DELETE FROM audit_log`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`TRUNCATE audit_log`)).rejects.toThrow(/permission denied/);
    }
  });

  it('refuses an update, a delete or a truncate even to the workspace’s owner', async () => {
    const root = await workspaces.server.connect(undefined, database);
    const before = (await root.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n;
    expect(before).toBeGreaterThan(0);
    await expect(root.query(`UPDATE audit_log SET actor = 'nobody'`)).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(root.query(`DELETE FROM audit_log`)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(root.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await root.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n).toBe(before);
  });

  it('records approvals with before and after, and role changes made by an admin only', async () => {
    const fatou = await workspaces.connectAs('fatou', database);
    const id = (await askPayout(fatou, 150_000, 'A-1'))!;
    await approve(await workspaces.connectAs('kofi', database), id, 'invoice 42');
    const { rows } = await fatou.query(`SELECT actor, action, before->>'state' AS before, after->>'state' AS after FROM audit_log WHERE subject = $1 ORDER BY id`, [`approval:${id}`]);
    expect(rows).toEqual([
      { actor: 'fatou', action: 'request_approval', before: null, after: 'awaiting' },
      { actor: 'kofi', action: 'approve', before: 'awaiting', after: 'approved' },
    ]);
    await expect(fatou.query(`SELECT paydesk_set_role('fatou', 'paydesk_admin', true)`)).rejects.toThrow(/only a workspace admin/);
    await expect(fatou.query(`SELECT paydesk_ask_role('fatou', 'paydesk_admin', true)`)).rejects.toThrow(/only a workspace admin/);
    const adele = await workspaces.connectAs('adele', database);
    // One admin alone no longer changes a role at once (migration 46): asked by adele, applied by tester.
    await expect(adele.query(`SELECT paydesk_set_role('samuel', 'paydesk_finance', true)`)).rejects.toThrow(/needs a second admin/);
    const granted = await adminChange(workspaces, database, `SELECT paydesk_ask_role('samuel', 'paydesk_finance', true) AS id`, []);
    const revoked = await adminChange(workspaces, database, `SELECT paydesk_ask_role('samuel', 'paydesk_finance', false) AS id`, []);
    const changes = await adele.query(`SELECT actor, subject, before, after FROM audit_log WHERE action = 'role_change' ORDER BY id`);
    expect(changes.rows).toEqual([
      { actor: 'tester', subject: 'samuel', before: { paydesk_finance: false }, after: { paydesk_finance: true } },
      { actor: 'tester', subject: 'samuel', before: { paydesk_finance: true }, after: { paydesk_finance: false } },
    ]);
    const asked = await adele.query(`SELECT actor, action, subject FROM audit_log WHERE subject = ANY($1) ORDER BY id`, [[`change:${granted}`, `change:${revoked}`]]);
    expect(asked.rows).toEqual([
      { actor: 'adele', action: 'change_request', subject: `change:${granted}` },
      { actor: 'tester', action: 'change_approve', subject: `change:${granted}` },
      { actor: 'adele', action: 'change_request', subject: `change:${revoked}` },
      { actor: 'tester', action: 'change_approve', subject: `change:${revoked}` },
    ]);
    await expect(adele.query(`SELECT paydesk_ask_role('samuel', 'pg_read_server_files', true)`)).rejects.toThrow(/unknown role/);
  });
});

describe('approval change events', () => {
  it('tells another desktop when a request is asked and when it is decided', async () => {
    const heard: WorkspaceChange[] = [];
    let waiting: (() => void) | null = null;
    const listener = await listenForChanges(workspaces.server.config('samuel', database), (change) => {
      if (change.table !== 'approval_requests') return;
      heard.push(change);
      waiting?.();
    });
    const next = (count: number) =>
      new Promise<void>((resolve) => {
        waiting = () => heard.length >= count && resolve();
        waiting();
      });
    const id = (await askPayout(await workspaces.connectAs('fatou', database), 120_000, 'N-1'))!;
    await next(1);
    await approve(await workspaces.connectAs('kofi', database), id);
    await next(2);
    expect(heard).toEqual([
      { table: 'approval_requests', id: String(id), batchId: null },
      { table: 'approval_requests', id: String(id), batchId: null },
    ]);
    await listener.close();
  });
});
