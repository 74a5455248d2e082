/**
 * Leaving the workspace keeps the policy (issue 36 item 2; docs/decisions/leaving-keeps-the-policy.md):
 * a finance desktop on a team workspace whose policy asks one approval from 100,000 XAF in the
 * sandbox chooses "Use this desktop only". The move is in the workspace's audit log before the
 * switch (refused when it cannot be written); from this desktop only, the team profile is refused,
 * and so is a desktop profile that pays out with the team profile's payout key (payouts and
 * batches), with words that say why; a desktop profile of its own keys still sends. Coming back is
 * audited the same way. Real consoles (console host), the real keychain, real PostgreSQL and two
 * sandbox engines (the team's account, and this desktop's own one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { DEFAULT_SEED_INPUT, parseSeed } from '../../packages/sandbox/src/storage/seed';
import { createVault } from '../../electron/console/vault';
import { confSettingsBackend, createSettings, LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { forgetWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { readStoreChoice } from '../../electron/console/workspace/choice';
import { migrateWorkspace } from '../../electron/console/storage/postgres/migrate';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { desktopIdOf } from '../../electron/console/desktop-id';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { batchCsv } from './batch-helpers';
import { expectFail, expectOk, paymentRequest } from './helpers';

let workspace: PasswordWorkspace;
let team: EngineHandle;
let own: EngineHandle;
const hosts: ConsoleHost[] = [];
const TEAM = 'team-sandbox';
const dirs = { admin: makeTempDir('paydesk-leave-admin-'), a: makeTempDir('paydesk-leave-a-') };
const AUDIT_HOOK = 'paydesk_audit(text, text, jsonb, jsonb, text)';

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
  team = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-engine-team-'), 'sandbox.db'), settleMs: 3_600_000 });
  // This desktop's own account: the default seed with keys of its own.
  const app = DEFAULT_SEED_INPUT.applications[0]!;
  const ownKeys = app.keys.map((key) => ({ ...key, publicKey: key.publicKey.replace('paydeskdemo01', 'deskown02'), secretKey: key.secretKey.replace('paydeskdemo01', 'deskown02') }));
  const seed = parseSeed({ ...DEFAULT_SEED_INPUT, applications: [{ ...app, id: 'app_desk_own', ref: 'a3a0c0de-2d1a-4c43-9a57-3f1f7f0c2a02', name: 'Desk own', keys: ownKeys }] });
  own = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-engine-own-'), 'sandbox.db'), settleMs: 3_600_000, seed });
  const owner = await workspace.owner();
  await owner.query(`INSERT INTO approval_tiers (environment, currency, min_amount, approvals, approver_role) VALUES ('sandbox', 'XAF', 100000, 1, 'paydesk_finance')`);
  // This admin also sends, as in a small team (an admin-only login cannot open the console yet).
  await owner.query('GRANT paydesk_finance TO admin_demo');
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  await team?.stop();
  await own?.stop();
  const vault = createVault();
  for (const login of ['finance_demo', 'admin_demo']) await forgetWorkspacePassword(vault, workspace.connection(login));
  await forgetWorkspacePassword(vault, workspace.connection('finance_demo', { database: 'paydesk_leave_other' }));
  await workspace?.stop();
});

const keysOf = (engine: EngineHandle) => engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
const publicKey = (engine: EngineHandle, type: 'payment' | 'payout') => keysOf(engine).find((key) => key.type === type)!.publicKey;

async function desktop(dir: string, login: string): Promise<ConsoleHost> {
  const host = await startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.0.0-test', engine: false, client: { retry: { attempts: 1 } } });
  hosts.push(host);
  expectOk(await host.handlers['workspace:use']({ connection: workspace.connection(login), password: workspace.passwords[login]! }));
  return host;
}

async function secretsFor(host: ConsoleHost, profileId: string, engine: EngineHandle): Promise<void> {
  for (const key of keysOf(engine)) expectOk(await host.handlers['secrets:set']({ profileId, keyType: key.type, secret: key.secretKey }));
}

/** Desktop A's lines of one action. */
async function auditLines(action: string): Promise<Array<{ id: number; actor: string; after: Record<string, unknown>; remark: string }>> {
  const { rows } = await (await workspace.owner()).query(`SELECT id::int AS id, actor, after, remark FROM audit_log WHERE action = $1 AND after->>'desktop' = $2 ORDER BY id`, [action, desktopIdOf(dirs.a)]);
  return rows;
}

