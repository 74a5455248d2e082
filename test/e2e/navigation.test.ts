/**
 * The shell's shared mechanisms in a real Chromium over the real console (issue 16 items 1-3):
 * each screen has an address and Back/Forward walk them with filters kept; a screen opens at its
 * top; the Theme setting is remembered by main and drawn before the first paint; focus goes back
 * to what opened a dialog.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserDay, screenshot, startHarness, type Harness } from './harness';

let h: Harness;
let page: Page;
const file = join(tmpdir(), `paydesk-nav-orders-${process.pid}.csv`);
const ext = `nav-${process.pid}`;

const hash = () => page.evaluate(() => location.hash);
const scrollY = () => page.evaluate(() => window.scrollY);
const openNav = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name, exact: true }).click();

beforeAll(async () => {
  h = await startHarness({ viewport: { width: 1280, height: 700 } });
  page = h.page;
  for (let i = 0; i < 30; i += 1) {
    const created = await h.runtime.handlers['payments:create']({
      request: { payment_method: 'momo_cm', amount: 1000 + i, phone_number: '+237650000001', external_id: `${ext}-${i}`, customer: { first_name: 'Awa', last_name: `Ngo${i}`, email: 'awa@example.com' } },
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
  }
  const today = browserDay();
  writeFileSync(file, `external_id;kind;amount;expected_status;date\r\n${ext}-0;payment;1000;paid;${today}\r\n${ext}-1;payment;999;paid;${today}\r\n`);
  await page.goto(h.host.url);
  await page.getByRole('status', { name: 'Environment: sandbox, test money' }).waitFor();
}, 180_000);

afterAll(async () => {
  rmSync(file, { force: true });
  await h?.close();
});

describe('navigation', () => {
  it('gives each screen an address; Back and Forward walk the screens; History keeps its filters', async () => {
    expect(await hash()).toBe('#/overview');
    await openNav('History');
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(await hash()).toBe('#/history');
    await page.locator('#h-text').fill(`${ext}-1`);
    await page.locator('#h-status').selectOption('status:processing');
    // Typing replaces the address: the filters are in it, and Back does not walk through each letter.
    // The documented form (README): `status=processing`.
    await expect.poll(hash).toBe(`#/history?text=${ext}-1&status=processing`);
    await page.locator('#h-status').selectOption('');
    await expect.poll(hash).toBe(`#/history?text=${ext}-1`);
    const row = page.locator('.history-row .row-button').first();
    await row.waitFor();
    await expect.poll(() => page.locator('.history-row').count()).toBeLessThan(30);
    await row.click();
    await expect.poll(hash).toMatch(/^#\/timeline\/.+/);
    const transactionAddress = await hash();

    await page.goBack();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(await hash()).toBe(`#/history?text=${ext}-1`);
    expect(await page.locator('#h-text').inputValue()).toBe(`${ext}-1`);
    await expect.poll(() => page.locator('.history-row').count()).toBeLessThan(30);
    await page.goForward();
    await expect.poll(hash).toBe(transactionAddress);
    await page.goBack();
    await page.goBack();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await hash()).toBe('#/overview');
    // Back from the first screen stays in the console's own entries (the page opened on #/overview).
    expect(page.url().startsWith(h.host.url.split('#')[0]!)).toBe(true);
  });

  it('opens a transaction from a Reconcile row at its own address; Back returns to the report', async () => {
    await openNav('Reconcile');
    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByLabel('Still processing after (minutes)').fill('0');
    await page.getByRole('button', { name: 'Import and match' }).click();
    await page.locator('.reconcile-progress .pill-done').waitFor({ timeout: 60_000 });
    await page.locator('.reconcile-card[data-category="amount_differs"]').click();
    await page.getByRole('button', { name: /^Open the transaction of row/ }).first().click();
    await expect.poll(hash).toMatch(/^#\/timeline\/.+/);
    await page.goBack();
    // The report is a place of its own: its address names it (a reload keeps it, see screens-say-what).
    expect(await hash()).toMatch(/^#\/reconcile\?report=.+/);
    // The same report, with the category still chosen.
    await page.locator('.reconcile-card[data-category="amount_differs"][aria-pressed="true"]').waitFor();
    await page.goForward();
    await expect.poll(hash).toMatch(/^#\/timeline\/.+/);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  });

  it('opens each screen at its top, not at the previous screen’s scroll position', async () => {
    // Scrolled again at each poll: a screen's heading is drawn before the rest of it (its data, a lazy part), and a
    // scroll made while the page still fitted the window moved nothing (a chance failure in a clean-clone run).
    const scrollToBottom = async () => {
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      return scrollY();
    };
    await openNav('Settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await expect.poll(scrollToBottom).toBeGreaterThan(0);
    await openNav('Sandbox');
    await page.getByRole('heading', { name: 'Sandbox', level: 1 }).waitFor();
    expect(await scrollY()).toBe(0);
    await expect.poll(scrollToBottom).toBeGreaterThan(0);
    await page.goBack();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await scrollY()).toBe(0);
  });
});

describe('focus', () => {
  it('returns to the control that opened a dialog when it closes', async () => {
    await openNav('New payout');
    await page.locator('#payout-amount').fill('1500');
    await page.locator('#payout-phone').fill('+237650000001');
    await page.locator('#payout-first').fill('Awa');
    await page.locator('#payout-last').fill('Ngo');
    await page.locator('#payout-email').fill('awa@example.com');
    const review = page.getByRole('button', { name: 'Review payout' });
    await review.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Confirm payout' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Review payout');

    await h.runtime.handlers['profiles:save']({ name: 'Focus test', baseUrl: 'https://api.example.com', environment: 'sandbox', headerWord: 'SVC', paymentPublicKey: '', payoutPublicKey: '' });
    await openNav('Settings');
    await page.locator('.profile-list li', { hasText: 'Focus test' }).locator('button').first().click();
    await page.getByRole('button', { name: 'Delete Focus test' }).click();
    await page.getByRole('dialog', { name: 'Delete profile Focus test?' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Delete Focus test');
  });
});

describe('theme', () => {
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor + ' ' + getComputedStyle(document.querySelector('.app')!).color);
  const LIGHT = 'rgb(245, 246, 248) rgb(29, 35, 48)';
  const DARK = 'rgb(18, 23, 34) rgb(230, 233, 239)';

  it('follows the system by default, and a choice made in Settings is remembered by main and drawn from the first frame', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await openNav('Overview');
    expect(await page.evaluate(() => document.documentElement.dataset.theme ?? 'system')).toBe('system');
    expect(await background()).toBe(DARK);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe(LIGHT);

    await openNav('Settings');
    await page.getByLabel('Theme').selectOption('dark');
    await expect.poll(background).toBe(DARK);
    const info = await h.runtime.handlers['app:info']({});
    expect(info.ok && info.value.theme).toBe('dark');
    await screenshot(page, 'settings-dark');

    // A new page: dark before the app has asked main anything (the first frame), and still after.
    await page.evaluate(() => sessionStorage.setItem('paydesk.probe', '1'));
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        (window as unknown as { firstTheme: string }).firstTheme = getComputedStyle(document.documentElement).backgroundColor;
      });
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { firstTheme: string }).firstTheme)).toBe('rgb(18, 23, 34)');
    expect(await background()).toBe(DARK);

    await page.getByLabel('Theme').selectOption('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(background).toBe(LIGHT);
    await page.getByLabel('Theme').selectOption('system');
    await expect.poll(background).toBe(DARK);
  });
});
