/**
 * The Audit screen in a real Chromium over a console on a team workspace (samuel, support: every
 * role reads the log): the lines written by the database and by desktops (a policy change asked by adele and applied by tester,
 * fatou's send with a formula-like remark, kofi's sign-in), filtered by who and by action, and the
 * exported file holding exactly the kept lines, formula-guarded. axe-clean in English and French,
 * light and dark; screenshots in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readCsv } from '../../shared/csv';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';


const team = useWorkspacePage({
  person: 'samuel', tiers: [{ minAmount: 100_000, approvals: 1 }],
  before: async (workspaces, database) => {
    const fatou = await workspaces.connectAs('fatou', database);
    await fatou.query(`SELECT paydesk_audit('send', 'entry:INV-2026-0042', NULL, '{"amount": 250000, "currency": "XAF"}', '=SUM(A1:A9)')`);
    await fatou.end();
    const kofi = await workspaces.connectAs('kofi', database);
    await kofi.query(`SELECT paydesk_audit('sign_in', 'kofi')`);
    await kofi.end();
  },
});
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function openAudit(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/audit'));
  await page.locator('#audit-title').waitFor({ timeout: 30_000 });
}

const bodyRows = () => page.locator('table.audit-table tbody tr');

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('the Audit screen in %s, %s theme', (language, theme) => {
  it('shows every line newest first, with no serious axe finding', async () => {
    await choosePreferences(page, language, theme);
    await openAudit();
    // The policy's three lines (adele asks, tester's approval applies it: migration 46), fatou's send, kofi's sign-in, and this console's own sign-in (samuel's, newest).
    await expect.poll(() => bodyRows().count()).toBe(6);
    expect(await bodyRows().first().locator('td').nth(1).innerText()).toBe('samuel');
    const text = await page.locator('main').innerText();
    expect(text).toContain(language === 'fr' ? 'A modifié la politique d’approbation' : 'Changed the approval policy');
    expect(text).toContain('amount: 250000');
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `audit-${language}-${theme}`);
  });
});

describe('filters and export', () => {
  it('keeps the lines of who and what, and exports exactly those, formula-guarded', async () => {
    await choosePreferences(page, 'en', 'light');
    await openAudit();
    await expect.poll(() => bodyRows().count()).toBe(6);
    await page.getByLabel('Who (login)').fill('fatou');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => bodyRows().count()).toBe(1);
    expect(await bodyRows().first().locator('td').nth(2).innerText()).toBe('Sent');

    await page.getByLabel('Who (login)').fill('');
    await page.getByLabel('Action').selectOption('policy_change');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => bodyRows().count()).toBe(1);
    expect(await bodyRows().first().locator('td').nth(1).innerText()).toBe('tester');

    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('Subject contains').fill('inv-2026');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => bodyRows().count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const file = await download.path().then((path) => import('node:fs/promises').then((fs) => fs.readFile(path!, 'utf8')));
    const read = readCsv(file);
    if (!read.ok) throw new Error(read.problem.message);
    const records = read.file.records.filter((r) => r.length > 1);
    expect(records.map((r) => r.slice(1))).toEqual([
      ['Who', 'Action', 'Subject', 'Before', 'After', 'Remark'],
      ['fatou', 'send', 'entry:INV-2026-0042', '', 'amount: 250000, currency: XAF', "'=SUM(A1:A9)"],
    ]);
    await page.getByText(/1 line exported to paydesk-audit-/).waitFor();
    await screenshot(page, 'audit-filtered-en-light');
    expect(team.h.pageErrors).toEqual([]);
  });
});
