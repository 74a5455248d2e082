/**
 * The Approvals screen in a real Chromium over a console on a team workspace (kofi, finance):
 * what fatou asked waits for him (a payout and a batch, who asked, when, amount or total, rows,
 * environment), what he asked himself offers Withdraw and never Approve; approve with a remark,
 * reject only with one, withdraw; each answer shown and recorded by the database as kofi.
 * axe-clean in English and French, light and dark; screenshots in test-results/screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkedRows, payoutRequest } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';

const ids = { payout: 0, batch: 0, own: 0 };

const team = useWorkspacePage({
  person: 'kofi', tiers: [{ minAmount: 100_000, approvals: 1 }],
  before: async (workspaces, database) => {
    const fatou = workspaces.storeAs('fatou', database);
    ids.payout = (await fatou.approvals!.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 250_000, external_id: 'INV-2026-0042' }), 'Supplier invoice 42'))!.id;
    await fatou.batches.create({ id: 'b-march', fileName: 'march-suppliers.csv', fileHash: 'h', profile: { id: 'local-sandbox', name: 'Local sandbox', environment: 'sandbox' }, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20), at: Date.now() });
    ids.batch = (await fatou.approvals!.askBatch('b-march', 'XAF', 'March suppliers'))!.id;
    const kofi = workspaces.storeAs('kofi', database);
    ids.own = (await kofi.approvals!.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 180_000, external_id: 'INV-2026-0050' })))!.id;
  },
});
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function openApprovals(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/approvals'));
  await page.locator('#approvals-forMe-title').waitFor({ timeout: 30_000 });
}

describe.each([
  ['en', 'light'],
  ['en', 'dark'],
  ['fr', 'light'],
  ['fr', 'dark'],
] as const)('the Approvals screen in %s, %s theme', (language, theme) => {
  it('lists what waits and what was asked, with no serious axe finding', async () => {
    await choosePreferences(page, language, theme);
    await openApprovals();
    const waiting = page.locator('section[aria-labelledby="approvals-forMe-title"] .approval-card');
    await expect.poll(() => waiting.count()).toBe(2);
    const mine = page.locator('section[aria-labelledby="approvals-mine-title"] .approval-card');
    expect(await mine.count()).toBe(1);
    // What he asked himself: Withdraw, never Approve or Reject.
    expect(await mine.locator('button.primary').count()).toBe(0);
    expect(await mine.locator('button.secondary').count()).toBe(1);
    const text = await page.locator('main').innerText();
    expect(text).toContain('fatou');
    expect(text).toMatch(language === 'fr' ? /250\s000\s*FCFA|250\s000/ : /250,000/);
    expect(text).toContain(language === 'fr' ? 'Lot' : 'Batch');
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `approvals-${language}-${theme}`);
  });
});

describe('deciding', () => {
  it('approves with a remark, rejects only with one, withdraws what he asked; the database records kofi', async () => {
    await choosePreferences(page, 'en', 'light');
    await openApprovals();
    await page.getByLabel(`Remark on request ${ids.payout}`).fill('Invoice matches the PO');
    await page.locator(`button[aria-label^="Approve request ${ids.payout}:"]`).click();
    await page.getByText(`Request ${ids.payout} is approved: it may be sent now.`).waitFor();

    const reject = page.locator(`button[aria-label^="Reject request ${ids.batch}:"]`);
    expect(await reject.isDisabled()).toBe(true);
    await page.getByLabel(`Remark on request ${ids.batch}`).fill('Row 7 pays the wrong supplier');
    await reject.click();
    await page.getByText(`Request ${ids.batch} is rejected.`).waitFor();

    // Withdraw asks first (issue 37 item 1).
    await page.locator(`button[aria-label^="Withdraw request ${ids.own}:"]`).click();
    await page.getByRole('button', { name: 'Yes, withdraw it' }).click();
    await page.getByText(`Request ${ids.own} is withdrawn.`).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('section[aria-labelledby="approvals-forMe-title"] .approval-card').length === 0);
    await screenshot(page, 'approvals-after-decisions-en-light');

    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    expect(await fatou.get(ids.payout)).toMatchObject({ state: 'approved', decidedBy: 'kofi', votes: [{ voter: 'kofi', vote: 'approve', remark: 'Invoice matches the PO' }] });
    expect(await fatou.get(ids.batch)).toMatchObject({ state: 'rejected', decidedBy: 'kofi', remark: 'Row 7 pays the wrong supplier' });
    expect(await fatou.get(ids.own)).toMatchObject({ state: 'withdrawn', decidedBy: 'kofi' });
    expect(team.h.pageErrors).toEqual([]);
  });

  it('says plainly when the request was withdrawn while it was on screen, and shows its new state', async () => {
    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    const asked = (await fatou.askPayout({ id: 'local-sandbox', environment: 'sandbox' }, 'XAF', payoutRequest({ amount: 300_000, external_id: 'INV-2026-0077' })))!;
    await page.getByRole('button', { name: 'Refresh' }).click();
    const approve = page.locator(`button[aria-label^="Approve request ${asked.id}:"]`);
    await approve.waitFor();
    // Withdrawn between kofi's click and the console's answer (a withdrawal seen before the click
    // takes the card off his screen: the change events re-read the list): held at the page's call.
    await page.route('**/api/invoke/approvals:approve', async (route) => {
      await fatou.withdraw(asked.id, 'wrong supplier');
      await route.continue();
    });
    await approve.click();
    await page.getByText('This request is no longer waiting: someone decided it, or it was withdrawn.').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('section[aria-labelledby="approvals-forMe-title"] .approval-card').length === 0);
    expect(await fatou.get(asked.id)).toMatchObject({ state: 'withdrawn', votes: [] });
    await page.unroute('**/api/invoke/approvals:approve');
    await screenshot(page, 'approvals-withdrawn-meanwhile-en-light');
  });
});
