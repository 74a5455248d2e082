/**
 * The first setup of a team workspace works on the first try (issue 37, item 4), against a real
 * PostgreSQL with passwords and the real OS keychain: Test connection keeps the password that
 * opened it, so Use this workspace right after needs it no more (a wrong one is never kept); a
 * console started on a data folder that does not exist yet makes it; going back to "This desktop
 * only" keeps the workspace's fields (never its password) for the next time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault } from '../../electron/console/vault';
import { forgetWorkspacePassword, hasWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { startConsoleHost, type ConsoleHost, type ConsoleHostOptions } from '../../electron/console/workspace/console-host';
import { LAST_WORKSPACE_FILE } from '../../electron/console/workspace/last-workspace';
import { IDENTIFIER_RULE } from '../../shared/api';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { expectFail, expectOk } from './helpers';

let workspace: PasswordWorkspace;
const hosts: ConsoleHost[] = [];
const vault = createVault();

beforeAll(async () => {
  workspace = await startPasswordWorkspace();
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  for (const login of ['finance_demo', 'support_demo', 'admin_demo']) await forgetWorkspacePassword(vault, workspace.connection(login));
  await workspace?.stop();
});

async function desktop(dir: string, more: Partial<ConsoleHostOptions> = {}): Promise<ConsoleHost> {
  const host = await startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.0.0-test', engine: false, ...more });
  hosts.push(host);
  return host;
}

describe('first setup of a team workspace', () => {
  it('Test connection keeps the password that opened it: Use this workspace then opens without it', async () => {
    const host = await desktop(makeTempDir('paydesk-first-'));
    const connection = workspace.connection('finance_demo');
    await forgetWorkspacePassword(vault, connection);
    // A wrong password is refused and not kept.
    expectFail(await host.handlers['workspace:test']({ connection, password: 'not-the-password-1' }), 'WORKSPACE_LOGIN_REFUSED');
    expect(await hasWorkspacePassword(vault, connection)).toBe(false);
    expect(expectFail(await host.handlers['workspace:use']({ connection }), 'WORKSPACE_PASSWORD_MISSING').code).toBe('WORKSPACE_PASSWORD_MISSING');
    // The right one, tested, is kept: the form has emptied its field and Use sends none.
    expect(expectOk(await host.handlers['workspace:test']({ connection, password: workspace.passwords.finance_demo! })).who).toEqual({ login: 'finance_demo', roles: ['finance'] });
    expect(await hasWorkspacePassword(vault, connection)).toBe(true);
    const used = expectOk(await host.handlers['workspace:use']({ connection }));
    expect(used.status).toMatchObject({ store: 'workspace', state: 'open', who: { login: 'finance_demo' } });
  });

  it('a console started on a data folder that does not exist yet makes it (the browser host\'s --user-data --workspace)', async () => {
    const dir = join(makeTempDir('paydesk-first-'), 'new', 'desk');
    expect(existsSync(dir)).toBe(false);
    const host = await desktop(dir, { workspace: workspace.connection('support_demo'), workspacePassword: workspace.passwords.support_demo! });
    expect(host.status()).toMatchObject({ store: 'workspace', state: 'open', who: { login: 'support_demo' } });
    expect(JSON.parse(readFileSync(join(dir, 'desktop.json'), 'utf8')).id).toMatch(/^desktop-/);
  });

  it('back to this desktop only keeps the workspace\'s fields (not its password) for choosing it again', async () => {
    const dir = makeTempDir('paydesk-first-');
    const host = await desktop(dir);
    expect(expectOk(await host.handlers['workspace:status']({}))).toEqual({ store: 'desktop' });
    const connection = workspace.connection('admin_demo');
    expectOk(await host.handlers['workspace:use']({ connection, password: workspace.passwords.admin_demo! }));
    const back = expectOk(await host.handlers['workspace:useDesktop']({}));
    const last = { host: connection.host, port: connection.port, database: connection.database, user: 'admin_demo', tls: connection.tls, hasCa: connection.ca !== undefined };
    expect(back.status).toEqual({ store: 'desktop', last });
    expect(readFileSync(join(dir, LAST_WORKSPACE_FILE), 'utf8')).not.toContain(workspace.passwords.admin_demo!);
    await host.close();
    // The next start (the window reloads, or the app restarts) offers the same fields.
    const again = await desktop(dir);
    expect(expectOk(await again.handlers['workspace:status']({}))).toEqual({ store: 'desktop', last });
  });

  it('says what a login may hold in a sentence', async () => {
    const host = await desktop(makeTempDir('paydesk-first-'));
    const refused = expectFail(await host.handlers['workspace:test']({ connection: { ...workspace.connection('finance_demo'), user: 'jean mbarga' } }), 'INVALID_INPUT');
    expect(refused.fields).toEqual({ 'connection.user': [IDENTIFIER_RULE] });
    expect(IDENTIFIER_RULE).toMatch(/^[A-Z].*\.$/);
  });
});
