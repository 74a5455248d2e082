/**
 * Approval is a state of the payout (issue 37 item 1), in a real Chromium over fatou's console on a
 * team workspace (one approval from 100,000 XAF): the confirmation of a 400,000 payout says it
 * needs approval (a warning, not an error) and asks; kofi approves; fatou sends it from its card
 * with one action, nothing retyped: the workspace holds one payout, with the external id and the
 * request the approval bound. English and French; axe and 1280 px on the Approvals screen, both
 * themes; screenshots for docs/approvals.md (PAYDESK_SCREENSHOTS=docs/screenshots refreshes them).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';
import { LOCAL_SANDBOX_ID } from '../../electron/console/settings';
import { checkedRows } from '../storage/fixtures';

const team = useWorkspacePage({ person: 'fatou', tiers: [{ minAmount: 100_000, approvals: 1 }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

async function payoutsInWorkspace(): Promise<{ external_id: string; amount: string }[]> {
  const raw = await team.workspaces.connectAs('kofi', team.database);
  const { rows } = await raw.query(`SELECT external_id, amount FROM entries WHERE kind = 'payout' ORDER BY created_at`);
  await raw.end();
  return rows;
}

describe.each(['en', 'fr'] as const)('the maker and the approver, in %s', (language) => {
  it('asks from the confirmation, and once approved sends from the card with one action, nothing retyped', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await choosePreferences(page, language, 'light');
    await page.evaluate(() => (location.hash = '#/payout'));
    await page.locator('#payout-amount').waitFor({ timeout: 30_000 });
    await page.locator('#payout-amount').fill('400000');
    await page.locator('#payout-phone').fill('+237650000001');
    await page.locator('#payout-first').fill('Awa');
    await page.locator('#payout-last').fill('Nkemdirim');
    await page.locator('#payout-email').fill('awa@example.com');
    await page.locator('form.card.form button[type="submit"]').click();
    const dialog = page.getByRole('dialog');
    const ask = dialog.locator('.ask-approval');
    await ask.waitFor();
    // A step of the payout: a warning with Ask, no Send, no error.
    expect(await dialog.locator('.notice-error').count()).toBe(0);
    expect(await dialog.locator('button[type="submit"]').count()).toBe(0);
    await screenshot(page, `approval-1-confirm-needs-approval-${language}`);
    await ask.locator('button.primary').click();
    await ask.locator('[role="status"]').waitFor();
    await screenshot(page, `approval-2-asked-${language}`);
    expect(await payoutsInWorkspace()).toHaveLength(language === 'en' ? 0 : 1);

    const fatou = team.workspaces.storeAs('fatou', team.database).approvals!;
    const asked = (await fatou.waiting('mine'))[0]!;
    expect(asked).toMatchObject({ state: 'awaiting', amount: 400_000, request: { customer: { first_name: 'Awa', last_name: 'Nkemdirim' } } });
    await team.workspaces.storeAs('kofi', team.database).approvals!.approve(asked.id, asked.digest, 'invoice checked');

    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const openApprovals = async () => {
      await page.evaluate(() => (location.hash = '#/approvals'));
      await page.locator('#approvals-mine-title').waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: language === 'en' ? 'Refresh' : 'Actualiser', exact: true }).click();
    };
    await openApprovals();
    const card = page.locator('.approval-card', { has: page.locator(`#approval-${asked.id}-title`) });
    const send = card.locator('.approval-send button');
    await send.waitFor();
    expect(await card.locator('.approval-steps [aria-current="step"]').innerText()).toBe(language === 'en' ? 'Approved, ready to send' : 'Approuvé, prêt à envoyer');
    for (const theme of ['light', 'dark'] as const) {
      await choosePreferences(page, language, theme);
      await openApprovals();
      await send.waitFor();
      expect(serious(await axeViolations(page))).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      await screenshot(page, `approval-3-ready-to-send-${language}-${theme}`);
    }
    await choosePreferences(page, language, 'light');
    await openApprovals();
    await send.click();
    await expect.poll(async () => (await fatou.get(asked.id))!.sent).toBe(true);
    // The payout's own page opens: the card's one action led there.
    await page.waitForFunction(() => location.hash.startsWith('#/timeline/'));
    await page.locator('.approval-trail').waitFor();
    const payouts = await payoutsInWorkspace();
    expect(payouts.at(-1)).toEqual({ external_id: asked.externalId, amount: '400000' });
    expect(payouts).toHaveLength(language === 'en' ? 1 : 2);
    await screenshot(page, `approval-4-sent-${language}`);
    expect(team.h.pageErrors).toEqual([]);
  });
});

async function batchEntries(batchId: string): Promise<number> {
  const raw = await team.workspaces.connectAs('kofi', team.database);
  const { rows } = await raw.query(`SELECT count(*)::int AS n FROM entries WHERE batch_id = $1`, [batchId]);
  await raw.end();
  return rows[0].n;
}

describe.each(['en', 'fr'] as const)('an approved batch, in %s', (language) => {
  it('shows its rows on the card, and is sent from the card with one action as it was approved', async () => {
    const batchId = `b-card-${language}`;
    const fatou = team.workspaces.storeAs('fatou', team.database);
    await fatou.batches.create({ id: batchId, fileName: `june-${language}.csv`, fileHash: batchId, profile: { id: LOCAL_SANDBOX_ID, name: 'Local sandbox', environment: 'sandbox' }, paymentMethod: null, concurrency: 2, retryOf: null, rows: checkedRows(20, { prefix: `JUNE-${language.toUpperCase()}` }), at: Date.now() });
    const asked = (await fatou.approvals!.askBatch(batchId, 'XAF'))!;
    await team.workspaces.storeAs('kofi', team.database).approvals!.approve(asked.id, asked.digest, 'file checked');

    await page.setViewportSize({ width: 1280, height: 800 });
    const openApprovals = async () => {
      await page.evaluate(() => (location.hash = '#/approvals'));
      await page.locator('#approvals-mine-title').waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: language === 'en' ? 'Refresh' : 'Actualiser', exact: true }).click();
    };
    const card = page.locator('.approval-card', { has: page.locator(`#approval-${asked.id}-title`) });
    const send = card.locator('.approval-send button');
    for (const theme of ['light', 'dark'] as const) {
      await choosePreferences(page, language, theme);
      await openApprovals();
      await send.waitFor();
      await card.locator('.approval-rows table tbody tr').first().waitFor();
      expect(await card.locator('.approval-rows table tbody tr').count()).toBe(10);
      expect(serious(await axeViolations(page))).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, `approval-5-batch-ready-${language}-${theme}`);
    }
    expect(await batchEntries(batchId)).toBe(0);
    await choosePreferences(page, language, 'light');
    await openApprovals();
    await send.click();
    // The batch's page opens; the batch the approval bound is sent, every row once.
    await page.waitForFunction(() => location.hash.startsWith('#/batches'));
    await expect.poll(async () => (await fatou.batches.summary(batchId))!.state, { timeout: 60_000 }).toBe('done');
    expect(await batchEntries(batchId)).toBe(20);
    await screenshot(page, `approval-6-batch-sent-${language}`);
    expect(team.h.pageErrors).toEqual([]);
  }, 120_000);
});
