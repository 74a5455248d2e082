/**
 * An admin-only login's console in a real Chromium over the real console host (the browser host's
 * --workspace, a real PostgreSQL with password logins; docs/decisions/start-up-by-role.md): it
 * opens (it failed at start before), the header says admin; Look up, Reconcile and Bulk payouts
 * say what the role may not do instead of failing, in English and in French; the approval policy
 * is edited and saved from the Approvals screen; and the Audit screen, left open, shows that save
 * and then a line another person writes on another desktop without anyone pressing Apply (change
 * events, no polling); a transaction's page shows Verify disabled with the reason. Screenshots `admin-<screen>-<language>` in test-results/screenshots.
 */
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../electron/browser-host/server';
import { startConsoleHost, type ConsoleHost } from '../../electron/console/workspace/console-host';
import { CHROMIUM } from '../preflight';
import { makeTempDir } from '../temp-dir';
import { startPasswordWorkspace, type PasswordWorkspace } from '../helpers/password-workspace';
import { axeViolations, serious } from './axe';
import { ensureRendererBuilt, ROOT, screenshot } from './harness';
import { choosePreferences } from './preferences';

let workspace: PasswordWorkspace;
let browser: Browser;
let page: Page;
let consoleHost: ConsoleHost | null = null;
let host: BrowserHost | null = null;
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureRendererBuilt();
  workspace = await startPasswordWorkspace();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, locale: 'en-GB' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  consoleHost = await startConsoleHost({
    userDataDir: makeTempDir('paydesk-e2e-admin-'),
    transport: 'browser',
    allowLive: false,
    version: '0.1.0',
    engine: { settleMs: 800 },
    workspace: workspace.connection('admin_demo', { tls: 'off' }),
    workspacePassword: workspace.passwords.admin_demo,
  });
  host = await startBrowserHost({ handlers: consoleHost.handlers, events: consoleHost, staticDir: resolve(ROOT, 'dist/renderer'), port: 0 });
  await page.goto(host.url);
  await page.locator('.workspace-badge[data-state="open"]').waitFor();
}, 180_000);

afterAll(async () => {
  await host?.close();
  await consoleHost?.close();
  await browser?.close();
  await workspace?.stop();
});

async function go(screen: string): Promise<void> {
  await page.evaluate((hash) => (location.hash = hash), `#/${screen}`);
  await page.locator('main h1').first().waitFor();
}

const NOTES = {
  en: {
    lookup: 'Your workspace role (admin) may not look up or reconcile',
    batches: 'Your workspace role (admin) may not send, look up or reconcile',
  },
  fr: {
    lookup: 'Votre rôle dans l’espace (administration) ne permet pas de rechercher ni de rapprocher',
    batches: 'Votre rôle dans l’espace (administration) ne permet pas d’envoyer, de rechercher ni de rapprocher',
  },
} as const;

describe('a console opened as an admin-only login', () => {
  it.each(['en', 'fr'] as const)('says what the role may not do instead of failing (%s)', async (language) => {
    await choosePreferences(page, language, language === 'en' ? 'light' : 'dark');
    expect(await page.locator('.workspace-badge').textContent()).toContain(language === 'en' ? 'admin_demo · admin' : 'admin_demo · administration');
    for (const [screen, note, button] of [
      ['lookup', NOTES[language].lookup, 'main form button[type="submit"]'],
      ['reconcile', NOTES[language].lookup, '.reconcile-form button[type="submit"]'],
      ['batches', NOTES[language].batches, '.batch-import button.primary'],
    ] as const) {
      await go(screen);
      await page.locator('main [role="note"]', { hasText: note }).waitFor();
      expect(await page.locator(button).first().isDisabled()).toBe(true);
      expect(await page.locator('main .notice-error').count()).toBe(0);
      expect(serious(await axeViolations(page)).map((f) => `${screen}: ${f.id}`)).toEqual([]);
      await screenshot(page, `admin-${screen}-${language}`);
    }
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it.each(['en', 'fr'] as const)('shows Verify disabled with the reason on a transaction’s page (%s)', async (language) => {
    const finance = new pg.Client({ host: '127.0.0.1', port: workspace.port, database: workspace.database, user: 'finance_demo', password: workspace.passwords.finance_demo });
    await finance.connect();
    await finance.query(
      `INSERT INTO entries (id, profile_id, profile_name, environment, kind, state, transaction_id, status, external_id, amount, currency, phone_number, payment_method,
         customer_first_name, customer_last_name, customer_email, created_at, updated_at)
       VALUES ($1, 'local-sandbox', 'Local sandbox', 'sandbox', 'payout', 'known', $2, 'processing', $3, 15000, 'XAF', '+237650000001', 'momo_cm', 'Awa', 'Ngo', 'awa@example.com', $4, $4)`,
      [`admin-verify-${language}`, `tx-admin-verify-${language}`, `ADMIN-VERIFY-${language.toUpperCase()}`, Date.now()],
    );
    await finance.end();
    await choosePreferences(page, language, language === 'en' ? 'light' : 'dark');
    await page.evaluate((id) => (location.hash = `#/timeline/${id}`), `admin-verify-${language}`);
    await page.locator('#timeline-title').waitFor({ timeout: 30_000 });
    const verify = page.getByRole('button', { name: language === 'en' ? 'Verify' : 'Vérifier', exact: true });
    expect(await verify.isDisabled()).toBe(true);
    await page.locator('main [role="note"]', { hasText: language === 'en' ? 'Your workspace role (admin) may not Verify' : 'Votre rôle dans l’espace (administration) ne permet pas de Vérifier' }).waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `admin-timeline-${language}`);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('asks a policy change, and the Audit screen shows the ask and then another desktop’s line without Apply', async () => {
    await choosePreferences(page, 'en', 'light');
    await go('approvals');
    await page.locator('section.approval-policy').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Add a tier' }).click();
    await page.getByLabel('Tier 1: from amount (XAF)').fill('150 000');
    await page.getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }).click();
    await page.getByText(/Change #\d+ to the Sandbox XAF policy is asked/).waitFor();

    await go('audit');
    const rows = page.locator('table.audit-table tbody tr');
    // The policy change asked (a second admin applies it: migration 46) over this console's own sign-in.
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().locator('td').nth(1).innerText()).toBe('admin_demo');

    // finance_demo signs in on another desktop: the line appears here on its own.
    const finance = new pg.Client({ host: '127.0.0.1', port: workspace.port, database: workspace.database, user: 'finance_demo', password: workspace.passwords.finance_demo });
    await finance.connect();
    await finance.query(`SELECT paydesk_audit('sign_in', 'finance_demo')`);
    await finance.end();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    expect(await rows.first().locator('td').nth(1).innerText()).toBe('finance_demo');
    await screenshot(page, 'admin-audit-live-en');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