/** Desktop A's lines of one action in another workspace database. */
async function auditLinesIn(database: string, action: string): Promise<Array<{ actor: string; after: Record<string, unknown> }>> {
  const { rows } = await (await workspace.owner(database)).query(`SELECT actor, after FROM audit_log WHERE action = $1 AND after->>'desktop' = $2 ORDER BY id`, [action, desktopIdOf(dirs.a)]);
  return rows;
}

async function payout(host: ConsoleHost, amount: number, externalId: string) {
  const request = { ...paymentRequest({ amount, external_id: externalId }), payment_method: 'momo_cm' };
  const quote = await host.handlers['payouts:prepare']({ request });
  if (!quote.ok) return quote;
  return host.handlers['payouts:initiate']({ request, confirmationToken: quote.value.confirmationToken });
}

describe('leaving the workspace keeps the policy', () => {
  let a: ConsoleHost;

  it('on the workspace, a payout of 900,000 under the team profile waits for an approval; the desktop keeps the team profile’s fingerprint, never a secret', async () => {
    const settings = createSettings(confSettingsBackend(dirs.admin));
    settings.saveProfile({ id: TEAM, name: 'Team sandbox', baseUrl: team.api.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: publicKey(team, 'payment'), payoutPublicKey: publicKey(team, 'payout') });
    const admin = await desktop(dirs.admin, 'admin_demo');
    expectOk(await admin.handlers['teamProfiles:publish']({ id: TEAM }));

    // Desktop A: its own copy of the team's account (same service, environment and payout key), and an account of its own.
    const mine = createSettings(confSettingsBackend(dirs.a));
    mine.saveProfile({ id: 'copy', name: 'Copy of team', baseUrl: team.api.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: publicKey(team, 'payment'), payoutPublicKey: publicKey(team, 'payout') });
    mine.saveProfile({ id: 'mine', name: 'My own account', baseUrl: own.api.url, environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: publicKey(own, 'payment'), payoutPublicKey: publicKey(own, 'payout') });
    a = await desktop(dirs.a, 'finance_demo');
    expectOk(await a.handlers['teamProfiles:setKeys']({ profileId: TEAM, paymentPublicKey: publicKey(team, 'payment'), payoutPublicKey: publicKey(team, 'payout') }));
    await secretsFor(a, TEAM, team);
    await secretsFor(a, 'mine', own);
    expectOk(await a.handlers['profiles:activate']({ id: TEAM }));
    expectFail(await payout(a, 900_000, 'LEAVE-1'), 'APPROVAL_REQUIRED');
    // Its coming from this desktop's own journal was written too.
    expect(await auditLines('join_workspace')).toMatchObject([{ actor: 'finance_demo', after: { desktop: desktopIdOf(dirs.a) } }]);

    const kept = JSON.parse(readFileSync(join(dirs.a, 'settings.json'), 'utf8')) as { teamProfilesSeen: unknown };
    expect(kept.teamProfilesSeen).toEqual([{ id: TEAM, name: 'Team sandbox', environment: 'sandbox', baseUrl: team.api.url, payoutPublicKey: publicKey(team, 'payout') }]);
    const text = readFileSync(join(dirs.a, 'settings.json'), 'utf8');
    for (const key of keysOf(team)) expect(text).not.toContain(key.secretKey);
  });

  it('leaving is written in the workspace’s audit log before the switch: refused, the console where it was, when the line cannot be written', async () => {
    const owner = await workspace.owner();
    await owner.query(`REVOKE EXECUTE ON FUNCTION ${AUDIT_HOOK} FROM paydesk_finance`);
    try {
      expect((await a.handlers['workspace:useDesktop']({})).ok).toBe(false);
    } finally {
      await owner.query(`GRANT EXECUTE ON FUNCTION ${AUDIT_HOOK} TO paydesk_finance`);
    }
    expect(readStoreChoice(dirs.a)).toMatchObject({ store: 'workspace' });
    expect(expectOk(await a.handlers['workspace:status']({}))).toMatchObject({ store: 'workspace', state: 'open' });
    expect(await auditLines('leave_workspace')).toEqual([]);

    expect(expectOk(await a.handlers['workspace:useDesktop']({})).status).toMatchObject({ store: 'desktop' });
    const [left] = await auditLines('leave_workspace');
    expect(left).toMatchObject({ actor: 'finance_demo', after: { desktop: desktopIdOf(dirs.a), version: '0.0.0-test' } });
    expect(left!.remark).toContain('team approval policy does not cover');
    // The team profile was the active one: this desktop re-opens on its built-in sandbox, not on it.
    expect(createSettings(confSettingsBackend(dirs.a)).activeProfileId()).toBe(LOCAL_SANDBOX_ID);
  });

  it('from this desktop only, the team profile is refused, saying it belongs to the team and its policy', async () => {
    const refused = expectFail(await a.handlers['profiles:activate']({ id: TEAM }), 'TEAM_POLICY_APPLIES');
    expect(refused.message).toContain('"Team sandbox" is a team profile: it belongs to the team workspace and its approval policy');
    expect(refused.profileId).toBe(TEAM);
  });

  it('a desktop profile with the team profile’s service, environment and payout key is refused for a payout and a batch; nothing is sent', async () => {
    expectOk(await a.handlers['profiles:activate']({ id: 'copy' }));
    const refused = expectFail(await payout(a, 900_000, 'LEAVE-2'), 'TEAM_POLICY_APPLIES');
    expect(refused.message).toContain('"Copy of team" uses the payout public key of the team profile "Team sandbox"');
    expect(refused.message).toContain('the team’s approval policy covers it');
    const imported = expectOk(await a.handlers['batches:import']({ fileName: 'leave.csv', text: batchCsv(2, { amount: () => 450_000 }), paymentMethod: 'momo_cm' })).batch;
    expect(expectFail(await a.handlers['batches:prepare']({ batchId: imported.id }), 'TEAM_POLICY_APPLIES').message).toContain('"Copy of team" uses the payout public key');
    expect(expectOk(await a.handlers['transactions:search']({ query: { externalId: 'LEAVE-2' } })).rows).toEqual([]);
  });

  it('a desktop profile of this desktop’s own account still sends at once, as the dialog says', async () => {
    expectOk(await a.handlers['profiles:activate']({ id: 'mine' }));
    const sent = expectOk(await payout(a, 5_000, 'LEAVE-3'));
    expect(sent.profileId).toBe('mine');
  });

  it('coming back is written before the switch too (join_workspace); the team profile is usable again, under the policy', async () => {
    const owner = await workspace.owner();
    const connection = workspace.connection('finance_demo');
    await owner.query(`REVOKE EXECUTE ON FUNCTION ${AUDIT_HOOK} FROM paydesk_finance`);
    try {
      expect((await a.handlers['workspace:use']({ connection })).ok).toBe(false);
    } finally {
      await owner.query(`GRANT EXECUTE ON FUNCTION ${AUDIT_HOOK} TO paydesk_finance`);
    }
    expect(readStoreChoice(dirs.a)).toEqual({ store: 'desktop' });
    // Only its first coming, from the first test.
    expect(await auditLines('join_workspace')).toHaveLength(1);

    expectOk(await a.handlers['workspace:use']({ connection }));
    const [left] = await auditLines('leave_workspace');
    const [, back] = await auditLines('join_workspace');
    expect(back).toMatchObject({ actor: 'finance_demo', after: { desktop: desktopIdOf(dirs.a) } });
    expect(back!.id).toBeGreaterThan(left!.id);
    expectOk(await a.handlers['profiles:activate']({ id: TEAM }));
    expectFail(await payout(a, 900_000, 'LEAVE-4'), 'APPROVAL_REQUIRED');
  });

  it('moving to another workspace is written in the one it leaves (to another workspace), then in the one it joins', async () => {
    const owner = await workspace.owner();
    await owner.query('CREATE DATABASE paydesk_leave_other');
    await migrateWorkspace(await workspace.owner('paydesk_leave_other'));
    const leftBefore = (await auditLines('leave_workspace')).length;
    expectOk(await a.handlers['workspace:use']({ connection: workspace.connection('finance_demo', { database: 'paydesk_leave_other' }), password: workspace.passwords.finance_demo! }));
    const left = await auditLines('leave_workspace');
    expect(left).toHaveLength(leftBefore + 1);
    expect(left.at(-1)).toMatchObject({ actor: 'finance_demo', after: { to: 'another workspace' } });
    expect(left.at(-1)!.remark).toContain('records in another workspace');
    expect(await auditLinesIn('paydesk_leave_other', 'join_workspace')).toMatchObject([{ actor: 'finance_demo', after: { desktop: desktopIdOf(dirs.a) } }]);
  });
});
