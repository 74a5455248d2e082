/**
 * The approval policy editor in a real Chromium over a console on a team workspace, signed in as
 * an admin (tester: admin and finance; an admin-only login's console: admin-console.test.ts):
 * the policy's tiers shown per environment and currency, a tier out of order refused on its field,
 * a valid table asked as it reads, applied once adele (a second admin) approves it, and read back from the database.
 * axe-clean in English and French, light and dark; screenshots in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';


const team = useWorkspacePage({ person: 'tester', tiers: [{ minAmount: 100_000, approvals: 1 }, { minAmount: 1_000_000, approvals: 2, role: 'paydesk_admin' }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function openPolicy(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/approvals'));
  await page.locator('#policy-tier-1-from').waitFor({ timeout: 30_000 });
}

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('the approval policy in %s, %s theme', (language, theme) => {
  it('shows the tiers with a field error, with no serious axe finding', async () => {
    await choosePreferences(page, language, theme);
    await openPolicy();
    const section = page.locator('section.approval-policy');
    await section.scrollIntoViewIfNeeded();
    const text = await section.innerText();
    expect(text).toMatch(language === 'fr' ? /1\s000\s000\s*FCFA/ : /1,000,000 XAF/);
    // A tier below the one above it: refused on its field, in the language on screen.
    await page.locator('#policy-tier-1-from').fill('50000');
    await section.locator('button[type="submit"]').click();
    await section.locator('#policy-tier-1-error').waitFor();
    expect(await section.locator('#policy-tier-1-error').innerText()).toBe(
      language === 'fr' ? 'Rangez les paliers par ordre croissant : ce montant est inférieur à celui du palier au-dessus.' : 'List the tiers in ascending order: this amount is below the tier above it.',
    );
    expect(serious(await axeViolations(page))).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, `approval-policy-${language}-${theme}`);
    await page.locator('#policy-tier-1-from').fill('1000000');
  });
});

describe('asking', () => {
  it('asks the table as it reads; the database has it once a second admin approves, applied by her', async () => {
    await choosePreferences(page, 'en', 'light');
    await openPolicy();
    await page.getByRole('button', { name: 'Add a tier' }).click();
    await page.getByLabel('Tier 3: from amount (XAF)').fill('5 000 000');
    await page.getByLabel('Tier 3: approvals needed').selectOption({ label: 'two approvals' });
    await page.getByLabel('Tier 3: approver role').selectOption({ label: 'by an admin' });
    await page.getByRole('button', { name: 'Remove tier 1' }).click();
    await page.getByRole('button', { name: 'Ask to change the Sandbox XAF policy' }).click();
    const asked = page.getByText(/Change #\d+ to the Sandbox XAF policy is asked/);
    await asked.waitFor();
    // Asked, not applied: the policy is as it was until adele, a second admin, approves it.
    const before = await team.workspaces.storeAs('fatou', team.database).approvals!.policy();
    expect(before.map((t) => t.minAmount)).not.toContain(5_000_000);
    const id = Number(/#(\d+)/.exec(await asked.innerText())![1]);
    const adele = await team.workspaces.connectAs('adele', team.database);
    await adele.query('SELECT paydesk_approve_change($1)', [id]);
    await adele.end();
    const tiers = await team.workspaces.storeAs('fatou', team.database).approvals!.policy();
    expect(tiers.map((t) => [t.minAmount, t.approvals, t.approverRole, t.updatedBy])).toEqual([
      [1_000_000, 2, 'admin', expect.any(String)],
      [5_000_000, 2, 'admin', 'adele'],
    ]);
    expect(team.h.pageErrors).toEqual([]);
    await screenshot(page, 'approval-policy-saved-en-light');
  });
});
