/**
 * The nav's count of what waits for this login (issue 25 item 6), in a real Chromium over kofi's
 * console on a team workspace: two requests fatou asked show as 2 beside Approvals; a third she
 * asks from her own desktop shows as 3 without any reload or polling (PostgreSQL NOTIFY → the
 * console's push → the renderer reads again). axe-clean in English and French, light and dark;
 * screenshots in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { payoutRequest } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { useWorkspacePage } from './workspace-page';

const fatou = () => team.workspaces.storeAs('fatou', team.database).approvals!;

const team = useWorkspacePage({
  person: 'kofi', tiers: [{ minAmount: 100_000, approvals: 1 }],
  before: async () => {
    await fatou().askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 250_000, external_id: 'INV-2026-0042' }), 'Supplier invoice 42');
    await fatou().askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 120_000, external_id: 'INV-2026-0043' }));
  },
});
let page: Page;
beforeAll(() => {
  page = team.page;
});

const badge = () => page.locator('nav .nav-badge');

describe('the Approvals count in the navigation', () => {
  it('shows what waits, then a request asked on another desktop, with no reload', async () => {
    await expect.poll(() => badge().textContent(), { timeout: 30_000 }).toBe('2');
    const before = await page.evaluate(() => performance.getEntriesByType('navigation').length + ':' + String(performance.timeOrigin));
    // The browser host's permission, as a click on "Turn on desktop notifications" gives it; each
    // notification the page makes is recorded (and still shown by Chromium).
    await page.context().grantPermissions(['notifications'], { origin: new URL(team.h.host.url).origin });
    await page.evaluate(() => {
      const Real = window.Notification;
      const made: string[] = [];
      (window as unknown as { made: string[] }).made = made;
      window.Notification = class extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          made.push(`${title} | ${options?.body ?? ''}`);
        }
      } as typeof Notification;
    });
    expect(await page.evaluate(() => Notification.permission)).toBe('granted');
    await fatou().askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 300_000, external_id: 'INV-2026-0044' }));
    await expect.poll(() => badge().textContent(), { timeout: 30_000 }).toBe('3');
    // The same page: the count came by the push, not a reload.
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length + ':' + String(performance.timeOrigin))).toBe(before);
    expect(await page.locator('nav').innerText()).toContain('Approvals');
    await expect.poll(() => page.evaluate(() => (window as unknown as { made: string[] }).made)).toEqual(['3 payouts wait for your approval | Open Approvals in Paydesk to approve or reject.']);
  });

  it.each([
    ['en', 'light'],
    ['en', 'dark'],
    ['fr', 'light'],
    ['fr', 'dark'],
  ] as const)('reads well in %s, %s theme, with no serious axe finding', async (language, theme) => {
    await page.evaluate(() => (location.hash = '#/settings'));
    await page.locator('#language-choice').selectOption(language);
    await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
    await page.locator('#theme-choice').selectOption(theme);
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    await page.evaluate(() => (location.hash = '#/overview'));
    await expect.poll(() => badge().textContent(), { timeout: 30_000 }).toBe('3');
    const words = await page.locator('nav').evaluate((nav) => nav.textContent);
    expect(words).toContain(language === 'fr' ? '3 demandes attendent votre approbation' : '3 requests wait for your approval');
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `approvals-badge-${language}-${theme}`);
  });
});
