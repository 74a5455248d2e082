/**
 * Settings → Team workspace in a real Chromium over the real console host (browser host, OS
 * keychain, a real PostgreSQL with password logins): Test connection says who you are and your
 * role (or the fault's words), Use this workspace re-opens the console on it and the header says
 * where it records and as whom; a support login sees the send buttons disabled with the reason;
 * a workspace that does not answer at start is a banner with Try again, never this desktop's
 * journal. English and French, light and dark, axe on each.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { createVault } from '../../electron/console/vault';
import { forgetWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { CHROMIUM } from '../preflight';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { axeViolations, serious } from './axe';
import { ensureRendererBuilt, ROOT, screenshot } from './harness';

let workspace: PasswordWorkspace;
let browser: Browser;
let page: Page;
let consoleHost: ConsoleHost | null = null;
let host: BrowserHost | null = null;
const userDataDir = makeTempDir('paydesk-e2e-ws-');
const pageErrors: string[] = [];

async function open(): Promise<void> {
  consoleHost = await startConsoleHost({ userDataDir, transport: 'browser', allowLive: false, version: '0.1.0', engine: { settleMs: 800 } });
  host = await startBrowserHost({ handlers: consoleHost.handlers, events: consoleHost, staticDir: resolve(ROOT, 'dist/renderer'), port: 0 });
  await page.goto(host.url);
  await page.locator('.workspace-badge').waitFor();
}

async function shut(): Promise<void> {
  await host?.close();
  await consoleHost?.close();
  host = null;
  consoleHost = null;
}

async function go(screen: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#/${screen}`);
  await page.locator('main h1').first().waitFor();
}

async function noSeriousAxe(where: string): Promise<void> {
  const bad = serious(await axeViolations(page));
  expect(bad.map((f) => `${where}: ${f.id} ${f.targets.join(' | ')}`)).toEqual([]);
}

async function preferences(language: 'en' | 'fr', theme: 'light' | 'dark'): Promise<void> {
  await go('settings');
  await page.locator('#language-choice').selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
  await page.locator('#theme-choice').selectOption(theme);
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
}

async function fillWorkspace(login: string, password: string): Promise<void> {
  await page.locator('#ws-host').fill('localhost');
  await page.locator('#ws-port').fill(String(workspace.port));
  await page.locator('#ws-database').fill(workspace.database);
  await page.locator('#ws-user').fill(login);
  await page.locator('#ws-password').fill(password);
}

beforeAll(async () => {
  ensureRendererBuilt();
  workspace = await startPasswordWorkspace();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, locale: 'en-GB' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await open();
}, 180_000);

afterAll(async () => {
  await shut();
  await browser?.close();
  const vault = createVault();
  for (const login of ['finance_demo', 'support_demo']) await forgetWorkspacePassword(vault, workspace.connection(login));
  await workspace?.stop();
});

describe('Settings → Team workspace', () => {
  it('tests the connection (the fault in words, then who and role), uses it, and the header says where and as whom (en, light)', async () => {
    await preferences('en', 'light');
    await expect.poll(() => page.locator('.workspace-badge').textContent()).toBe('This desktop');
    await fillWorkspace('finance_demo', 'not-the-password-1');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.locator('.workspace-setting .notice-error').waitFor();
    expect(await page.locator('.workspace-setting .notice-error').textContent()).toContain('The team workspace refused your login.');
    await page.locator('#ws-password').fill(workspace.passwords.finance_demo!);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Connected as finance_demo, role finance.').waitFor();
    await page.getByText('The password that worked is kept in the system keychain: Use this workspace does not ask for it again.').waitFor();
    // The password left the page once sent; main kept it, so Use right after needs no retyping (issue 37).
    expect(await page.locator('#ws-password').inputValue()).toBe('');
    await page.locator('.workspace-setting').scrollIntoViewIfNeeded();
    await screenshot(page, 'workspace-settings-en-light');
    await noSeriousAxe('en/light settings');
    await page.getByRole('button', { name: 'Use this workspace' }).click();
    await page.locator('.workspace-badge[data-state="open"]').waitFor();
    expect(await page.locator('.workspace-badge').textContent()).toBe(`Team · ${workspace.database} finance_demo · finance`);
    expect(await page.content()).not.toContain(workspace.passwords.finance_demo!);
    await go('settings');
    await page.getByText(`This console records in the team workspace ${workspace.database} on localhost, as finance_demo (finance).`).waitFor();
    await screenshot(page, 'workspace-open-en-light');
  }, 120_000);

  it('says it in French, dark, with no serious axe finding', async () => {
    await preferences('fr', 'dark');
    await page.getByText(`Cette console enregistre dans l’espace d’équipe ${workspace.database} sur localhost, en tant que finance_demo (finance).`).waitFor();
    expect(await page.locator('.workspace-badge').textContent()).toBe(`Équipe · ${workspace.database} finance_demo · finance`);
    await page.locator('.workspace-setting').scrollIntoViewIfNeeded();
    await screenshot(page, 'workspace-settings-fr-dark');
    await noSeriousAxe('fr/dark settings');
  }, 60_000);

  it('TLS verified: refused without the server’s CA, connected with its CA file (fr, dark)', async () => {
    await go('settings');
    await fillWorkspace('finance_demo', workspace.passwords.finance_demo!);
    await page.locator('#ws-tls').selectOption('verify');
    await page.getByRole('button', { name: 'Tester la connexion' }).click();
    await page.locator('.workspace-setting .notice-error').waitFor();
    expect(await page.locator('.workspace-setting .notice-error').textContent()).toContain('Le serveur de l’espace d’équipe n’a pas pu être vérifié (certificat TLS).');
    const caFile = join(makeTempDir('paydesk-e2e-ca-'), 'team-ca.pem');
    writeFileSync(caFile, workspace.ca);
    await page.locator('#ws-ca').setInputFiles(caFile);
    await page.getByText('Certificat de l’autorité chargé : team-ca.pem').waitFor();
    await page.locator('#ws-password').fill(workspace.passwords.finance_demo!);
    await page.getByRole('button', { name: 'Tester la connexion' }).click();
    await page.getByText('Connecté en tant que finance_demo, rôle finance.').waitFor();
    await page.locator('.workspace-setting').scrollIntoViewIfNeeded();
    await screenshot(page, 'workspace-tls-ca-fr-dark');
    await noSeriousAxe('fr/dark tls');
  }, 60_000);

  it('a support login: the send buttons are disabled with the reason', async () => {
    await go('settings');
    await fillWorkspace('support_demo', workspace.passwords.support_demo!);
    await page.locator('#ws-tls').selectOption('off');
    await page.getByRole('button', { name: 'Utiliser cet espace' }).click();
    await page.locator('.workspace-badge', { hasText: 'support_demo' }).waitFor();
    await go('payout');
    await page.locator('.send-refused').waitFor();
    expect(await page.locator('.send-refused').textContent()).toContain('Votre rôle dans l’espace (support) ne permet pas d’envoyer');
    expect(await page.locator('main form button[type="submit"]').isDisabled()).toBe(true);
    await page.locator('.send-refused').scrollIntoViewIfNeeded();
    await screenshot(page, 'workspace-support-payout-fr-dark');
    await noSeriousAxe('fr/dark support payout');
  }, 60_000);

  it('a workspace that does not answer at start: the banner, Try again, never this desktop’s journal (en, dark)', async () => {
    await preferences('en', 'dark');
    await shut();
    workspace.stopServer();
    await open();
    await page.locator('.workspace-fault-banner').waitFor();
    const banner = await page.locator('.workspace-fault-banner').textContent();
    expect(banner).toContain('The team workspace’s server cannot be reached.');
    expect(banner).toContain('Paydesk does not record on this desktop instead');
    // Said once, in the person's theme.
    expect(await page.getByText('The team workspace’s server cannot be reached.').count()).toBe(1);
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await screenshot(page, 'workspace-fault-en-dark');
    await noSeriousAxe('en/dark fault');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.workspace-fault-banner').waitFor();
    await workspace.startServer();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.workspace-badge[data-state="open"]').waitFor();
    await expect.poll(() => page.locator('.workspace-fault-banner').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('back to this desktop only, the form still holds the workspace’s fields; a login’s rule is a sentence (en, dark)', async () => {
    await go('settings');
    await page.locator('.workspace-setting').getByRole('button', { name: 'Use this desktop only' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Use this desktop only' }).click();
    await expect.poll(() => page.locator('.workspace-badge').textContent()).toBe('This desktop');
    await page.reload();
    await go('settings');
    expect(await page.locator('#ws-host').inputValue()).toBe('localhost');
    expect(await page.locator('#ws-port').inputValue()).toBe(String(workspace.port));
    expect(await page.locator('#ws-database').inputValue()).toBe(workspace.database);
    expect(await page.locator('#ws-user').inputValue()).toBe('support_demo');
    expect(await page.locator('#ws-password').inputValue()).toBe('');
    await page.locator('#ws-user').fill('jean mbarga');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.locator('#ws-user-error').waitFor();
    expect(await page.locator('#ws-user-error').textContent()).toBe('Use only letters, digits, _, $ and -, starting with a letter or _, at most 63 characters.');
    await page.locator('.workspace-setting').scrollIntoViewIfNeeded();
    await screenshot(page, 'workspace-back-to-desktop-en-dark');
    await noSeriousAxe('en/dark back to desktop');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
