/**
 * Two desktops on one team workspace (issue 24): two consoles (two data folders), each opened on
 * the workspace the way a person does it in Settings (Test connection, then Use this workspace,
 * the password kept in the real OS keychain), both pointed at one sandbox engine this test starts
 * (the local sandbox is per desktop; a sandbox profile with the same id on both desktops reaches
 * the shared one). A payout sent from A appears in B's History and B, a support login, can Verify
 * it; B cannot send. A workspace chosen and then unreachable at start is never replaced by the
 * desktop's own journal: every call answers the fault until Try again finds it, or the person
 * explicitly goes back to this desktop only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { engineInternals } from '../../packages/sandbox/src/internals';
import { createVault } from '../../electron/console/vault';
import { confSettingsBackend, createSettings } from '../../electron/console/settings';
import { forgetWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { WORKSPACE_CHOICE_FILE } from '../../electron/console/workspace/choice';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { expectFail, expectOk, paymentRequest } from './helpers';

let workspace: PasswordWorkspace;
let engine: EngineHandle;
const hosts: ConsoleHost[] = [];
const dirA = makeTempDir('paydesk-desk-a-');
const dirB = makeTempDir('paydesk-desk-b-');
/** One sandbox profile id for the team's shared engine, on both desktops. */
const TEAM_SANDBOX = 'team-sandbox';

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-engine-'), 'sandbox.db'), settleMs: 3_600_000 });
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  await engine?.stop();
  const vault = createVault();
  for (const login of ['finance_demo', 'support_demo']) await forgetWorkspacePassword(vault, workspace.connection(login));
  await workspace?.stop();
});

async function desktop(dir: string): Promise<ConsoleHost> {
  const host = await startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.0.0-test', engine: false, client: { retry: { attempts: 1 } } });
  hosts.push(host);
  return host;
}

/** The shared engine's sandbox profile, saved with the same id in the desktop's settings (before it starts); its keys in the keychain. */
async function deskWithTeamProfile(dir: string): Promise<ConsoleHost> {
  const keys = engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
  createSettings(confSettingsBackend(dir)).saveProfile({
    id: TEAM_SANDBOX,
    name: 'Team sandbox',
    baseUrl: engine.api.url,
    environment: 'sandbox',
    headerWord: 'SVC',
    paymentPublicKey: keys.find((key) => key.type === 'payment')!.publicKey,
    payoutPublicKey: keys.find((key) => key.type === 'payout')!.publicKey,
  });
  const host = await desktop(dir);
  for (const key of keys) expectOk(await host.handlers['secrets:set']({ profileId: TEAM_SANDBOX, keyType: key.type, secret: key.secretKey }));
  return host;
}

