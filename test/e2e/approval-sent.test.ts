/**
 * The maker's side of an approved request whose money has left, in a real Chromium over fatou's
 * console on a team workspace (one approval from 100,000 XAF): a Withdraw pressed just as the
 * payout leaves (from another desktop of hers, between the click and the console's answer) is
 * refused with APPROVAL_ALREADY_SENT, nothing changed; read again, the card says the payout was
 * sent and offers no Withdraw. English and French; screenshots looked at.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { payoutRequest, PROFILE } from '../storage/fixtures';
import { axeViolations, serious } from './axe';
import { screenshot } from './harness';
import { choosePreferences } from './preferences';
import { useWorkspacePage } from './workspace-page';

const team = useWorkspacePage({ person: 'fatou', tiers: [{ minAmount: 100_000, approvals: 1 }] });
let page: Page;
beforeAll(() => {
  page = team.page;
});

const WORDS = {
  en: {
    refresh: 'Refresh',
    withdraw: (id: number) => `Withdraw request ${id}:`,
    withdrawYes: 'Yes, withdraw it',
    refused: 'This request’s money has already been sent: it can no longer be withdrawn.',
    sent: 'This payout has been sent: the request can no longer be withdrawn. Follow the payout from its timeline.',
  },
  fr: {
    refresh: 'Actualiser',
    withdraw: (id: number) => `Retirer la demande ${id} :`,
    withdrawYes: 'Oui, la retirer',
    refused: 'L’argent de cette demande a déjà été envoyé : elle ne peut plus être retirée.',
    sent: 'Ce transfert a été envoyé : la demande ne peut plus être retirée. Suivez le transfert depuis sa chronologie.',
  },
} as const;

describe.each(['en', 'fr'] as const)('an approved payout whose money has left, in %s', (language) => {
  const words = WORDS[language];

  it('refuses a Withdraw pressed on the card read before the send, changes nothing, and then offers none', async () => {
    await choosePreferences(page, language, 'light');
    const fatou = team.workspaces.storeAs('fatou', team.database);
    const request = payoutRequest({ amount: 250_000, external_id: `SENT-${language}` });
    const asked = (await fatou.approvals!.askPayout(PROFILE, 'XAF', request))!;
    await team.workspaces.storeAs('kofi', team.database).approvals!.approve(asked.id, asked.digest, 'ok');
    await page.evaluate(() => (location.hash = '#/approvals'));
    await page.locator('#approvals-mine-title').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    const withdraw = page.locator(`button[aria-label^="${words.withdraw(asked.id)}"]`);
    await withdraw.waitFor();

    // The payout leaves from another desktop of fatou's (its pending entry: its POST may have gone)
    // between her click and the console's answer: held at the page's call, so no live refresh of
    // the list can take the button away first.
    await page.route('**/api/invoke/approvals:withdraw', async (route) => {
      await fatou.journal.writeRequest({ profile: PROFILE, kind: 'payout', request, currency: 'XAF', at: Date.now() });
      await route.continue();
    });
    await withdraw.click();
    await page.getByRole('button', { name: words.withdrawYes }).click();
    const notice = page.locator('.notice-error', { hasText: words.refused });
    await notice.waitFor();
    await page.unroute('**/api/invoke/approvals:withdraw');
    expect(await fatou.approvals!.get(asked.id)).toMatchObject({ state: 'approved', sent: true, decidedBy: 'kofi' });
    expect(serious(await axeViolations(page))).toEqual([]);
    await screenshot(page, `approvals-already-sent-${language}-light`);

    await page.getByRole('button', { name: words.refresh, exact: true }).click();
    const card = page.locator('.approval-card', { has: page.locator(`#approval-${asked.id}-title`) });
    await card.getByText(words.sent).waitFor();
    expect(await withdraw.count()).toBe(0);
    await screenshot(page, `approvals-sent-${language}-light`);
    expect(team.h.pageErrors).toEqual([]);
  });
});
