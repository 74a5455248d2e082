/**
 * History on a team workspace shows what waits for approval (issue 37 item 1), in a real Chromium
 * over fatou's console (one approval from 100,000 XAF): a group above the transactions with each
 * request's state, amount, recipient and external id, opening its approval card; no transaction
 * status, no Verify. The approved one is sent from the card it opens, and is then its entry, once.
 * Search finds a waiting request by its external id; Look up says it awaits approval. English and
 * French, axe and 1280 px in both themes; screenshots for docs/approvals.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { paymentRequest } from '../console/helpers';

const team = useWorkspacePage({ person: 'fatou', tiers: [{ minAmount: 100_000, approvals: 1 }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

const PROFILE = { id: LOCAL_SANDBOX_ID, environment: 'sandbox' as const };

async function openHistory(): Promise<void> {
  await page.evaluate(() => (location.hash = '#/history'));
  await page.locator('#history-title').waitFor({ timeout: 30_000 });
}

describe.each(['en', 'fr'] as const)('History’s requests waiting for approval, in %s', (language) => {
  it('shows them above the transactions with their state, opens the card, and a sent one becomes its entry, once', async () => {
    // Invoice numbers, one month per language (both languages share the workspace).
    const tag = language === 'en' ? '2026-11' : '2026-12';
    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    const waiting = (await fatou.askPayout(PROFILE, 'XAF', paymentRequest({ amount: 250_000, external_id: `INV-${tag}-0412`, customer: { first_name: 'Awa', last_name: 'Nkemdirim', email: 'awa@example.com' } })))!;
    const ready = (await fatou.askPayout(PROFILE, 'XAF', paymentRequest({ amount: 400_000, external_id: `INV-${tag}-0413`, phone_number: '+237650000002', customer: { first_name: 'Jean', last_name: 'Mbarga', email: 'jean@example.com' } })))!;
    await team.workspaces.storeAs('kofi', team.database).approvals!.approve(ready.id, ready.digest, 'invoice checked');

    await page.setViewportSize({ width: 1280, height: 800 });
    const row = (id: number) => page.getByTestId(`history-unsent-${id}`);
    for (const theme of ['light', 'dark'] as const) {
      await choosePreferences(page, language, theme);
      await openHistory();
      await row(ready.id).waitFor();
      expect(await row(waiting.id).getAttribute('data-state')).toBe('awaiting');
      expect(await row(ready.id).getAttribute('data-state')).toBe('ready');
      expect(serious(await axeViolations(page))).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      await screenshot(page, `approval-7-history-waiting-${language}-${theme}`);
    }
    await choosePreferences(page, language, 'light');
    await openHistory();
    const heading = await page.locator('#history-unsent-title').innerText();
    expect(heading).toContain(language === 'en' ? 'Waiting for approval' : 'En attente d’approbation');
    const readyText = await row(ready.id).innerText();
    expect(readyText).toContain(language === 'en' ? 'Approved, ready to send' : 'Approuvé, prêt à envoyer');
    expect(readyText).toContain(`INV-${tag}-0413`);
    expect(readyText).toContain('Jean Mbarga');
    expect(readyText).toMatch(/400[\s\u00a0\u202f,.]?000/);
    expect(await row(waiting.id).innerText()).toContain(language === 'en' ? 'Awaiting approval' : 'En attente d’approbation');
    // An approval request, not a transaction: no service status, no Verify.
    expect(await page.locator('.history-unsent .badge-processing, .history-unsent .badge-completed').count()).toBe(0);
    expect(await page.locator('.history-unsent').getByRole('button', { name: /verify|vérifier/i }).count()).toBe(0);

    // Search by external id finds the waiting one, and only it.
    await page.locator('#h-text').fill(`INV-${tag}-0412`);
    await expect.poll(async () => page.locator('.unsent-row').count()).toBe(1);
    await row(waiting.id).waitFor();
    await page.locator('#h-text').fill('');
    await row(ready.id).waitFor();

    // The row opens its approval card, where the maker sends it with one action.
    await row(ready.id).getByRole('button').click();
    await page.waitForFunction((id) => location.hash.startsWith('#/approvals') && location.hash.includes(`request=${id}`), ready.id);
    const card = page.locator('.approval-card', { has: page.locator(`#approval-${ready.id}-title`) });
    await expect.poll(async () => card.evaluate((el) => el === document.activeElement)).toBe(true);
    await card.locator('.approval-send button').click();
    await page.waitForFunction(() => location.hash.startsWith('#/timeline/'));
    await expect.poll(async () => (await fatou.get(ready.id))!.sent).toBe(true);

    // Sent: its entry in the list, marked as approved; no row above it any more.
    await openHistory();
    await page.locator('#h-text').fill(`INV-${tag}-0413`);
    // The search applied (debounced): one row in all, the entry, marked as sent under its approval.
    await expect.poll(async () => [await page.locator('.history-list .history-row').count(), await page.locator('.unsent-row').count()], { timeout: 30_000 }).toEqual([1, 0]);
    expect(await page.locator('.history-list [data-testid="history-approved"]').innerText()).toContain(String(ready.id));
    await page.locator('#h-text').fill('');
    await row(waiting.id).waitFor();
    expect(await row(ready.id).count()).toBe(0);

    // A rejected request shows only when searched, marked as never sent.
    const refused = (await fatou.askPayout(PROFILE, 'XAF', paymentRequest({ amount: 300_000, external_id: `INV-${tag}-0414` })))!;
    await team.workspaces.storeAs('kofi', team.database).approvals!.reject(refused.id, 'wrong supplier');
    await page.locator('#h-text').fill(`INV-${tag}-0414`);
    await row(refused.id).waitFor();
    expect(await row(refused.id).getAttribute('data-state')).toBe('rejected');
    expect(await row(refused.id).innerText()).toContain(language === 'en' ? 'Rejected, not sent' : 'Refusée, non envoyée');
    await page.locator('#h-text').fill('');
    await row(waiting.id).waitFor();
    expect(await row(refused.id).count()).toBe(0);

    // Look up by the waiting external id: awaiting approval (request N), with its card a press away.
    await page.evaluate(() => (location.hash = '#/lookup'));
    await page.locator('input[name="lookup-kind"][value="payout"]').check();
    await page.locator('input[name="lookup-by"][value="external_id"]').check();
    await page.locator('#lookup-id').fill(`INV-${tag}-0412`);
    await page.locator('#lookup-id').press('Enter');
    const said = page.getByTestId('lookup-approval');
    await said.waitFor({ timeout: 30_000 });
    expect(await said.innerText()).toContain(language === 'en' ? `Awaiting approval (request ${waiting.id})` : `En attente d’approbation (demande ${waiting.id})`);
    await screenshot(page, `approval-8-lookup-waiting-${language}`);
    expect(team.h.pageErrors).toEqual([]);
  }, 120_000);
});
