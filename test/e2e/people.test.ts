/**
 * The People screen in a real Chromium over adele's console (an admin) on a team workspace, at
 * 1280×800: the logins with their display name, role and status; adding a person is asked, not
 * done (the new login appears once tester, a second admin, approves in the database); a password
 * reset and a disable wait the same way; adele cannot approve her own change and sees the one
 * tester asked with Approve and Reject; a login refused by the form names its field. English and
 * French, axe on each, every cell fitting; screenshots in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { fitProblems } from './fit';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';

const team = useWorkspacePage({ person: 'adele', tiers: [{ minAmount: 100_000, approvals: 1 }], viewport: { width: 1280, height: 800 } });
let page: Page;
beforeAll(() => {
  page = team.page;
});

/** Opens People afresh (by way of Audit when it is open already: the screen reads the workspace when it opens). */
async function openPeople(): Promise<void> {
  if (await page.locator('#people-title').count()) {
    await page.evaluate(() => (location.hash = '#/audit'));
    await page.locator('#audit-title').waitFor({ timeout: 30_000 });
  }
  await page.evaluate(() => (location.hash = '#/people'));
  await page.locator('#people-title').waitFor({ timeout: 30_000 });
  await page.locator('table.people-table').waitFor();
}

/** The screen's answer to the last ask or decision (the header's environment marker is a status too). */
const answer = () => page.locator('main p[role="status"]');
const row = (login: string) => page.locator('table.people-table tbody tr', { has: page.locator('th code', { hasText: new RegExp(`^${login}$`) }) });

async function tester<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = await team.workspaces.connectAs('tester', team.database);
  const { rows } = await client.query(sql, params);
  await client.end();
  return rows as T[];
}

describe('the People screen', () => {
  it('is in an admin’s nav and lists the logins with role and status, axe-clean and fitting at 1280 px', async () => {
    await choosePreferences(page, 'en', 'light');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'People' }).waitFor();
    await openPeople();
    expect(await row('fatou').locator('td').nth(1).innerText()).toBe('Finance');
    expect(await row('adele').innerText()).toContain('(you)');
    // adele and tester: two admins, so no one-admin warning.
    expect(await page.locator('main').innerText()).toContain('This workspace has 2 admins');
    expect(serious(await axeViolations(page))).toEqual([]);
    expect(await fitProblems(page)).toEqual([]);
    await screenshot(page, 'people-en-light');
  });

  it('asks to add a person, shows it waiting, and lists the login once a second admin approves', async () => {
    await openPeople();
    // A login the workspace refuses is named at its field, nothing asked.
    await page.getByLabel('Login', { exact: true }).fill('Nadia Ekwueme');
    await page.getByLabel('Display name').fill('Nadia Ekwueme');
    await page.getByLabel('Initial password').fill('short');
    await page.getByRole('button', { name: 'Ask to add this person' }).click();
    await page.locator('#person-login-error').waitFor();
    expect(await page.locator('#person-password-error').innerText()).toBe('Use at least 12 characters.');
    expect(await page.getByLabel('Login', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Login', { exact: true }).fill('nadia');
    await page.getByLabel('Role').selectOption('support');
    await page.getByLabel('Initial password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Ask to add this person' }).click();
    const asked = answer();
    await expect.poll(() => asked.innerText()).toMatch(/^Change #\d+ is asked\. It takes effect when a second admin/);
    const id = Number(/#(\d+)/.exec(await asked.innerText())![1]);
    const waiting = page.locator('#people-changes-title').locator('xpath=..');
    // The list is read again after the answer is shown.
    await expect.poll(() => waiting.innerText()).toContain(`#${id} Add nadia (Nadia Ekwueme) as Support`);
    // Her own change: withdraw, never approve.
    expect(await page.getByRole('button', { name: `Approve change #${id}` }).count()).toBe(0);
    await page.getByRole('button', { name: `Withdraw change #${id}` }).waitFor();
    expect(await row('nadia').count()).toBe(0);
    await screenshot(page, 'people-asked-en-light');

    await tester('SELECT paydesk_approve_change($1)', [id]);
    await openPeople();
    await row('nadia').waitFor();
    expect(await row('nadia').innerText()).toContain('Nadia Ekwueme');
    expect(await row('nadia').locator('td').nth(1).innerText()).toBe('Support');
  });

  it('approves what another admin asked; a reset and a disable wait for a second admin', async () => {
    const [asked] = await tester<{ id: string }>(`SELECT paydesk_ask_role('samuel', 'paydesk_finance', true) AS id`);
    await openPeople();
    await page.getByRole('button', { name: `Approve change #${asked!.id}` }).click();
    await expect.poll(() => answer().innerText()).toBe(`Change #${asked!.id} is applied.`);
    await expect.poll(() => row('samuel').locator('td').nth(1).innerText()).toBe('Finance, Support');

    await row('kofi').getByRole('button', { name: 'Disable login kofi' }).click();
    await expect.poll(() => answer().innerText()).toMatch(/is asked/);
    expect(await row('kofi').locator('td').nth(2).innerText()).toBe('Active');
    await row('kofi').getByRole('button', { name: 'Reset password' }).click();
    await page.getByLabel('New password for kofi').fill('another long password');
    await page.getByRole('button', { name: 'Ask to reset' }).click();
    await expect.poll(() => page.locator('#people-changes-title').locator('xpath=..').innerText()).toContain('Reset the password of kofi');
    expect(serious(await axeViolations(page))).toEqual([]);
    expect(await fitProblems(page)).toEqual([]);
    await screenshot(page, 'people-waiting-en-light');
  });

  it('reads in French, axe-clean and fitting', async () => {
    await choosePreferences(page, 'fr', 'light');
    await openPeople();
    const text = await page.locator('main').innerText();
    expect(text).toContain('Modifications en attente d’un second administrateur');
    expect(text).toContain('Réinitialiser le mot de passe de kofi');
    expect(await page.getByRole('button', { name: 'Demander l’ajout de cette personne' }).count()).toBe(1);
    expect(serious(await axeViolations(page))).toEqual([]);
    expect(await fitProblems(page)).toEqual([]);
    await screenshot(page, 'people-fr-light');
    await choosePreferences(page, 'en', 'light');
  });
});
