/**
 * Team profiles in a real Chromium over the real console host on a team workspace (browser host,
 * OS keychain, a real PostgreSQL with password logins; docs/decisions/team-profiles.md). Desktop
 * A (finance, driven through its handlers) sends a payout with the team profile; on desktop B
 * (this page, an admin who also sends) the transaction's Verify says this desktop has no keys for
 * that team profile yet, with a button to Settings on it; Settings shows the team profile (team
 * tag, no key field in the team's form), this desktop's keys form, and a profile of this desktop
 * only with Publish. Once B gives its keys, Verify answers. English and French, light and dark.
 */
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startEngine, type EngineHandle } from '@paydesk/sandbox';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { confSettingsBackend, createSettings } from '../../electron/console/settings';
import { createVault } from '../../electron/console/vault';
import { forgetWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { CHROMIUM } from '../preflight';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { expectOk, paymentRequest } from '../console/helpers';
import { axeViolations, serious } from './axe';
import { ensureRendererBuilt, ROOT, screenshot } from './harness';

let workspace: PasswordWorkspace;
let engine: EngineHandle;
let browser: Browser;
let page: Page;
const consoles: ConsoleHost[] = [];
let host: BrowserHost | null = null;
const pageErrors: string[] = [];
const TEAM = 'team-sandbox';
let journalId = '';

const sandboxKeys = () => engine.api.applications()[0]!.keys.filter((key) => key.environment === 'sandbox');
const publicKey = (type: 'payment' | 'payout') => sandboxKeys().find((key) => key.type === type)!.publicKey;

async function desktop(dir: string, login: string): Promise<ConsoleHost> {
  const consoleHost = await startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.1.0', engine: false, client: { retry: { attempts: 1 } } });
  consoles.push(consoleHost);
  expectOk(await consoleHost.handlers['workspace:use']({ connection: workspace.connection(login), password: workspace.passwords[login]! }));
  return consoleHost;
}

async function go(hash: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.locator('main h1').first().waitFor();
}

async function preferences(language: 'en' | 'fr', theme: 'light' | 'dark'): Promise<void> {
  await go('#/settings');
  await page.locator('#language-choice').selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
  await page.locator('#theme-choice').selectOption(theme);
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
}

async function noSeriousAxe(where: string): Promise<void> {
  const bad = serious(await axeViolations(page));
  expect(bad.map((f) => `${where}: ${f.id} ${f.targets.join(' | ')}`)).toEqual([]);
}

beforeAll(async () => {
  ensureRendererBuilt();
  workspace = await startPasswordWorkspace();
  engine = await startEngine({ host: '127.0.0.1', port: 0, db: join(makeTempDir('paydesk-engine-'), 'sandbox.db'), settleMs: 3_600_000 });
  // An admin-only login cannot open the console yet (audit26's item of issue 25): this admin also sends.
  await (await workspace.owner()).query('GRANT paydesk_finance TO admin_demo');
  // Desktop A: finance; the team profile written by the admin's desktop (B) below, A's keys, one payout.
  const dirB = makeTempDir('paydesk-e2e-tp-b-');
  createSettings(confSettingsBackend(dirB)).saveProfile({ id: 'my-sandbox', name: 'My test engine', baseUrl: 'http://127.0.0.1:9/', environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: '', payoutPublicKey: '' });
  const b = await desktop(dirB, 'admin_demo');
  expectOk(await b.handlers['teamProfiles:save']({ id: TEAM, name: 'Team sandbox', baseUrl: engine.api.url, environment: 'sandbox', headerWord: 'SVC' }));
  const a = await desktop(makeTempDir('paydesk-e2e-tp-a-'), 'finance_demo');
  expectOk(await a.handlers['teamProfiles:setKeys']({ profileId: TEAM, paymentPublicKey: publicKey('payment'), payoutPublicKey: publicKey('payout') }));
  for (const key of sandboxKeys()) expectOk(await a.handlers['secrets:set']({ profileId: TEAM, keyType: key.type, secret: key.secretKey }));
  expectOk(await a.handlers['profiles:activate']({ id: TEAM }));
  const request = { ...paymentRequest({ external_id: `E2E-TP-${process.pid}` }), payment_method: 'momo_cm' };
  const quote = expectOk(await a.handlers['payouts:prepare']({ request }));
  journalId = expectOk(await a.handlers['payouts:initiate']({ request, confirmationToken: quote.confirmationToken })).id;

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, locale: 'en-GB' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  host = await startBrowserHost({ handlers: b.handlers, events: b, staticDir: resolve(ROOT, 'dist/renderer'), port: 0 });
  await page.goto(host.url);
  await page.locator('.workspace-badge[data-state="open"]').waitFor();
}, 180_000);

afterAll(async () => {
  await host?.close();
  for (const consoleHost of consoles) await consoleHost.close();
  await browser?.close();
  const keys = engine ? sandboxKeys() : [];
  await engine?.stop();
  const vault = createVault();
  for (const login of ['finance_demo', 'admin_demo']) await forgetWorkspacePassword(vault, workspace.connection(login));
  // The engine's default keys are the same on every start and the keychain is the machine's: a secret left
  // here shows "Replace payment secret" instead of the key field to a later test (outcome-unknown.test.ts).
  for (const key of keys) await vault.deleteSecret(key.publicKey);
  await workspace?.stop();
});

describe('team profiles in Settings and Verify', () => {
  it("Verify of a colleague's payout says this desktop has no keys for its team profile, with a button to add them (en, light)", async () => {
    await preferences('en', 'light');
    await go(`#/timeline/${journalId}`);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByText('This desktop has no keys yet for this team profile.').waitFor();
    await screenshot(page, 'team-profiles-verify-no-keys-en-light');
    await page.getByRole('button', { name: 'Add this desktop’s keys for this profile' }).click();
    await page.getByRole('form', { name: 'This desktop’s keys' }).waitFor();
    expect(await page.locator('.profile-list li.selected').textContent()).toContain('Team sandbox');
    expect(await page.locator('.profile-list li.selected .scope-tag').textContent()).toBe('team');
    await page.getByText('This desktop has no keys for Team sandbox yet').waitFor();
    await page.locator('.profile-detail').scrollIntoViewIfNeeded();
    await screenshot(page, 'team-profiles-settings-en-light');
    await noSeriousAxe('en/light team profile');
  }, 120_000);

  it('an admin edits the team profile with no key field; a profile of this desktop only offers Publish (fr, dark)', async () => {
    await preferences('fr', 'dark');
    await go('#/settings?profile=my-sandbox');
    expect(await page.locator('.profile-list li.selected .scope-tag').textContent()).toBe('ce poste seulement');
    await page.getByRole('button', { name: 'Publier My test engine pour l’équipe' }).waitFor();
    await page.locator('.profile-detail').scrollIntoViewIfNeeded();
    await screenshot(page, 'team-profiles-desktop-only-fr-dark');
    await go(`#/settings?profile=${TEAM}`);
    await page.getByRole('button', { name: 'Modifier Team sandbox pour l’équipe' }).click();
    const form = page.getByRole('form', { name: 'Modifier le profil d’équipe Team sandbox' });
    await form.waitFor();
    expect(await form.locator('input').evaluateAll((inputs) => inputs.map((input) => input.id))).toEqual([`tp-${TEAM}-name`, `tp-${TEAM}-baseUrl`, `tp-${TEAM}-headerWord`]);
    await screenshot(page, 'team-profiles-team-form-fr-dark');
    await noSeriousAxe('fr/dark team form');
    await page.getByRole('button', { name: 'Annuler' }).click();
  }, 120_000);

  it('once this desktop gives its keys, Verify answers with the team profile (en, dark)', async () => {
    await preferences('en', 'dark');
    await go(`#/settings?profile=${TEAM}`);
    await page.locator(`#tk-${TEAM}-paymentPublicKey`).fill(publicKey('payment'));
    await page.locator(`#tk-${TEAM}-payoutPublicKey`).fill(publicKey('payout'));
    await page.getByRole('button', { name: 'Save this desktop’s public keys' }).click();
    await page.getByText('Public keys saved.').waitFor();
    // The keychain is this machine's: desktop A's secrets are already there; B's own would go in the same entries.
    await go(`#/timeline/${journalId}`);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByRole('status', { name: 'Verify outcome' }).waitFor();
    await screenshot(page, 'team-profiles-verified-en-dark');
    expect(await page.content()).not.toContain(sandboxKeys()[0]!.secretKey);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