describe('two desktops on one team workspace', () => {
  let journalId = '';
  const externalId = `TEAM-${process.pid}-1`;

  it('A tests the connection, uses the workspace (password to the keychain, not the choice file) and sends a payout', async () => {
    const a = await deskWithTeamProfile(dirA);
    const connection = workspace.connection('finance_demo');
    const password = workspace.passwords.finance_demo!;
    const wrong = expectFail(await a.handlers['workspace:test']({ connection, password: 'not-the-password-1' }), 'WORKSPACE_LOGIN_REFUSED');
    expect(wrong.message).not.toContain('not-the-password-1');
    expect(expectOk(await a.handlers['workspace:test']({ connection, password })).who).toEqual({ login: 'finance_demo', roles: ['finance'] });
    // A test changes nothing: still this desktop only.
    expect(expectOk(await a.handlers['workspace:status']({}))).toEqual({ store: 'desktop' });
    // Checked at the boundary: TLS off for another machine, unknown fields, an empty password.
    const refused = expectFail(await a.handlers['workspace:test']({ connection: { ...connection, host: 'db.example.com' } }), 'INVALID_INPUT');
    expect(refused.fields?.['connection.tls']).toEqual(['a server on another machine must be reached over TLS with its certificate verified']);
    expect(expectFail(await a.handlers['workspace:use']({ connection, password: '', remember: true } as never), 'INVALID_INPUT').fields).toEqual({ password: ['is required'], remember: ['is not a known field'] });
    expect(expectFail(await a.handlers['workspace:test']({ connection: { ...connection, port: 70000 } }), 'INVALID_INPUT').fields).toEqual({ 'connection.port': ['must be from 1 to 65535'] });
    const used = expectOk(await a.handlers['workspace:use']({ connection, password }));
    expect(JSON.stringify(expectOk(await a.handlers['workspace:status']({})))).not.toContain(password);
    expect(used.status).toMatchObject({ store: 'workspace', state: 'open', who: { login: 'finance_demo', roles: ['finance'] } });
    const saved = readFileSync(join(dirA, WORKSPACE_CHOICE_FILE), 'utf8');
    expect(JSON.parse(saved)).toEqual({ store: 'workspace', connection });
    expect(saved).not.toContain(password);

    expectOk(await a.handlers['profiles:activate']({ id: TEAM_SANDBOX }));
    const request = { ...paymentRequest({ external_id: externalId }), payment_method: 'momo_cm' };
    const quote = expectOk(await a.handlers['payouts:prepare']({ request }));
    const sent = expectOk(await a.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }));
    journalId = sent.id;
    // Recorded in the workspace, as the login that sent it (the database says who, not the client).
    const owner = await workspace.owner();
    const { rows } = await owner.query<{ created_by: string }>('SELECT created_by FROM entries WHERE external_id = $1', [externalId]);
    expect(rows).toEqual([{ created_by: 'finance_demo' }]);
  });

  it('B, a support login on another desktop, finds it in History and Verifies it, and may not send', async () => {
    const b = await deskWithTeamProfile(dirB);
    const used = expectOk(await b.handlers['workspace:use']({ connection: workspace.connection('support_demo'), password: workspace.passwords.support_demo! }));
    expect(used.status).toMatchObject({ state: 'open', who: { login: 'support_demo', roles: ['support'] } });
    const page = expectOk(await b.handlers['transactions:search']({ query: { externalId } }));
    expect(page.rows.map((item) => [item.id, item.externalId])).toEqual([[journalId, externalId]]);
    const verified = expectOk(await b.handlers['transactions:verify']({ journalId }));
    expect(verified.transaction.externalId).toBe(externalId);
    expect(verified.transaction.transactionId).toBeTruthy();
    // The console refuses a support login's send first (MAY_NOT_SEND; the database would too): nothing sent, not INTERNAL.
    expectOk(await b.handlers['profiles:activate']({ id: TEAM_SANDBOX }));
    const request = { ...paymentRequest({ external_id: `TEAM-${process.pid}-support` }), payment_method: 'momo_cm' };
    expectFail(await b.handlers['payouts:prepare']({ request }), 'MAY_NOT_SEND');
    expectFail(await b.handlers['payouts:initiate']({ request, confirmationToken: 'any-token' }), 'MAY_NOT_SEND');
    // Refused before its entry, so before any POST: nothing reached the service.
    const sentToEngine = (externalIdSent: string) => (engineInternals(engine).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(externalIdSent) as { n: number }).n;
    expect(sentToEngine(request.external_id!)).toBe(0);
    expect(sentToEngine(externalId)).toBe(1);
  });

  it('a workspace that does not answer at start is never replaced by the desktop journal; Try again, or back to this desktop', async () => {
    const a = hosts.shift()!;
    await a.close();
    workspace.stopServer();
    const again = await desktop(dirA);
    const status = expectOk(await again.handlers['workspace:status']({}));
    expect(status).toMatchObject({ store: 'workspace', state: 'fault', fault: { code: 'WORKSPACE_UNREACHABLE' } });
    expectFail(await again.handlers['transactions:search']({ query: {} }), 'WORKSPACE_UNREACHABLE');
    expectFail(await again.handlers['payouts:prepare']({ request: paymentRequest() }), 'WORKSPACE_UNREACHABLE');
    expect(again.runtime()).toBeNull();
    expectOk(await again.handlers['app:info']({}));
    // Still down: the same fault.
    expect(expectOk(await again.handlers['workspace:retry']({})).status).toMatchObject({ state: 'fault' });
    await workspace.startServer();
    expect(expectOk(await again.handlers['workspace:retry']({})).status).toMatchObject({ state: 'open', who: { login: 'finance_demo' } });
    expect(expectOk(await again.handlers['transactions:search']({ query: { externalId } })).total).toBe(1);
    // The server cuts the connections: lost, every write refused before it runs (nothing sent), until Try again finds it.
    const owner = await workspace.owner();
    await owner.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'finance_demo'`);
    await expect.poll(async () => (expectOk(await again.handlers['workspace:status']({})) as { state: string }).state).toBe('lost');
    expectOk(await again.handlers['profiles:activate']({ id: TEAM_SANDBOX }));
    const request = { ...paymentRequest({ external_id: `TEAM-${process.pid}-lost` }), payment_method: 'momo_cm' };
    const quote = expectOk(await again.handlers['payouts:prepare']({ request }));
    expectFail(await again.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken }), 'WORKSPACE_CONNECTION_LOST');
    expect((engineInternals(engine).db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE external_id = ?').get(request.external_id) as { n: number }).n).toBe(0);
    expect(expectOk(await again.handlers['workspace:retry']({})).status).toMatchObject({ state: 'open' });
    expect(expectOk(await again.handlers['transactions:search']({ query: { externalId } })).total).toBe(1);
    // Explicitly back to this desktop: its own journal, which never held the team's payout.
    // The workspace's fields stay offered for next time (workspace-first-setup.test.ts), never its password.
    expect(expectOk(await again.handlers['workspace:useDesktop']({})).status).toEqual({ store: 'desktop', last: expect.objectContaining({ user: 'finance_demo', port: workspace.port }) });
    expect(expectOk(await again.handlers['transactions:search']({ query: { externalId } })).total).toBe(0);
    expect(JSON.parse(readFileSync(join(dirA, WORKSPACE_CHOICE_FILE), 'utf8'))).toEqual({ store: 'desktop' });
    expect(existsSync(join(dirA, 'journal.db'))).toBe(true);
  });
});
