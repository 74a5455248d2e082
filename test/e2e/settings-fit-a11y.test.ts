/**
 * The Settings screens of a team workspace in the axe and fit-to-1280 walks (issue 37 item 7; the
 * team's Overview, History and Audit are in team-screens-fit-a11y.test.ts, Approvals and its
 * policy in approvals-fit-a11y.test.ts): Settings with the workspace's card, a team profile (its
 * team tag, this desktop's keys), the team profile's form, a profile of this desktop only (Publish,
 * its secret keys), and People, over the real console host on a password workspace (an admin who
 * also sends, so every part shows), at 1280×800, in English and French, light and dark. No serious
 * axe finding; nothing cut, broken or wider than its box. Screenshots `settings-<part>-<language>-<theme>`.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { confSettingsBackend, createSettings } from '../../electron/console/settings';
import { createVault } from '../../electron/console/vault';
import { forgetWorkspacePassword } from '../../electron/console/storage/postgres/workspace-password';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { CHROMIUM } from '../preflight';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { expectOk } from '../console/helpers';
import { axeViolations, serious } from './axe';
import { fitProblems } from './fit';
import { ensureRendererBuilt, ROOT, screenshot } from './harness';
import { choosePreferences } from './preferences';

let workspace: PasswordWorkspace;
let browser: Browser;
let page: Page;
let consoleHost: ConsoleHost | null = null;
let host: BrowserHost | null = null;
const pageErrors: string[] = [];
const TEAM = 'team-sandbox-douala';
const LOGIN = 'admin_demo';

beforeAll(async () => {
  ensureRendererBuilt();
  workspace = await startPasswordWorkspace();
  await (await workspace.owner()).query('GRANT paydesk_finance TO admin_demo');
  const dir = makeTempDir('paydesk-e2e-settings-');
  createSettings(confSettingsBackend(dir)).saveProfile({ id: 'my-sandbox', name: 'Moteur de test de l’agence centrale de Douala', baseUrl: 'http://127.0.0.1:9/', environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: '', payoutPublicKey: '' });
  consoleHost = await startConsoleHost({ userDataDir: dir, transport: 'browser', allowLive: false, version: '0.1.0', engine: false, client: { retry: { attempts: 1 } } });
  expectOk(await consoleHost.handlers['workspace:use']({ connection: workspace.connection(LOGIN), password: workspace.passwords[LOGIN]! }));
  expectOk(await consoleHost.handlers['teamProfiles:save']({ id: TEAM, name: 'Bac à sable de l’équipe, agence centrale', baseUrl: 'http://127.0.0.1:9/', environment: 'sandbox', headerWord: 'SVC' }));

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, locale: 'en-GB' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  host = await startBrowserHost({ handlers: consoleHost.handlers, events: consoleHost, staticDir: resolve(ROOT, 'dist/renderer'), port: 0 });
  await page.goto(host.url);
  await page.locator('.workspace-badge[data-state="open"]').waitFor();
}, 180_000);

afterAll(async () => {
  await host?.close();
  await consoleHost?.close();
  await browser?.close();
  if (workspace) await forgetWorkspacePassword(createVault(), workspace.connection(LOGIN));
  await workspace?.stop();
});

async function go(hash: string): Promise<void> {
  await page.evaluate((to) => (location.hash = to), hash);
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0, undefined, { timeout: 30_000 }).catch(() => undefined);
}

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('the Settings screens on a team workspace in %s, %s theme at 1280×800', (language, theme) => {
  it('have no serious axe finding and nothing cut, broken or wider than its box', async () => {
    await choosePreferences(page, language, theme);
    const problems: string[] = [];
    const check = async (part: string) => {
      for (const f of serious(await axeViolations(page))) problems.push(`${part}: axe ${f.impact} ${f.id} ${f.targets.join(' | ')}`);
      for (const problem of await fitProblems(page)) problems.push(`${part}: ${problem}`);
      await screenshot(page, `settings-${part}-${language}-${theme}`);
    };

    // The workspace's card: where this console records, as whom.
    await go('#/settings');
    await page.locator('.workspace-badge[data-state="open"]').waitFor();
    await check('workspace');
    // A team profile: its team tag and this desktop's keys for it.
    await go(`#/settings?profile=${TEAM}`);
    await page.locator('.profile-list li.selected .scope-tag').waitFor();
    await page.locator('.profile-detail').scrollIntoViewIfNeeded();
    await check('team-profile');
    // The team profile's form (an admin's).
    await page.locator('.profile-detail').getByRole('button', { name: language === 'en' ? /^Edit / : /^Modifier / }).first().click();
    await page.locator(`#tp-${TEAM}-name`).waitFor();
    await check('team-profile-form');
    await page.getByRole('button', { name: language === 'en' ? 'Cancel' : 'Annuler', exact: true }).click();
    // A profile of this desktop only: Publish, and its secret keys.
    await go('#/settings?profile=my-sandbox');
    await page.locator('.profile-list li.selected .scope-tag').waitFor();
    await page.locator('.profile-detail').scrollIntoViewIfNeeded();
    await check('desktop-profile');
    // People: the logins, their roles and status.
    await go('#/people');
    await page.locator('main table tbody tr').first().waitFor({ timeout: 30_000 });
    await check('people');

    if (problems.length > 0) console.log(`${language}/${theme}: ${problems.length} problems\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
